// When a durable member writes peers.json and names.json (ADR 0062, "answers and writes
// coalesced"): presence lives in memory, and the files are written when something a person would
// see changes (a name, an `about`, a name held for the first time: ADR 0064) at most every 5 s,
// with every heartbeat, and on close. A flood of hellos costs one write, not one a hello.
// Every write goes through the node's one queue of writes, so it never interleaves with another.

import { messageOf } from '../errors.js';
import { type Log, type LogTarget, toLog } from '../log.js';
import type { MemberState } from '../store/profile-store.js';
import type { Clock } from './clock.js';
import type { KnownNames } from './member-names.js';

/** peers.json is written at most this often (and on close); presence lives in memory. */
export const PEERS_SAVE_INTERVAL_MS = 5_000;

export interface PeersSaveOptions {
  /** Where peers.json and names.json are written. */
  state: Pick<MemberState, 'savePeers' | 'saveNames'>;
  /** Who each name belongs to: names.json is written when it changed. */
  names: KnownNames;
  /** The node's one queue of writes. */
  serial: <T>(work: () => Promise<T>) => Promise<T>;
  clock: Pick<Clock, 'after'>;
  log: LogTarget;
}

export class PeersSave {
  #state: Pick<MemberState, 'savePeers' | 'saveNames'>;
  #names: KnownNames;
  #serial: <T>(work: () => Promise<T>) => Promise<T>;
  #clock: Pick<Clock, 'after'>;
  #log: Log;
  /** The save waiting for its turn (at most one at a time). */
  #cancel: (() => void) | undefined;
  /** Something changed since the last timed save. */
  #dirty = false;
  #closed = false;

  constructor(options: PeersSaveOptions) {
    this.#state = options.state;
    this.#names = options.names;
    this.#serial = options.serial;
    this.#clock = options.clock;
    this.#log = toLog(options.log);
  }

  /** Something a person would see changed: written within PEERS_SAVE_INTERVAL_MS. */
  soon(): void {
    this.#dirty = true;
    if (this.#cancel !== undefined || this.#closed) return;
    this.#cancel = this.#clock.after(PEERS_SAVE_INTERVAL_MS, () => {
      this.#cancel = undefined;
      this.#dirty = false;
      void this.#serial(() => this.#write()).catch((err: unknown) => this.#failed(err));
    });
  }

  /** The heartbeat: written now, whether or not anything changed (a failure waits for the next). */
  now(): void {
    void this.#serial(() => this.#write()).catch((err: unknown) => this.#failed(err));
  }

  /** The member closes: what changed and was not written yet is written now, and nothing after. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#cancel?.();
    this.#cancel = undefined;
    if (this.#dirty || this.#names.changed)
      void this.#serial(() => this.#write()).catch((err: unknown) => this.#failed(err));
  }

  #failed(err: unknown): void {
    this.#log(`could not save peers.json: ${messageOf(err)}`);
  }

  async #write(): Promise<void> {
    await this.#state.savePeers();
    if (this.#names.changed) await this.#state.saveNames(this.#names.saved());
  }
}
