// Who a name in the room belongs to (ADR 0064): the first key the room showed this member with it,
// as SSH's known_hosts keeps the first key of a host. A name is held per kind, because a person and
// their agent share a name ("voce (agent)" and "voce (human)") and sign with different keys. A
// frame that claims a held name with another key is an impostor's: refused, never handed to an
// agent, and shown to the person. This module is the one home of that rule: KnownNames holds who
// each name belongs to; NameGuard judges each claim, remembers the impostors and tells them, and
// remembers whether another member told us our own name is taken.
//
// names.json: { "voce (agent)": { "node": "<node id>", "spoke": true }, "voce (human)": { "node": ... } }
// (names lower-cased; a file written before ADR 0092 holds the node id alone, read as not spoke).
// Bounded (ADR 0062), and no flood takes a name a key holds (ADR 0092): names.json holds at most
// MAX_KNOWN_NAMES names, every one of them on disk (a name held in memory only would be anyone's
// after a restart). A name under which a message was kept here ("spoke") is never given up, nor is
// the name of a key the caller spares (one presence knows); past the cap, a new name takes the
// place of the one shown least recently among the others, and when there is none, the frame that
// claims it is refused ('full'). Past MAX_IMPOSTORS the impostor seen first is forgotten.
import type { Impostor } from '../member-api.js';
import type { NameRecord } from '../store/profile-store.js';
import type { SenderKind } from '../wire/messages.js';

export const MAX_KNOWN_NAMES = 1024;

/** Impostor keys remembered (for status and the log). */
export const MAX_IMPOSTORS = 64;
/** How often an impostor key is told its name is taken (once a 30 s, not once a frame). */
export const TELL_IMPOSTOR_EVERY_MS = 30_000;

/**
 * 'held': the key holds the name already; 'new': nobody did, and it holds it from now on; 'taken':
 * another key holds it; 'full': nobody did, but names.json has no place a new name may take.
 */
export type NameClaim = 'held' | 'new' | 'taken' | 'full';

/** Keys whose names are not given up for a newcomer's (the members presence knows). */
export type Spared = (node: string) => boolean;

const NONE_SPARED: Spared = () => false;

interface Holder {
  node: string;
  /** A message under this name was kept here: the name is never given up for another's. */
  spoke: boolean;
}

export class KnownNames {
  /** By name key, the one shown least recently first. */
  #held = new Map<string, Holder>();
  /** The key of the name shown last (moving it to the end again would change nothing). */
  #newest: string | undefined;
  #changed = false;

  constructor(saved: Record<string, unknown> = {}) {
    for (const [key, entry] of Object.entries(saved)) {
      if (this.#held.size >= MAX_KNOWN_NAMES) break;
      const holder = holderOf(entry);
      if (holder) this.#held.set(key, holder);
      if (holder) this.#newest = key;
    }
  }

  /** Whose `name` (of this kind) is: its node id, or undefined when the room never showed it. */
  holder(name: string, kind: SenderKind): string | undefined {
    return this.#held.get(nameKey(name, kind))?.node;
  }

  /** What `claim` would answer, changing nothing. */
  judge(name: string, kind: SenderKind, node: string, spared: Spared = NONE_SPARED): NameClaim {
    const holder = this.holder(name, kind);
    if (holder === node) return 'held';
    if (holder !== undefined) return 'taken';
    return this.#held.size < MAX_KNOWN_NAMES || this.#replaceable(spared) !== undefined ? 'new' : 'full';
  }

  /**
   * `node` claims `name` (NameClaim). A name held is shown again (the last to be replaced); a new
   * one, past the cap, takes the place of the name shown least recently that never spoke and whose
   * key is not `spared`.
   */
  claim(name: string, kind: SenderKind, node: string, spared: Spared = NONE_SPARED): NameClaim {
    const key = nameKey(name, kind);
    const held = this.#held.get(key);
    if (held !== undefined && held.node !== node) return 'taken';
    if (held !== undefined) {
      // Written with the next save, so the order survives a restart.
      if (this.#newest !== key) this.#show(key, held);
      return 'held';
    }
    if (this.#held.size >= MAX_KNOWN_NAMES) {
      const replaced = this.#replaceable(spared);
      if (replaced === undefined) return 'full';
      this.#held.delete(replaced);
    }
    this.#show(key, { node, spoke: false });
    return 'new';
  }

  /**
   * A message under `name`, from the key that holds it, is being kept here: the name is never
   * given up for another's. True when that is new (so `unpin` can undo it if the message was not kept).
   */
  pin(name: string, kind: SenderKind, node: string): boolean {
    const held = this.#held.get(nameKey(name, kind));
    if (held === undefined || held.node !== node || held.spoke) return false;
    held.spoke = true;
    this.#changed = true;
    return true;
  }

  /** A name of this profile's own (its agent's, its person's): held by its key, never given up. */
  own(name: string, kind: SenderKind, node: string): void {
    this.claim(name, kind, node);
    this.pin(name, kind, node);
  }

  /** Undoes a `pin` whose message could not be kept. */
  unpin(name: string, kind: SenderKind, node: string): void {
    const held = this.#held.get(nameKey(name, kind));
    if (held === undefined || held.node !== node || !held.spoke) return;
    held.spoke = false;
    this.#changed = true;
  }

  /** Lets `name` go (a deliberate step: `papo forget`), so the next key that claims it holds it. */
  forget(name: string): boolean {
    let gone = false;
    for (const kind of ['agent', 'human'] as const) gone = this.#held.delete(nameKey(name, kind)) || gone;
    if (gone) this.#changed = true;
    return gone;
  }

  /** Whether the saved names changed since the last `saved()`. */
  get changed(): boolean {
    return this.#changed;
  }

  /** What names.json holds; clears `changed`. */
  saved(): Record<string, NameRecord> {
    this.#changed = false;
    const saved: Record<string, NameRecord> = {};
    for (const [key, { node, spoke }] of this.#held) saved[key] = spoke ? { node, spoke: true } : { node };
    return saved;
  }

  /** `key` held by `holder`, shown last. */
  #show(key: string, holder: Holder): void {
    this.#held.delete(key);
    this.#held.set(key, holder);
    this.#newest = key;
    this.#changed = true;
  }

  /** The name a new one may replace: shown least recently, never spoke, its key not spared. */
  #replaceable(spared: Spared): string | undefined {
    for (const [key, held] of this.#held) if (!held.spoke && !spared(held.node)) return key;
    return undefined;
  }
}

/** An entry of names.json: a record, or (written before ADR 0092) the node id alone; else none. */
function holderOf(entry: unknown): Holder | undefined {
  if (typeof entry === 'string') return { node: entry, spoke: false };
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { node, spoke } = entry as { node?: unknown; spoke?: unknown };
  return typeof node === 'string' ? { node, spoke: spoke === true } : undefined;
}

export function nameKey(name: string, kind: SenderKind): string {
  return `${name.toLowerCase()} (${kind})`;
}

export interface NameGuardOptions {
  now: () => number;
  /** names.json changed (a name held for the first time, or one that spoke): it is written soon. */
  held: () => void;
  /** Keys whose names are not given up for a newcomer's (the members presence knows). */
  spared: Spared;
  /**
   * A frame was refused as an impostor's; `first` for the first frame of that key under that name
   * (logged once, written to the log).
   */
  refused: (impostor: Impostor, first: boolean) => void;
  /**
   * A frame was refused because it claims a new name and names.json has no place for one (every
   * name in it spoke or is a known member's); `first` for the first such frame (logged once).
   */
  full: (name: string, kind: SenderKind, node: string, first: boolean) => void;
  /** Whether impostors are told (a durable member that is not closed). */
  mayTell: () => boolean;
  /** Tells the key `node` that its name is taken (a `refused` frame, `why: "name_taken"`). */
  tell: (node: string, msgId: string | undefined) => void;
}

/** Judges who may speak as whom, and keeps what the person is shown about it (ADR 0064, ADR 0092). */
export class NameGuard {
  #names: KnownNames;
  #now: () => number;
  #held: () => void;
  #spared: Spared;
  #refused: (impostor: Impostor, first: boolean) => void;
  #full: (name: string, kind: SenderKind, node: string, first: boolean) => void;
  #mayTell: () => boolean;
  #tell: (node: string, msgId: string | undefined) => void;
  /** Keys refused for claiming a name another key holds, by `name (kind) node`. */
  #impostors = new Map<string, Impostor>();
  /** When we last told each impostor key its name is taken. */
  #told = new Map<string, number>();
  /** A frame was refused for want of a place for its new name (logged the first time only). */
  #wasFull = false;
  /** Another key holds our name: a member said so, and the others refuse what we send. */
  #takenBy: string | undefined;

  constructor(names: KnownNames, options: NameGuardOptions) {
    this.#names = names;
    this.#now = options.now;
    this.#held = options.held;
    this.#spared = options.spared;
    this.#refused = options.refused;
    this.#full = options.full;
    this.#mayTell = options.mayTell;
    this.#tell = options.tell;
  }

  /**
   * Whether `node` may speak as `name` (of `kind`): it holds the name, or nobody did (it holds it
   * from now on). Otherwise the frame is refused: an impostor's (counted, remembered, and the
   * impostor told at most once every TELL_IMPOSTOR_EVERY_MS, so its own agent learns why it is not
   * heard), or one whose new name has no place in names.json.
   */
  owns(name: string, kind: SenderKind, node: string, msgId?: string): boolean {
    const claim = this.#names.claim(name, kind, node, this.#spared);
    if (claim === 'new') this.#held();
    return this.#allowed(claim, name, kind, node, msgId);
  }

  /**
   * What `owns` would answer, refusing an impostor or a name with no place the same way, but
   * holding nothing: a hello holds its name only once presence lets it in (room-node.ts).
   */
  admits(name: string, kind: SenderKind, node: string): boolean {
    return this.#allowed(this.#names.judge(name, kind, node, this.#spared), name, kind, node, undefined);
  }

  /** `node` holds `name` from now on if nobody did (an agent names its person's key): never refused. */
  hold(name: string, kind: SenderKind, node: string): void {
    if (this.#names.claim(name, kind, node, this.#spared) === 'new') this.#held();
  }

  /**
   * A message under `name`, from the key that holds it, is being kept here (`kept`: true once it is
   * on disk): the name is never given up for another's, whatever a flood does. If it could not be
   * kept, the name is as it was.
   */
  spoke(name: string, kind: SenderKind, node: string, kept: Promise<boolean>): void {
    if (!this.#names.pin(name, kind, node)) return;
    this.#held();
    void kept.then((ok) => {
      if (ok) return;
      this.#names.unpin(name, kind, node);
      this.#held();
    });
  }

  #allowed(
    claim: NameClaim,
    name: string,
    kind: SenderKind,
    node: string,
    msgId: string | undefined,
  ): boolean {
    if (claim === 'held' || claim === 'new') return true;
    if (claim === 'full') {
      this.#full(name, kind, node, !this.#wasFull);
      this.#wasFull = true;
      return false;
    }
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
