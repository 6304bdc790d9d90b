// A small JSON-RPC client for a `papo mcp` child process, speaking exactly as Claude Code does:
// one JSON message per line on stdin, responses and notifications read line by line from stdout,
// with the server's own codec (mcp/json-lines.ts, ADR 0079). `papo demo` uses it, and the benchmarks.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { jsonLine, parseJsonLine, readLines } from '../mcp/json-lines.js';

export interface RpcNotification {
  method: string;
  params?: Record<string, unknown>;
}

export interface ToolResult {
  content: { type: string; text: string }[];
  isError?: boolean;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class McpStdioClient extends EventEmitter<{ notification: [RpcNotification] }> {
  readonly child: ChildProcessWithoutNullStreams;
  readonly notifications: RpcNotification[] = [];
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #exited: Promise<number | null>;

  constructor(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }) {
    super();
    this.child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: 'pipe' });
    this.#exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    readLines(
      this.child.stdout,
      (line) => this.#onLine(line),
      () => {},
    );
    this.child.once('exit', () => {
      for (const p of this.#pending.values()) p.reject(new Error('the papo mcp process exited'));
      this.#pending.clear();
    });
  }

  #onLine(line: string): void {
    const parsed = parseJsonLine(line);
    if (parsed === undefined || typeof parsed.value !== 'object' || parsed.value === null) return;
    const message = parsed.value as {
      id?: number;
      result?: unknown;
      error?: { message: string };
      method?: string;
    };
    if (message.method !== undefined && message.id === undefined) {
      const n = message as RpcNotification;
      this.notifications.push(n);
      this.emit('notification', n);
      return;
    }
    if (typeof message.id !== 'number') return;
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.error) pending.reject(new Error(message.error.message));
    else pending.resolve(message.result);
  }

  request<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.#nextId++;
    const promise = new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    });
    this.child.stdin.write(jsonLine({ jsonrpc: '2.0', id, method, params }));
    return promise;
  }

  notify(method: string, params?: Record<string, unknown>): void {
    const message = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    this.child.stdin.write(jsonLine(message));
  }

  /** initialize + notifications/initialized, as Claude Code opens a session. */
  async initialize(protocolVersion = '2025-11-25'): Promise<unknown> {
    const result = await this.request('initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'papo-demo', version: '1' },
    });
    this.notify('notifications/initialized');
    return result;
  }

  callTool(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
    return this.request<ToolResult>('tools/call', { name, arguments: args });
  }

  /** The next notification with this method (already received ones first). */
  nextNotification(method: string, timeoutMs: number, skip = 0): Promise<RpcNotification> {
    const seen = this.notifications.filter((n) => n.method === method);
    if (seen.length > skip) return Promise.resolve(seen[skip] as RpcNotification);
    return new Promise((resolve, reject) => {
      let count = seen.length;
      const timer = setTimeout(() => {
        this.off('notification', onNotification);
        reject(new Error(`no ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onNotification = (n: RpcNotification) => {
        if (n.method !== method || count++ < skip) return;
        clearTimeout(timer);
        this.off('notification', onNotification);
        resolve(n);
      };
      this.on('notification', onNotification);
    });
  }

  /** Ends the session the way Claude Code does when it closes: stdin EOF. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    const code = await this.#exited;
    clearTimeout(timer);
    return code;
  }
}

export function toolText(result: ToolResult): string {
  return result.content.map((c) => c.text).join('\n');
}
