// A JSON-RPC client over a pair of streams, speaking to `papo mcp` the way Claude Code does: one
// JSON text per line. Used against the spawned binary and against the server run in-process; the
// end-to-end tests between two members will reuse it. Keeps every raw stdout line so tests can
// assert that nothing but JSON-RPC ever appears there.
import type { Readable, Writable } from 'node:stream';

// biome-ignore lint/suspicious/noExplicitAny: JSON from the wire, inspected by the tests.
export type Json = any;

export class RpcClient {
  /** Every line the server wrote, raw. */
  readonly lines: string[] = [];
  /** Every line parsed (a line that is not JSON is recorded as { __raw }). */
  readonly messages: Json[] = [];
  private nextId = 1;
  private waiters: { pred: (m: Json) => boolean; resolve: (m: Json) => void }[] = [];
  private buffered = '';

  constructor(
    private readonly toServer: Writable,
    fromServer: Readable,
  ) {
    fromServer.setEncoding('utf8');
    fromServer.on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl = this.buffered.indexOf('\n');
      while (nl !== -1) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        this.onLine(line);
        nl = this.buffered.indexOf('\n');
      }
    });
  }

  /** Bytes received after the last newline (must stay empty: every message ends its line). */
  get partial(): string {
    return this.buffered;
  }

  private onLine(line: string): void {
    this.lines.push(line);
    let msg: Json;
    try {
      msg = JSON.parse(line);
    } catch {
      msg = { __raw: line };
    }
    this.messages.push(msg);
    for (const w of [...this.waiters]) {
      if (w.pred(msg)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(msg);
      }
    }
  }

  writeLine(line: string): void {
    this.toServer.write(`${line}\n`);
  }

  notify(method: string, params?: Json): void {
    this.writeLine(JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }));
  }

  /** Sends a request and returns its id (use `response(id)` to await the answer). */
  send(method: string, params?: Json, id: number | string = this.nextId++): number | string {
    this.writeLine(
      JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
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
    return new Promise((resolve, reject) => {
      const waiter = {
        pred,
        resolve: (m: Json) => {
          clearTimeout(timer);
          resolve(m);
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
