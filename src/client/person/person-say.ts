// A person's `papo say`, from the room's side: wait for the target (or anyone) to be online, send,
// wait for the acks, and say who has it. The same steps whoever runs them: the CLI's own ephemeral
// member (no papo mcp runs), or the profile's running papo mcp the say was handed to (ADR 0102).
// What it returns is data; the CLI turns it into the texts a person reads (src/cli/i18n.ts).
import { randomBytes } from 'node:crypto';
import type { RoomMember, RoomProbe, SendResult } from '../member-api.js';
import type { SignalState } from '../net/health.js';
import { MAX_BODY_BYTES } from '../wire/limits.js';
import { sameName } from '../wire/names.js';

export { MAX_BODY_BYTES };

/** How long a say waits for someone (with `to`, the target) to be online. */
export const CONNECT_WAIT_MS = 30_000;
/** How long a say waits for the first ack. */
export const ACK_WAIT_MS = 15_000;
/**
 * After the first ack, the longest wait for the others online to confirm a person's say too (ADR
 * 0102). Not the agent's send's wait (room-node.ts, SEND_MORE_ACKS_MS, longer): a say is meant to
 * answer within half a second, and ends sooner once every member online has confirmed
 * (docs/performance.md, "papo say").
 */
const SAY_MORE_ACKS_MS = 400;
/** Without `to`: how long to wait for the hellos of the others on the topic, once one is online. */
const TOPIC_HELLO_WAIT_MS = 3_000;
/**
 * How long a say waits for a member it saw on the room's topic to come back after it left: a
 * member's transport that froze is ended after 5 s and started again at once (ADR 0057), and the
 * new one is back on the topic within a second or two, a few on a loaded machine. Until then an
 * empty topic is not "nobody there".
 */
const PEER_BACK_WAIT_MS = 10_000;
/** The longest a say can take, every wait above in a row (the CLI waits that long for a handed one). */
export const SAY_LONGEST_MS = CONNECT_WAIT_MS + TOPIC_HELLO_WAIT_MS + ACK_WAIT_MS + SAY_MORE_ACKS_MS;

/**
 * One say. `id` and `ts` are chosen by the CLI before anything is sent: signed by the same key
 * (Ed25519 signatures are deterministic), the same say is the same bytes whoever sends it, so a
 * say sent again after a papo mcp died in the middle is a copy the receivers drop by id (ADR 0102).
 */
export interface PersonSay {
  id: string;
  ts: number;
  body: string;
  to?: string;
  replyTo?: string;
}

/**
 * A new say, its id and time chosen before anything is sent (see PersonSay). The id is a message
 * id as frames.ts's newMessageId makes them (10 hex digits), made here without loading the wire's
 * crypto, which a say handed to the running papo mcp never needs.
 */
export function newPersonSay(body: string, to?: string, replyTo?: string): PersonSay {
  return {
    id: randomBytes(5).toString('hex'),
    ts: Date.now(),
    body,
    ...(to !== undefined ? { to } : {}),
    ...(replyTo !== undefined ? { replyTo } : {}),
  };
}

/** How a say ended (the CLI's texts and exit codes: delivered is 0, every other one 1). */
export type SayOutcome =
  | { t: 'delivered'; id: string; ackedBy: string[]; later: string[] }
  | { t: 'no_known_members' }
  | { t: 'nobody_online'; to?: string }
  | { t: 'inbox_full'; by: string; id: string }
  | { t: 'not_acknowledged'; id: string; seconds: number };

/** What a say runs on: the member, its network probe, and how it sends a say (acks to `acked`). */
export interface SayRoom {
  member: RoomMember;
  probe: RoomProbe;
  /**
   * The running agent a say was handed to: its own name, online and known to it, as its own
   * agent is to a say's ephemeral member (it has the say on its disk, and says so).
   */
  self?: string;
}
export type SendSay = (
  say: PersonSay,
  ackTimeoutMs: number,
  acked: (by: string) => void,
) => Promise<SendResult>;

/** Resolves true as soon as `done()` holds (checked on every room event), false after `ms`. */
export function waitFor(room: SayRoom, ms: number, done: () => boolean): Promise<boolean> {
  if (done()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const check = () => {
      if (!done()) return;
      finish(true);
    };
    const tick = setInterval(check, 100);
    const timer = setTimeout(() => finish(false), ms);
    // 'heard': a hello from a member already online by its link (known from peers.json) changes
    // liveMembers() with no 'online' event; the tick alone would find it up to 100 ms later.
    const events = ['online', 'message', 'delivered', 'heard'] as const;
    for (const e of events) room.member.on(e, check);
    const stop = room.probe.onSignalState(check);
    function finish(value: boolean): void {
      clearInterval(tick);
      clearTimeout(timer);
      for (const e of events) room.member.off(e, check);
      stop();
      resolve(value);
    }
  });
}

/** True once the signal server answered our join and nobody else is on the topic. */
export function topicIsEmpty(room: SayRoom): boolean {
  return emptyTopic(room.probe.signalState());
}

/** The same, of a signal state as it was read (a running papo mcp's answer carries one). */
export function emptyTopic(signal: Pick<SignalState, 'joined' | 'peers'>): boolean {
  return signal.joined && signal.peers.length === 0;
}

/** True once joined and everyone on the topic has said hello (the rule of every wait for the room). */
export function topicHeard(room: SayRoom): boolean {
  const signal = room.probe.signalState();
  return signal.joined && room.member.liveMembers().length >= signal.peers.length;
}

/**
 * True once the topic is empty and stays so: at once when nobody was on it, or PEER_BACK_WAIT_MS
 * after the last one seen on it left (its transport may be starting again: CI saw a say end with
 * "I don't know anyone" while its one member's frozen transport was being replaced).
 */
function topicLeftEmpty(room: SayRoom): () => boolean {
  let seen = false;
  let emptySince: number | undefined;
  return () => {
    if (!topicIsEmpty(room)) {
      if (room.probe.signalState().peers.length > 0) seen = true;
      emptySince = undefined;
      return false;
    }
    if (!seen) return true;
    emptySince ??= Date.now();
    return Date.now() - emptySince >= PEER_BACK_WAIT_MS;
  };
}

/**
 * Says `say` in the room as the person: waits for the target (or anyone) to be online, sends
 * through `send`, waits for the acks and returns who has it, or why nobody does.
 */
export async function sayInRoom(room: SayRoom, say: PersonSay, send: SendSay): Promise<SayOutcome> {
  const { member } = room;
  const target = say.to;
  const isTarget = (name: string) => target === undefined || sameName(name, target);
  const self = room.self === undefined ? [] : [room.self];
  const online = () => [...self, ...member.onlineNames()];
  const knowsSomeone = () => self.length > 0 || member.members().length > 0;
  const nobodyThere = topicLeftEmpty(room);
  const ready = await waitFor(
    room,
    CONNECT_WAIT_MS,
    () => online().some(isTarget) || (nobodyThere() && !knowsSomeone()),
  );
  // Without `to`, the others on the room's topic are online too: give their hellos a moment
  // (a relayed link forms in a second or two), so they get it now and are named as having it,
  // as papo status waits for everyone on the topic.
  if (target === undefined && member.onlineNames().length > 0) {
    await waitFor(room, TOPIC_HELLO_WAIT_MS, () => !room.probe.signalState().joined || topicHeard(room));
  }
  if (!online().some(isTarget)) {
    if (!knowsSomeone() && (topicIsEmpty(room) || !ready)) return { t: 'no_known_members' };
    return { t: 'nobody_online', ...(target ? { to: target } : {}) };
  }
  const ackedBy: string[] = [];
  const has = (name: string) => ackedBy.some((a) => sameName(a, name));
  let heard: (() => void) | undefined;
  const acked = (by: string) => {
    if (has(by)) return;
    ackedBy.push(by);
    heard?.();
  };
  const result = await send(say, ACK_WAIT_MS, acked);
  if (result.ackedBy === null && result.refusedBy !== null)
    return { t: 'inbox_full', by: result.refusedBy, id: result.id };
  if (result.ackedBy === null) return { t: 'not_acknowledged', id: result.id, seconds: ACK_WAIT_MS / 1000 };
  acked(result.ackedBy);
  // Others online may confirm too: wait a moment for them, not for anyone already heard.
  // Checked on each ack as it comes, not on a tick: most often they are all in within milliseconds.
  const expected = online().filter(isTarget);
  if (!expected.every(has))
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, SAY_MORE_ACKS_MS);
      function done(): void {
        clearTimeout(timer);
        heard = undefined;
        resolve();
      }
      heard = () => expected.every(has) && done();
    });
  // Members known but offline get it from those who stored it (catch-up, ADR 0063).
  const later =
    target !== undefined
      ? []
      : [
          ...new Set(
            member
              .members()
              .filter((x) => !x.online && !ackedBy.some((a) => sameName(a, x.name)))
              .map((x) => x.name),
          ),
        ];
  return { t: 'delivered', id: result.id, ackedBy: [...ackedBy], later };
}
