// Validation of tool arguments. A bad argument is the model's mistake, so it comes back as a tool
// error (isError) in words the model can act on, not as a JSON-RPC error (MCP 2025-11-25 asks for
// input validation errors to be tool execution errors, so the model can correct itself).
import { MEMBER_NAME_PATTERN, MESSAGE_ID_PATTERN } from '../client/wire/names.js';
import { ARGUMENT_ERRORS } from './texts.js';

/** The room's rules, from their one home (src/client/wire/names.ts). */
export const MEMBER_NAME = MEMBER_NAME_PATTERN;
export const MSG_ID = MESSAGE_ID_PATTERN;

export class ArgumentError extends Error {
  override readonly name = 'ArgumentError';
}

export type Args = Record<string, unknown>;

/**
 * Arguments that agent clients add to every tool call on their own, not the model (ADR 0069):
 * ignored, whatever their value. Gemini CLI adds `wait_for_previous` (0.61.0, measured in issue 16)
 * and asks its model to set it on dependent calls.
 */
export const CLIENT_ADDED_ARGUMENTS: readonly string[] = ['wait_for_previous'];

/**
 * Refuses arguments the tool does not take (catches `body` for `message`, `timeout` for
 * `timeout_seconds`, and similar), but for those a client adds by itself (CLIENT_ADDED_ARGUMENTS).
 */
export function checkKnown(tool: string, args: Args, known: readonly string[]): void {
  for (const key of Object.keys(args)) {
    if (known.includes(key) || CLIENT_ADDED_ARGUMENTS.includes(key)) continue;
    throw new ArgumentError(ARGUMENT_ERRORS.unknownArgument(tool, key, known));
  }
}

/**
 * A value the model sent, as text for an error message. Never throws: String() does on an object
 * such as `{"toString": []}`, which any client may send (found by the fuzz run, issue 13).
 */
export function shownValue(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return typeof v;
  }
}

export function optionalString(args: Args, key: string, notString: string): string | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ArgumentError(notString);
  return v;
}

/** An optional integer in [min, max]; a whole number given as a float (300.0) is accepted. */
export function optionalInteger(
  args: Args,
  key: string,
  min: number,
  max: number,
  fallback: number,
  error: string,
): number {
  const v = args[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new ArgumentError(error);
  return v;
}
