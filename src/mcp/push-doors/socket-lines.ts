// One connection to a client's unix socket that writes a few JSON lines and ends: how papo hands a
// message to Claude Code's and Qwen Code's session messaging (ADR 0118). The lines carry a token:
// nothing here logs them, and an error names the socket's failure only.
import { createConnection } from 'node:net';
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
