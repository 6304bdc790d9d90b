// A JSON-RPC client over a pair of streams, speaking to `papo mcp` the way Claude Code does: one
// JSON text per line, with papo's own codec (src/mcp/json-lines.ts). Used against the spawned binary
// (mcp-process.ts) and against the server run in-process. Keeps every raw stdout line, cut exactly
// at "\n" (a "\r" or a blank line would show), so tests can assert that nothing but JSON-RPC ever
// appears there.
import type { Readable, Writable } from 'node:stream';
import { jsonLine, LineSplitter, parseJsonLine } from '../../src/mcp/json-lines.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON from the wire, inspected by the tests.
export type Json = any;

interface Waiter {
  pred: (m: Json) => boolean;
  what: string;
  resolve: (m: Json) => void;
  reject: (e: Error) => void;
}

export class RpcClient {
  /** Every line the server wrote, raw. */
  readonly lines: string[] = [];
  /** Every line parsed (a line that is not JSON is recorded as { __raw }). */
  readonly messages: Json[] = [];
  private nextId = 1;
  private waiters: Waiter[] = [];
  private readonly splitter = new LineSplitter((line) => this.onLine(line));
  /** Set once the server's output has ended: nothing more can arrive. */
  private ended = false;

  /**
   * `keep`: how many lines (and messages) to keep at the most, the oldest dropped first — for a
   * process that runs long (chaos, fuzzing); by default all, for the tests that look at every line.
   */
  constructor(
    private readonly toServer: Writable,
    fromServer: Readable,
    private readonly keep = Number.POSITIVE_INFINITY,
  ) {
    fromServer.setEncoding('utf8');
    fromServer.on('data', (chunk: string) => this.splitter.push(chunk));
    // What is still awaited then never comes: say so now rather than at each waiter's timeout.
    const end = () => {
      if (this.ended) return;
      this.ended = true;
      for (const w of this.waiters.splice(0)) w.reject(this.endedError(w.what));
    };
    fromServer.on('end', end);
    fromServer.on('close', end);
  }

  /** Bytes received after the last newline (must stay empty: every message ends its line). */
  get partial(): string {
    return this.splitter.rest;
  }

  private endedError(what: string): Error {
    return new Error(`the server's output ended before ${what}; got: ${this.lines.join('\n')}`);
  }

  private onLine(line: string): void {
    this.lines.push(line);
    const parsed = parseJsonLine(line);
    const msg: Json =
      parsed === undefined || typeof parsed.value !== 'object' || parsed.value === null
        ? { __raw: line }
        : parsed.value;
    this.messages.push(msg);
    if (this.lines.length > this.keep) {
      const drop = this.lines.length - Math.ceil(this.keep / 2);
      this.lines.splice(0, drop);
      this.messages.splice(0, drop);
    }
    for (const w of [...this.waiters]) {
      if (w.pred(msg)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(msg);
      }
    }
  }

  /** Writes one raw line (a malformed one too) and its newline. */
  writeLine(line: string): void {
    this.toServer.write(`${line}\n`);
  }

  notify(method: string, params?: Json): void {
    this.toServer.write(jsonLine({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }));
  }

  /** Sends a request and returns its id (use `response(id)` to await the answer). */
  send(method: string, params?: Json, id: number | string = this.nextId++): number | string {
    this.toServer.write(
      jsonLine({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
    );
    return id;
  }

  async request(method: string, params?: Json, timeoutMs = 10_000): Promise<Json> {
    const id = this.send(method, params);
    return this.response(id, timeoutMs);
  }

  response(id: number | string | null, timeoutMs = 10_000): Promise<Json> {
    return this.waitFor(
      (m) => m.id === id && ('result' in m || 'error' in m),
      timeoutMs,
      `response to id ${id}`,
    );
  }

  /** Resolves with the first message (already received or future) matching `pred`. */
  waitFor(pred: (m: Json) => boolean, timeoutMs = 10_000, what = 'message'): Promise<Json> {
    const seen = this.messages.find(pred);
    if (seen !== undefined) return Promise.resolve(seen);
    if (this.ended) return Promise.reject(this.endedError(what));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        pred,
        what,
        resolve: (m: Json) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`timed out waiting for ${what}; got: ${this.lines.join('\n')}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  async initialize(protocolVersion = '2025-11-25'): Promise<Json> {
    const res = await this.request('initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'papo-tests', version: '0' },
    });
    this.notify('notifications/initialized');
    return res;
  }

  /** tools/call, returning the result ({content, isError?}). */
  async call(name: string, args: Json = {}, meta?: Json, timeoutMs = 10_000): Promise<Json> {
    const res = await this.request(
      'tools/call',
      { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
      timeoutMs,
    );
    if (res.error !== undefined) throw new Error(`tools/call ${name}: ${JSON.stringify(res.error)}`);
    return res.result;
  }
}

export function resultText(result: Json): string {
  return result.content[0].text;
}
