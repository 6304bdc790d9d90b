// The network's health as the member reports it (docs/transport.md, "Network health"): the link
// paths, the signal server connection and the transport process. Plain types, apart from the code
// that produces them, so that the room, the transport and the MCP server read them without
// importing the network (node-datachannel's src/lib/types.ts is the model).
import type { SignalDropReason } from './signal-seal.js';

export type LinkPath = 'direct' | 'relay';

/**
 * What the links to neighbours tell whoever drives them: the mesh emits these, and so do the
 * transports that carry it to the room node (room/links.ts, NodeTransport). Peers are node ids.
 */
export interface TransportEvents {
  'link-open': [peerId: string];
  'link-message': [peerId: string, data: Uint8Array];
  /** Only for a link that had emitted link-open. */
  'link-close': [peerId: string];
  /** The signal server says the peer left the room's topic (it closed, or lost its connection): its goodbye. */
  'peer-left': [peerId: string];
}

/** What the signal client dropped and why: a sealed blob refused, or a server message it could not read. */
export type SignalClientDropReason = SignalDropReason | 'bad_server_message';

/**
 * Why the member is not on the signal server's topic, as a person needs to know it: the server
 * cannot be reached, it is not a papo signal server, it refused (token, rate, room size, topics),
 * or its certificate's key is not the one the room's address pins (`pin_mismatch`, ADR 0089: the
 * key changed, or another machine answers there; nothing was sent to it).
 */
export type SignalProblemCode =
  | 'unreachable'
  | 'pin_mismatch'
  | 'not_papo'
  | 'unauthorized'
  | 'rate_limited'
  | 'room_full'
  | 'topic_limit';

export interface SignalProblem {
  code: SignalProblemCode;
  /** What the server or the socket said (never a secret: no token is in a URL or a reason). */
  detail: string;
  /** When this problem was first seen (ms since the epoch); kept while it repeats. */
  since: number;
}

/** The member's link to the signal server, as last known. */
export interface SignalState {
  /** The server answered our join with the peer list, and that connection is up. */
  joined: boolean;
  /** Some connection of this member was ever joined. */
  everJoined: boolean;
  /** Other peers on the topic (empty while not joined). */
  peers: string[];
  problem?: SignalProblem;
  /** Sealed blobs and server messages dropped, by reason (diagnostics and tests). */
  dropped: Record<SignalClientDropReason, number> | Record<string, never>;
  /** Peers on the topic with no open link to this member, and since when (ms since the epoch). */
  unlinked?: UnlinkedPeer[];
  /** What this member's links may use to cross NATs (the resolved ICE settings). */
  ice?: IceFacts;
}

export interface UnlinkedPeer {
  peer: string;
  /** When it was first seen on the topic without a link (ms since the epoch). */
  since: number;
}

/** The ICE settings as far as they tell why no link forms (docs/transport.md, "Network health"). */
export interface IceFacts {
  /** PAPO_ICE_POLICY=relay: only relayed (TURN) paths may be used. */
  relayOnly: boolean;
  /** A TURN server with credentials is configured (from PAPO_ICE_SERVERS or the welcome). */
  turn: boolean;
  /** Where the servers came from: PAPO_ICE_SERVERS, the signal server's welcome, or the default STUN. */
  source: 'env' | 'welcome' | 'default';
  /** The signal server has TURN but gave this connection none (its `turn_limited` note). */
  turnLimited: boolean;
}

/**
 * A peer on the topic with no link for this long is "reachable through the signal server, but no
 * path works": across NATs a link forms in 0.9-2.4 s (docs/performance.md), and ICE gives up on its
 * candidate pairs within about 10 s.
 */
export const NO_PATH_AFTER_MS = 12_000;

/** Why no path works, as far as this member can tell from its ICE settings. */
export type NoPathReason = 'relay_without_turn' | 'turn_limited' | 'no_turn' | 'turn_failed';

export function noPathReason(ice: IceFacts): NoPathReason {
  if (ice.turn) return 'turn_failed';
  if (ice.relayOnly) return 'relay_without_turn';
  return ice.turnLimited ? 'turn_limited' : 'no_turn';
}

/** Peers on the signal server that no path reaches, as the texts word them. */
export interface NoPath {
  /** The members among them this member knows, by name. */
  names: string[];
  /** How many of them it has not met yet (no name known). */
  others: number;
  reason: NoPathReason;
  source: IceFacts['source'];
}

/**
 * The peers on the topic that have had no link for longer than NO_PATH_AFTER_MS and are not
 * online in the room some other way (through another member); undefined when there are none.
 */
export function noPathSummary(
  state: Pick<SignalState, 'joined' | 'unlinked' | 'ice'> & { peers?: readonly string[] },
  members: readonly { node: string; name: string; online: boolean }[],
  now = Date.now(),
): NoPath | undefined {
  if (!state.joined || state.ice === undefined) return undefined;
  const onTopic = new Set(state.peers ?? []);
  const byNode = new Map(members.map((m) => [m.node, m]));
  const names: string[] = [];
  let others = 0;
  for (const u of state.unlinked ?? []) {
    if (!onTopic.has(u.peer) || now - u.since < NO_PATH_AFTER_MS) continue;
    const m = byNode.get(u.peer);
    if (m === undefined) others++;
    else if (!m.online && !names.includes(m.name)) names.push(m.name);
  }
  if (names.length === 0 && others === 0) return undefined;
  return { names, others, reason: noPathReason(state.ice), source: state.ice.source };
}

/**
 * The process that holds WebRTC (ADR 0057): 'running' answers its heartbeat; 'unresponsive' has
 * missed it (frozen or stopped) and is about to be ended; 'restarting' waits to be started again.
 */
export type TransportState = 'starting' | 'running' | 'unresponsive' | 'restarting' | 'closed';

export interface TransportHealth {
  state: TransportState;
  /** How many times the transport was started again. */
  restarts: number;
  /** The latest restart: when (ms since the epoch) and why. */
  lastRestart?: { at: number; why: string };
  /** While unresponsive: how long it has been silent, in ms. */
  silentMs?: number;
  /** While restarting: how long until the next start, in ms. */
  nextStartInMs?: number;
  /** Several starts in a row ended before it ran for long: a crash loop (it keeps trying). */
  failing: boolean;
  /** Seconds of silence after which the transport is ended and started again. */
  stallSeconds: number;
}

/** What `status` and `send` tell about the network (docs/transport.md "Network health"). */
export interface NetworkHealth {
  signalUrl: string;
  signal: SignalState;
  transport: TransportHealth;
}
