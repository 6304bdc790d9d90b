// The local signal server (docs/architecture.md, "The local signal server"): a room on a plain
// ws:// loopback URL meets on a server that one member of this machine hosts, in its own process,
// so that a restart of a transport does not take it away from the other members. Whichever member
// gets the port first hosts it; the others use it, and take the port over when its host exits.
// The CLI gives the function that starts it (src/cli/local-signal-server.ts): the client never
// imports the server.
import { connect } from 'node:net';
import { messageOf } from './errors.js';
import { bareHost } from './hosts.js';
import { type Log, toLog } from './log.js';
import { isLoopbackSignalUrl } from './wire/signal-url.js';

/** Starts a signal server on `host`:`port` (rejects with EADDRINUSE when one is already there). */
export type HostSignalServer = (at: { host: string; port: number }) => Promise<{ close(): Promise<void> }>;

/**
 * The local signal server of the room at `signalUrl`, started once (tryStart), or undefined when
 * this room does not host one: only a plain ws:// room on this machine does — the local server
 * speaks no TLS, and a wss:// URL on this machine is a TLS proxy's port, which the member must not
 * take when the proxy is down.
 */
export async function startEmbeddedSignalServer(
  signalUrl: string,
  host: HostSignalServer | undefined,
  log: Log,
): Promise<EmbeddedSignalServer | undefined> {
  if (host === undefined || !signalUrl.startsWith('ws://') || !isLoopbackSignalUrl(signalUrl))
    return undefined;
  const embedded = new EmbeddedSignalServer(signalUrl, host, log);
  await embedded.tryStart();
  return embedded;
}

/** The local signal server, hosted by whichever member on this machine got the port first. */
export class EmbeddedSignalServer {
  #host: string;
  #port: number;
  #startServer: HostSignalServer;
  #log: Log;
  #handle: { close(): Promise<void> } | undefined;
  #starting: Promise<boolean> | undefined;
  #closed = false;

  constructor(url: string, start: HostSignalServer, log: Log) {
    const parsed = new URL(url);
    const host = parsed.hostname === 'localhost' ? '127.0.0.1' : bareHost(parsed.hostname);
    this.#host = host;
    this.#port = Number(parsed.port || 80); // a ws:// URL (hostLocalSignalServer hosts no other)
    this.#startServer = start;
    this.#log = toLog(log);
  }

  get running(): boolean {
    return this.#handle !== undefined;
  }

  /**
   * Hosts the server unless another member of this machine does; resolves whether a server is
   * there now (hosted here, or by the other member) — false once closed, or when it cannot start.
   */
  tryStart(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#handle !== undefined) return Promise.resolve(true);
    this.#starting ??= this.#hostNow().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #hostNow(): Promise<boolean> {
    // Another member of this machine hosts it (the usual case): a connect tells at once, where
    // loading the server's modules only to be told EADDRINUSE takes 100-170 ms of a papo say's
    // 0.3 s (docs/performance.md). A port that refuses is free, or was a moment ago: start.
    if (await someoneListens(this.#host, this.#port)) return true;
    try {
      const handle = await this.#startServer({ host: this.#host, port: this.#port });
      if (this.#closed) {
        await handle.close();
        return false;
      }
      this.#handle = handle;
      this.#log(`hosting the local signal server on ws://${this.#host}:${this.#port}`);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') return true; // another member took it a moment before us
      this.#log(`could not start the local signal server: ${messageOf(err)}`);
      return false;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#starting;
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close();
  }
}

/** Whether something accepts a TCP connection on `host`:`port` (loopback: answered at once). */
function someoneListens(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (yes: boolean) => {
      socket.destroy();
      resolve(yes);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    // A loopback port answers in well under a millisecond; past this, as if nobody listened.
    socket.setTimeout(1_000, () => done(false));
  });
}
