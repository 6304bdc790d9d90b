// The stdio transport (MCP "stdio"): one JSON-RPC message per line over a Readable and a Writable.
// It owns the framing and nothing else: reading lines ("\n" or "\r\n", a last line without its
// newline at EOF; the codec, json-lines.ts, is shared with the clients, ADR 0079), classifying each
// one (json-rpc.ts) for the session, the single writer through which every byte on stdout passes
// (stdout carries JSON-RPC only; diagnostics go to stderr), no more writing once shutting down or
// once the pipe is gone, and the end of the input (the client closed stdin). What a message means
// is the session's business (session.ts).
import type { Readable, Writable } from 'node:stream';
import type { Diagnostics } from './diagnostics.js';
import { jsonLine, readLines } from './json-lines.js';
import { type Incoming, type JsonRpcId, type OutgoingError, parseMessage } from './json-rpc.js';

/**
 * The single writer: every byte papo puts on stdout goes through the function this returns, one
 * JSON text and one newline per call, in one `write`, so a response and a notification can never
 * interleave inside a line. JSON.stringify escapes control characters, so a line break inside a
 * message body cannot break the framing.
 */
export interface Writer {
  result(id: JsonRpcId, result: unknown): void;
  error(id: JsonRpcId | null, error: OutgoingError): void;
  notify(method: string, params: unknown): void;
  /** After close(), writes are dropped (stdout may be gone while shutting down). */
  close(): void;
}

export function createWriter(out: Writable): Writer {
  let closed = false;
  const write = (msg: object) => {
    if (closed || out.destroyed || out.writableEnded) return;
    out.write(jsonLine(msg));
  };
  // A closed pipe (EPIPE) must not crash the process; shutting down is handled elsewhere.
  out.on('error', () => {
    closed = true;
  });
  return {
    result: (id, result) => write({ jsonrpc: '2.0', id, result }),
    error: (id, error) => write({ jsonrpc: '2.0', id, error }),
    notify: (method, params) => write({ jsonrpc: '2.0', method, params }),
    close: () => {
      closed = true;
    },
  };
}

export interface StdioTransport {
  /** The single writer (see Writer). */
  readonly writer: Writer;
  /** Resolves when the input ends (the client closed stdin). */
  readonly ended: Promise<void>;
  /** Starts reading: each non-blank line, classified, goes to `onMessage`. Call once. */
  listen(onMessage: (msg: Incoming) => void): void;
  /** Stops writing: stdout may be gone while shutting down. Reading goes on. */
  close(): void;
}

export function createStdioTransport(input: Readable, output: Writable, log: Diagnostics): StdioTransport {
  const writer = createWriter(output);
  let resolveEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    resolveEnded = resolve;
  });
  return {
    writer,
    ended,
    listen: (onMessage) =>
      readLines(
        input,
        (line) => onMessage(parseMessage(line)),
        () => {
          log.log('info', 'stdin closed');
          resolveEnded();
        },
      ),
    close: () => writer.close(),
  };
}
