// The time the room node's pacing runs on (hello-answers.ts, peers-save.ts): what time it is, and
// one-shot timers. A seam: the node passes its own clock, tests pass one they move by hand.
export interface Clock {
  now(): number;
  /** Runs `fn` once, `ms` from now; returns what cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/** Node's timers, unref'd: a pending answer or save never keeps the process alive. */
export function after(ms: number, fn: () => void): () => void {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
}
