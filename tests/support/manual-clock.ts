// A clock the test moves by hand (the Clock seam of src/client/room/clock.ts): `advance` runs the timers
// that fall due, in order, each at its own time.
import type { Clock } from '../../src/client/room/clock.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

export class ManualClock implements Clock {
  #now: number;
  #timers: Timer[] = [];
  #seq = 0;

  constructor(start: number) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  after(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.#now + ms, seq: this.#seq++, fn };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Timers set and not yet run nor cancelled. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Moves time on by `ms`, running each timer that falls due at its own time. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = Math.max(this.#now, due.at);
      due.fn();
    }
    this.#now = end;
  }
}
