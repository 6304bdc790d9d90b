// JSON-RPC 2.0 over stdio, one message per line (MCP "stdio" transport). Hand-written rather than
// the SDK (ADR 0040). This module knows framing and the envelope only; what a method means is the
// server's business. Errors that cross the wire carry numeric codes and are kept apart from
// PapoError, whose string codes never leave the process.
import type { Readable, Writable } from 'node:stream';
import { PROTOCOL_ERRORS } from './texts.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/** MCP forbids null ids (unlike bare JSON-RPC), so an id is a string or a number. */
export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  kind: 'request';
  id: JsonRpcId;
  method: string;
  params: unknown;
}

export interface JsonRpcNotification {
  kind: 'notification';
  method: string;
  params: unknown;
}

/** A line that must be answered with an error (id null when it could not be read). */
export interface JsonRpcInvalid {
  kind: 'invalid';
  id: JsonRpcId | null;
  code: number;
  message: string;
}

/** A response from the client; papo sends no requests, so these are ignored. */
export interface JsonRpcResponseIn {
  kind: 'response';
}

export type Incoming = JsonRpcRequest | JsonRpcNotification | JsonRpcInvalid | JsonRpcResponseIn;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is JsonRpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Classifies one line. Never throws. */
export function parseMessage(line: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'invalid', id: null, code: PARSE_ERROR, message: PROTOCOL_ERRORS.parse };
  }
  // Batches were dropped from MCP in 2025-06-18; one message per line is what clients send.
  if (Array.isArray(value)) {
    return { kind: 'invalid', id: null, code: INVALID_REQUEST, message: PROTOCOL_ERRORS.batch };
  }
  if (!isObject(value)) {
    return { kind: 'invalid', id: null, code: INVALID_REQUEST, message: PROTOCOL_ERRORS.invalidRequest };
  }
  const id = isId(value.id) ? value.id : null;
  const hasId = 'id' in value;
  if (value.jsonrpc !== '2.0') {
    return { kind: 'invalid', id, code: INVALID_REQUEST, message: PROTOCOL_ERRORS.invalidRequest };
  }
  if (!('method' in value) && hasId && ('result' in value || 'error' in value)) {
    return { kind: 'response' };
  }
  if (typeof value.method !== 'string' || (hasId && id === null)) {
    return { kind: 'invalid', id, code: INVALID_REQUEST, message: PROTOCOL_ERRORS.invalidRequest };
  }
  if ('params' in value && value.params !== undefined && !isObject(value.params)) {
    // JSON-RPC allows array params; MCP never uses them.
    if (id !== null) {
      return { kind: 'invalid', id, code: INVALID_PARAMS, message: PROTOCOL_ERRORS.paramsNotObject };
    }
    return { kind: 'notification', method: value.method, params: undefined };
  }
  if (id !== null) return { kind: 'request', id, method: value.method, params: value.params };
  return { kind: 'notification', method: value.method, params: value.params };
}

export interface OutgoingError {
  code: number;
  message: string;
  data?: unknown;
}

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
    out.write(`${JSON.stringify(msg)}\n`);
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

/**
 * Splits the input into lines and hands each non-blank one to `onLine`; `onEnd` runs once when the
 * input ends or fails. Accepts "\n" and "\r\n" line ends. A line is only complete at its newline:
 * a partial JSON text at EOF is still parsed, so a client that forgets the last newline is served.
 */
export function readLines(input: Readable, onLine: (line: string) => void, onEnd: () => void): void {
  let buffered = '';
  let ended = false;
  input.setEncoding('utf8');
  input.on('data', (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf('\n');
    while (nl !== -1) {
      const line = buffered.slice(0, nl).replace(/\r$/, '');
      buffered = buffered.slice(nl + 1);
      if (line.trim() !== '') onLine(line);
      nl = buffered.indexOf('\n');
    }
  });
  const end = () => {
    if (ended) return;
    ended = true;
    const rest = buffered.trim();
    buffered = '';
    if (rest !== '') onLine(rest);
    onEnd();
  };
  input.on('end', end);
  input.on('close', end);
  input.on('error', end);
}
