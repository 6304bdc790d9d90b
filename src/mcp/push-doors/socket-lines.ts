// One connection to a client's unix socket that writes a few JSON lines and ends: how papo hands a
// message to Claude Code's and Qwen Code's session messaging (ADR 0118). And the other way, a
// socket of papo's own that reads the lines a client writes to it (Qwen Code's receipts). The lines
// carry a token: nothing here logs them, and an error names the socket's failure only.
import { createConnection, createServer, type Server } from 'node:net';
import { messageOf } from '../../client/errors.js';

/** How long one message may take to be written to a client's socket. */
export const SESSION_PUSH_TIMEOUT_MS = 5000;

/**
 * Connects to `socketPath`, writes `lines` (one JSON value each) and ends. Resolves once written;
 * rejects with one line naming `what` (e.g. "Claude Code's messaging socket") on a socket error or
 * after SESSION_PUSH_TIMEOUT_MS.
 */
export function writeSocketLines(socketPath: string, lines: unknown[], what: string): Promise<void> {
  const data = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const done = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err === undefined) resolve();
      else reject(err);
    };
    const socket = createConnection({ path: socketPath });
    const timer = setTimeout(
      () => done(new Error(`no answer from ${what} within ${SESSION_PUSH_TIMEOUT_MS} ms`)),
      SESSION_PUSH_TIMEOUT_MS,
    );
    socket.on('error', (err) => done(new Error(socketError(err, what))));
    // Written and ended: the client reads the lines and closes its side.
    socket.on('connect', () => socket.end(data, () => done()));
  });
}

/** A socket error in one line, without the token (never in it) or anything the socket said. */
export function socketError(err: Error & { code?: string }, what: string): string {
  if (err.code === 'ENOENT') return `${what} is gone (ENOENT)`;
  if (err.code === 'ECONNREFUSED') return `${what} refused the connection`;
  return messageOf(err);
}

/** The most one connection to papo's socket may write (Qwen Code's receipt is a few hundred bytes). */
const MAX_LINES_BYTES = 64 * 1024;

/**
 * Listens on a unix socket at `socketPath` (in a folder only this user can enter: the caller makes
 * it) and hands what each connection wrote, its JSON lines parsed, to `onLines` once the writer
 * ends. A connection that writes more than 64 KiB, a line that is not JSON, or one that does not
 * end within SESSION_PUSH_TIMEOUT_MS is dropped unread. The server does not keep the process alive.
 */
export function listenSocketLines(socketPath: string, onLines: (lines: unknown[]) => void): Promise<Server> {
  const server = createServer((socket) => {
    let data = '';
    socket.setEncoding('utf8');
    socket.setTimeout(SESSION_PUSH_TIMEOUT_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (data.length > MAX_LINES_BYTES) socket.destroy();
    });
    socket.on('end', () => {
      socket.end();
      let lines: unknown[];
      try {
        lines = data
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as unknown);
      } catch {
        return;
      }
      onLines(lines);
    });
  });
  return new Promise<Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      server.unref();
      resolve(server);
    });
  });
}
