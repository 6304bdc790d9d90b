// Diagnostics, on the ground floor: every part of the client may import this (as errors.ts). A
// component is handed one `Log` and gives each part it builds a child with a prefix (js-libp2p's
// `logger.forComponent` is the model), instead of writing the prefix into every line. Lines go to
// stderr or the transport's IPC channel in production, never to stdout (the MCP channel).

/** Writes one diagnostic line; `child(prefix)` is a log whose lines start with `prefix`. */
export interface Log {
  (line: string): void;
  child(prefix: string): Log;
}

/** What an option takes: a Log, or a plain function of a line (a test's `lines.push`, stderr). */
export type LogTarget = Log | ((line: string) => void);

/** The Log that writes to `target`; a silent one when there is none. A Log is returned as it is. */
export function toLog(target?: LogTarget): Log {
  if (target === undefined) return silentLog;
  if (isLog(target)) return target;
  return prefixed(target, '');
}

/** Drops every line (a component built without a log). */
export const silentLog: Log = Object.assign((_line: string) => {}, { child: () => silentLog });

function isLog(target: LogTarget): target is Log {
  return typeof (target as Partial<Log>).child === 'function';
}

function prefixed(write: (line: string) => void, prefix: string): Log {
  const log = (line: string) => write(`${prefix}${line}`);
  return Object.assign(log, { child: (more: string) => prefixed(write, `${prefix}${more}`) });
}

/**
 * The first 10 hex characters of a node id: how people see a member (`colega [b0eb25083d]`) in
 * texts and in log lines. Here, on the ground floor, so that every part writes it the same way
 * (the network may not import the wire's modules); wire/identity.ts offers it too.
 */
export function shortId(nodeId: string): string {
  return nodeId.slice(0, 10);
}
