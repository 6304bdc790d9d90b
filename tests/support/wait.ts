// The one polling wait of the tests: asks `check` again and again until it answers, or fails saying
// what it waited for and what it saw last. For state that nothing announces (a link up, a file
// written, a process gone); where an event or a message says it, wait for that instead.

export interface WaitOptions {
  /** Fail after this long (default 15 s). */
  timeoutMs?: number;
  /** Between two checks (default 25 ms; a check that calls a tool of papo mcp wants more). */
  intervalMs?: number;
  /** Added to the error: what was seen last (a status text, a stderr). */
  last?: () => string;
}

/**
 * Calls `check` until it returns a truthy value, and returns that value; checks once more at the
 * deadline, then rejects with "timed out waiting for <what>" (and `last()`). A number is the timeout.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  options: number | WaitOptions = {},
): Promise<NonNullable<T>> {
  const o = typeof options === 'number' ? { timeoutMs: options } : options;
  const timeoutMs = o.timeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) {
      const last = o.last?.();
      throw new Error(
        `timed out waiting for ${what} (${timeoutMs} ms)${last ? `; last seen:\n${last}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, o.intervalMs ?? 25));
  }
}
