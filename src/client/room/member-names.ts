// Who a name in the room belongs to (ADR 0064): the first key the room showed this member with it,
// as SSH's known_hosts keeps the first key of a host. A name is held per kind, because a person and
// their agent share a name ("voce (agent)" and "voce (human)") and sign with different keys. A
// frame that claims a held name with another key is an impostor's: refused, never handed to an
// agent, and shown to the person. This module is the one home of that rule: KnownNames holds who
// each name belongs to; NameGuard judges each claim, remembers the impostors and tells them, and
// remembers whether another member told us our own name is taken.
//
// names.json: { "voce (agent)": "<node id>", "voce (human)": "<node id>" } (names lower-cased).
// Bounded (ADR 0062): past MAX_KNOWN_NAMES, new names are held in memory only (a flood of forged
// names must not fill the file, nor push out the names held first), and past MAX_IMPOSTORS the
// impostor seen first is forgotten.
import type { Impostor } from '../member-api.js';
import type { SenderKind } from '../wire/messages.js';

export const MAX_KNOWN_NAMES = 1024;

/** Impostor keys remembered (for status and the log). */
export const MAX_IMPOSTORS = 64;
/** How often an impostor key is told its name is taken (once a 30 s, not once a frame). */
export const TELL_IMPOSTOR_EVERY_MS = 30_000;

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

export interface NameGuardOptions {
  now: () => number;
  /** A name was held for the first time and names.json changed: it is written soon. */
  held: () => void;
  /**
   * A frame was refused as an impostor's; `first` for the first frame of that key under that name
   * (logged once, written to the log).
   */
  refused: (impostor: Impostor, first: boolean) => void;
  /** Whether impostors are told (a durable member that is not closed). */
  mayTell: () => boolean;
  /** Tells the key `node` that its name is taken (a `refused` frame, `why: "name_taken"`). */
  tell: (node: string, msgId: string | undefined) => void;
}

/** Judges who may speak as whom, and keeps what the person is shown about it (ADR 0064). */
export class NameGuard {
  #names: KnownNames;
  #now: () => number;
  #held: () => void;
  #refused: (impostor: Impostor, first: boolean) => void;
  #mayTell: () => boolean;
  #tell: (node: string, msgId: string | undefined) => void;
  /** Keys refused for claiming a name another key holds, by `name (kind) node`. */
  #impostors = new Map<string, Impostor>();
  /** When we last told each impostor key its name is taken. */
  #told = new Map<string, number>();
  /** Another key holds our name: a member said so, and the others refuse what we send. */
  #takenBy: string | undefined;

  constructor(names: KnownNames, options: NameGuardOptions) {
    this.#names = names;
    this.#now = options.now;
    this.#held = options.held;
    this.#refused = options.refused;
    this.#mayTell = options.mayTell;
    this.#tell = options.tell;
  }

  /**
   * Whether `node` may speak as `name` (of `kind`): it holds the name, or nobody did (it holds it
   * from now on). Otherwise the frame is an impostor's: counted, remembered, and the impostor told
   * (at most once every TELL_IMPOSTOR_EVERY_MS), so its own agent learns why it is not heard.
   */
  owns(name: string, kind: SenderKind, node: string, msgId?: string): boolean {
    const claim = this.#names.claim(name, kind, node);
    if (claim === 'new' && this.#names.changed) this.#held();
    if (claim !== 'taken') return true;
    const key = `${nameKey(name, kind)} ${node}`;
    const now = this.#now();
    let impostor = this.#impostors.get(key);
    const first = impostor === undefined;
    if (impostor) {
      impostor.last = now;
      impostor.frames++;
    } else {
      if (this.#impostors.size >= MAX_IMPOSTORS)
        this.#impostors.delete(this.#impostors.keys().next().value as string);
      impostor = { name, kind, node, first: now, last: now, frames: 1 };
      this.#impostors.set(key, impostor);
    }
    this.#refused(impostor, first);
    const told = this.#told.get(node) ?? 0;
    if (now - told >= TELL_IMPOSTOR_EVERY_MS && this.#mayTell()) {
      if (this.#told.size >= MAX_IMPOSTORS) this.#told.clear();
      this.#told.set(node, now);
      this.#tell(node, msgId);
    }
    return false;
  }

  /** Keys refused for claiming a name another key holds (newest last). */
  impostors(): Impostor[] {
    return [...this.#impostors.values()];
  }

  /** `by` refuses our frames: another key holds our name. True the first time (to log it). */
  nameTaken(by: string): boolean {
    if (this.#takenBy !== undefined) return false;
    this.#takenBy = by;
    return true;
  }

  /** A member that refuses our frames because another key holds our name, if one said so. */
  nameTakenBy(): string | undefined {
    return this.#takenBy;
  }
}
