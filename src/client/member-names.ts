// Who a name in the room belongs to (ADR 0064): the first key the room showed this member with it,
// as SSH's known_hosts keeps the first key of a host. A name is held per kind, because a person and
// their agent share a name ("voce (agent)" and "voce (human)") and sign with different keys. A
// frame that claims a held name with another key is an impostor's: refused, never handed to an
// agent, and shown to the person.
//
// names.json: { "voce (agent)": "<node id>", "voce (human)": "<node id>" } (names lower-cased).
// Bounded: past MAX_KNOWN_NAMES, new names are held in memory only (a flood of forged names must
// not fill the file, nor push out the names held first).
import type { SenderKind } from './messages.js';

export const NAMES_FILE = 'names.json';
export const MAX_KNOWN_NAMES = 1024;

export type NameClaim = 'held' | 'new' | 'taken';

export class KnownNames {
  #held: Map<string, string>;
  #extra = new Map<string, string>();
  #changed = false;

  constructor(saved: Record<string, string> = {}) {
    this.#held = new Map(Object.entries(saved).filter(([, node]) => typeof node === 'string'));
  }

  /** Whose `name` (of this kind) is: its node id, or undefined when the room never showed it. */
  holder(name: string, kind: SenderKind): string | undefined {
    const key = nameKey(name, kind);
    return this.#held.get(key) ?? this.#extra.get(key);
  }

  /**
   * `node` claims `name`: 'held' when it already holds it, 'new' when nobody did (it holds it from
   * now on), 'taken' when another key does (the claim changes nothing).
   */
  claim(name: string, kind: SenderKind, node: string): NameClaim {
    const holder = this.holder(name, kind);
    if (holder === node) return 'held';
    if (holder !== undefined) return 'taken';
    const key = nameKey(name, kind);
    if (this.#held.size < MAX_KNOWN_NAMES) {
      this.#held.set(key, node);
      this.#changed = true;
    } else {
      if (this.#extra.size >= MAX_KNOWN_NAMES) this.#extra.delete(this.#extra.keys().next().value as string);
      this.#extra.set(key, node);
    }
    return 'new';
  }

  /** Lets `name` go (a deliberate step: `papo forget`), so the next key that claims it holds it. */
  forget(name: string): boolean {
    let gone = false;
    for (const kind of ['agent', 'human'] as const) {
      const key = nameKey(name, kind);
      gone = this.#held.delete(key) || gone;
      gone = this.#extra.delete(key) || gone;
    }
    if (gone) this.#changed = true;
    return gone;
  }

  /** Whether the saved names changed since the last `saved()`. */
  get changed(): boolean {
    return this.#changed;
  }

  /** What names.json holds; clears `changed`. */
  saved(): Record<string, string> {
    this.#changed = false;
    return Object.fromEntries(this.#held);
  }
}

export function nameKey(name: string, kind: SenderKind): string {
  return `${name.toLowerCase()} (${kind})`;
}
