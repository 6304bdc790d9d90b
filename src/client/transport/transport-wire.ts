// The messages between a member's process and its transport process (ADR 0057), over Node's
// child-process IPC channel (JSON, one message per send). Frames cross already sealed with the
// room's frame key, as base64; the transport process holds the signal key (it seals offers and
// candidates) but never the frame key.
import type { LinkPath, SignalState } from '../net/health.js';
import type { RoomMeeting } from '../net/meeting.js';
import type { TurnGrant } from '../net/turn-release.js';

/** The room's meeting (meeting.ts) as it crosses the channel: JSON has no bytes, so the key is hex. */
export type WireMeeting = Omit<RoomMeeting, 'signalKey'> & {
  /** The room's signal key, hex. */
  signalKey: string;
};

/** The first message to the transport: what it needs to meet the room. Never in argv or env. */
export type TransportInit = { t: 'init' } & WireMeeting;

export type ToTransport =
  | TransportInit
  | { t: 'send'; peer: string; data: string }
  | { t: 'ping'; n: number }
  /** The signal server is there again (the member's process took the local one over): dial now. */
  | { t: 'redial' }
  | { t: 'close' };

export type FromTransport =
  | { t: 'ready' }
  | { t: 'pong'; n: number }
  | { t: 'link-open'; peer: string; path?: LinkPath }
  | { t: 'link-close'; peer: string }
  | { t: 'link-message'; peer: string; data: string }
  | { t: 'peer-left'; peer: string }
  /** Links whose path (direct or relay) is now different from what was last said. */
  | { t: 'paths'; paths: Record<string, LinkPath | null> }
  | { t: 'signal-state'; state: SignalState }
  | { t: 'log'; line: string }
  /**
   * A TURN allocation made, with what the member's process needs to give it back if this process
   * is killed first (ADR 0058); and one given back or let go.
   */
  | { t: 'turn-grant'; grant: TurnGrant }
  | { t: 'turn-gone'; relayed: string }
  /** The transport cannot run (e.g. a bad ICE setting); it exits after this. */
  | { t: 'fatal'; message: string };
