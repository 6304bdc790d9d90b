// JSON-RPC 2.0 messages, hand-written rather than the SDK (ADR 0040): the error codes and the
// classification of one incoming line. This module knows the envelope only; the framing over stdio
// is stdio-transport.ts's (with json-lines.ts's codec), and what a method means is the session's
// and the tool server's business.
// Errors that cross the wire carry numeric codes and are kept apart from PapoError, whose string
// codes never leave the process.
import { parseJsonLine } from './json-lines.js';
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

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is JsonRpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Classifies one line. Never throws. */
export function parseMessage(line: string): Incoming {
  const parsed = parseJsonLine(line);
  if (parsed === undefined) {
    return { kind: 'invalid', id: null, code: PARSE_ERROR, message: PROTOCOL_ERRORS.parse };
  }
  const value = parsed.value;
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
