// Test helpers: a real `ws` client that queues what the server sends, and ids in the wire format.
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import type { ServerMessage } from '../../src/signal-protocol.js';

export const hex32 = (): string => randomBytes(32).toString('hex');

export interface Closed {
  code: number;
  reason: string;
}

export class TestClient {
  readonly received: ServerMessage[] = [];
  readonly closed: Promise<Closed>;
  private waiter: (() => void) | undefined;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.received.push(JSON.parse(String(data)) as ServerMessage);
      this.waiter?.();
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: String(reason) });
        this.waiter?.();
      });
    });
    ws.on('error', () => {}); // a refused connection also closes; the tests look at `closed`
  }

  /** Opens `${base}/v1/ws` (base is ws://host:port) and waits for the socket to open. */
  static open(
    base: string,
    options: {
      query?: string;
      headers?: Record<string, string>;
      autoPong?: boolean;
      /** PEM certificates to trust for a wss:// base (a self-signed server's own). */
      ca?: string | Buffer;
      /** The client's own address (another loopback address is another client to the server). */
      localAddress?: string;
    } = {},
  ) {
    const ws = new WebSocket(`${base}/v1/ws${options.query ?? ''}`, {
      headers: options.headers ?? {},
      autoPong: options.autoPong ?? true,
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      ...(options.localAddress !== undefined ? { localAddress: options.localAddress } : {}),
    });
    const client = new TestClient(ws);
    return new Promise<TestClient>((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  /** Opens and consumes the welcome message. */
  static async ready(base: string, options: Parameters<typeof TestClient.open>[1] = {}): Promise<TestClient> {
    const c = await TestClient.open(base, options);
    await c.next((m) => m.t === 'welcome');
    return c;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Sends the messages in one TCP write, so the server reads them together. */
  sendTogether(messages: unknown[]): void {
    const socket = (this.ws as unknown as { _socket: Socket })._socket;
    socket.cork();
    for (const m of messages) this.send(m);
    socket.uncork();
  }

  /** Removes and returns the first received message matching `match`, waiting for it if needed. */
  async next(match: (m: ServerMessage) => boolean = () => true, timeoutMs = 5000): Promise<ServerMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.received.findIndex(match);
      if (i >= 0) return this.received.splice(i, 1)[0] as ServerMessage;
      const left = deadline - Date.now();
      if (left <= 0 || this.ws.readyState === WebSocket.CLOSED) {
        throw new Error(`no matching message; received: ${JSON.stringify(this.received).slice(0, 500)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
  }

  /** The error message with `code`. */
  error(code: string): Promise<ServerMessage> {
    return this.next((m) => m.t === 'error' && m.code === code);
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close();
    const timer = setTimeout(() => this.ws.terminate(), 2000);
    await this.closed;
    clearTimeout(timer);
  }
}

/** Fetches text from an HTTP path of the server. */
export async function getText(base: string, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${base.replace(/^ws/, 'http')}${path}`);
  return { status: res.status, body: await res.text() };
}

/** The metrics listener a test server opens (loopback, any free port). */
export const TEST_METRICS = { host: '127.0.0.1', port: 0 } as const;

/** GET /metrics from the server's metrics listener (started with `metrics: TEST_METRICS`). */
export async function metricsOf(server: { metricsUrl: string | undefined }): Promise<string> {
  if (server.metricsUrl === undefined) throw new Error('this server has no metrics listener');
  const res = await fetch(`${server.metricsUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  return res.text();
}

/** The value of one sample in Prometheus text (`name` or `name{labels}`). */
export function sample(metricsText: string, name: string): number {
  const line = metricsText.split('\n').find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no sample ${name}`);
  return Number(line.slice(name.length + 1));
}
