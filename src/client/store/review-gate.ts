// The review gate's rules (ADR 0081, 0095), while review is on: a message matching a `hold`
// pattern is held; otherwise one from an allowed member (its agent or its person) or from an
// allowed person passes, under the name the rule was made for AND from the key the rule holds for
// it (the key the room held for the name when the person made the rule); everything else is held.
// A key that took the name later (after `papo forget`, or any way past names.json) is not let
// through by a rule made for the one before. With review off nothing new is held. Settings that
// could not be read (`broken`) hold everything.

import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { type Log, type LogTarget, toLog } from '../log.js';
import type { Envelope } from '../wire/messages.js';
import { sameName } from '../wire/names.js';
import { REVIEW_FILE } from './profile-files.js';
import { compilePattern, matchesAny } from './review-patterns.js';
import { REVIEW_OFF, type ReviewSettings, readReviewSettings } from './review-settings.js';

/** Whether the gate holds `msg` under these settings (see the rules at the top). */
export function holds(settings: ReviewSettings, msg: Envelope): boolean {
  if (!settings.on) return false;
  if (settings.broken !== undefined) return true;
  if (matchesAny(settings.hold.map(compilePattern), msg.body)) return true;
  const signer = (name: string, key: string | undefined) => sameName(name, msg.from) && key === msg.node;
  if (msg.kind === 'human' && settings.people.some((p) => signer(p.name, p.key))) return false;
  return !settings.allow.some((m) => signer(m.name, msg.kind === 'agent' ? m.agent : m.human));
}

/**
 * The settings of one profile as the running member reads them: review.json is read again only
 * when it changed (its inode, size or time), so a `papo review on` applies to the next message.
 */
export class ReviewGate {
  #path: string;
  #dir: string;
  #stamp = '';
  #settings: ReviewSettings = REVIEW_OFF;
  #log: Log;

  constructor(profileDir: string, log: LogTarget = () => {}) {
    this.#dir = profileDir;
    this.#path = join(profileDir, REVIEW_FILE);
    this.#log = toLog(log);
  }

  settings(): ReviewSettings {
    let stamp: string;
    try {
      const s = lstatSync(this.#path);
      stamp = `${s.ino}:${s.size}:${s.mtimeMs}:${s.isSymbolicLink()}`;
    } catch {
      stamp = 'missing';
    }
    if (stamp !== this.#stamp) {
      this.#stamp = stamp;
      this.#settings = readReviewSettings(this.#dir);
      if (this.#settings.broken !== undefined)
        this.#log(
          `review: ${this.#path} is not usable (${this.#settings.broken}); every message is held until it is fixed`,
        );
    }
    return this.#settings;
  }

  /** Review is on: the member's hello says so, and the agent's `status`. */
  reviewing(): boolean {
    return this.settings().on;
  }

  holds(msg: Envelope): boolean {
    return holds(this.settings(), msg);
  }
}
