// What a tool call gives back and how it fails, apart from the handlers (tools/): the tool
// server answers `initialize` and `tools/list` with this alone, and loads the handlers after the
// initialize answer or at the first call (issue 28).
import type { Envelope } from '../client/wire/messages.js';

export interface ToolResult {
  content: [{ type: 'text'; text: string }];
  isError?: true;
}

export function textResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }] };
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The call was cancelled (notifications/cancelled or shutdown); no response must be sent. */
export class CallCancelled extends Error {
  override readonly name = 'CallCancelled';
}

/** The room member could not be opened; `message` is the tool error text that says what to do. */
export class MemberUnavailable extends Error {
  override readonly name = 'MemberUnavailable';
}

export interface ToolContext {
  signal: AbortSignal;
  /** Present when the client sent a progressToken; reports seconds waited of the total. */
  progress: ((elapsedSeconds: number, totalSeconds: number) => void) | null;
}

export function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new CallCancelled('cancelled');
}

/**
 * What each `wait`/`inbox` result marked read (see `deliver`): the server puts them back among the
 * unread when the client cancels the call after all (member-api `restore`).
 */
export const CONSUMED = new WeakMap<ToolResult, Envelope[]>();
