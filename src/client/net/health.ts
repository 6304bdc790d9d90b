// The network's health as the member reports it (docs/transport.md, "Network health"): the link
// paths, the signal server connection and the transport process. Plain types, apart from the code
// that produces them, so that the room, the transport and the MCP server read them without
// importing the network (node-datachannel's src/lib/types.ts is the model).
import type { SignalDropReason } from './signal-seal.js';

export type LinkPath = 'direct' | 'relay';

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
