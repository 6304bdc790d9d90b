// A member's durable state (MemberState: inbox, held/, outbox, log) kept in memory, for the room
// node and delivery tests that need no disk: what a test reads back is what the node stored.
import type { MemberState } from '../../src/client/store/profile-store.js';
import type { Envelope, LogEntry } from '../../src/client/wire/messages.js';

export type MemoryState = MemberState & {
  inbox: Envelope[];
  held: Envelope[];
  log: LogEntry[];
  review: MemberState['review'];
  /** A timer of this many ms before each inbox store ends (none when undefined: the store ends in a microtask). */
  storeMs: number | undefined;
  /** When set, every inbox store waits for it: the test says when the disk write ends. */
  gate?: Promise<void>;
  /** Inbox stores fail (a full disk, injected). */
  failInbox: boolean;
  /** outbox.json writes fail (a full disk, injected). */
  failOutbox: boolean;
};

export function memoryState(
  opts: { log?: LogEntry[]; storeMs?: number; failInbox?: boolean; failOutbox?: boolean } = {},
): MemoryState {
  const state: MemoryState = {
    inbox: [],
    held: [],
    log: opts.log ?? [],
    storeMs: opts.storeMs,
    failInbox: opts.failInbox ?? false,
    failOutbox: opts.failOutbox ?? false,
    outbox: [],
    peers: {},
    names: {},
    addToInbox: async (m) => {
      if (state.storeMs !== undefined) await new Promise((r) => setTimeout(r, state.storeMs));
      await state.gate;
      if (state.failInbox) throw new Error('disk full (injected)');
      state.inbox.push(m);
    },
    removeFromInbox: async (ids) => {
      const drop = new Set(ids);
      state.inbox = state.inbox.filter((m) => !drop.has(m.id));
    },
    addToHeld: async (m) => {
      state.held.push(m);
    },
    removeFromHeld: async (ids) => {
      const drop = new Set(ids);
      state.held = state.held.filter((m) => !drop.has(m.id));
    },
    review: { reviewing: () => false, holds: () => false },
    saveOutbox: async () => {
      if (state.failOutbox) throw new Error('disk full (injected)');
    },
    savePeers: async () => {},
    saveNames: async () => {},
    appendLog: async (e) => {
      state.log.push(e);
    },
    readLogTail: async (n) => state.log.slice(-n),
    recoverInboundIds: async () => new Set(state.log.flatMap((e) => (e.ev === 'in' ? [e.msg.id] : []))),
  };
  return state;
}

/** Inbox stores from now on wait until the returned function is called (the disk write "ends"). */
export function holdStores(state: MemoryState): () => void {
  let release = () => {};
  state.gate = new Promise((resolve) => {
    release = resolve;
  });
  return release;
}
