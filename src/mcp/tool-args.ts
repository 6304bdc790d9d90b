// Validation of tool arguments. A bad argument is the model's mistake, so it comes back as a tool
// error (isError) in words the model can act on, not as a JSON-RPC error (MCP 2025-11-25 asks for
// input validation errors to be tool execution errors, so the model can correct itself).
import { ARGUMENT_ERRORS } from './texts.js';

/** Member names: 1-32 of A-Za-z0-9-_. (DESIGN.md, "What stays identical"). */
export const MEMBER_NAME = /^[A-Za-z0-9._-]{1,32}$/;
/** Message ids: 10 lower-case hex characters (src/client/messages.ts). */
export const MSG_ID = /^[0-9a-f]{10}$/;

export class ArgumentError extends Error {
  override readonly name = 'ArgumentError';
}

export type Args = Record<string, unknown>;

/** Refuses arguments the tool does not take (catches `body` for `message`, and similar). */
export function checkKnown(tool: string, args: Args, known: readonly string[]): void {
  for (const key of Object.keys(args)) {
    if (!known.includes(key)) throw new ArgumentError(ARGUMENT_ERRORS.unknownArgument(tool, key, known));
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
