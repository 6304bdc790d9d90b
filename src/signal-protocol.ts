// Signal protocol v1: the wire contract between the room member (src/client) and the signal
// server (src/signal-server). Both sides import these types and nothing else from each other.
// See docs/protocol.md ("Signal protocol v1").
import { sha256 } from '@noble/hashes/sha2.js';

/** Path of the WebSocket endpoint on a signal server. */
export const SIGNAL_PATH = '/v1/ws';
/** Protocol version carried in the welcome message. */
export const SIGNAL_VERSION = 1;
/** Largest WebSocket text message either side accepts, in bytes. */
export const SIGNAL_MAX_MESSAGE_BYTES = 64 * 1024;
/** A topic is 32 bytes in lower-case hex. */
export const TOPIC_PATTERN = /^[0-9a-f]{64}$/;
/** A peer (node id) is an Ed25519 public key, 32 bytes in lower-case hex. */
export const PEER_PATTERN = /^[0-9a-f]{64}$/;

/** An RTCIceServer as the W3C defines it (urls may be one string or a list). */
export interface IceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

export type SignalErrorCode =
  | 'bad_request'
  | 'too_large'
  | 'rate_limited'
  | 'topic_limit'
  | 'room_full'
  | 'unknown_peer'
  | 'unauthorized';

/**
 * Why a welcome lacks something a member might expect; a client ignores notes it does not know.
 * `turn_limited`: the server hands out TURN credentials but not to this connection now (no token
 * is required and this address has had its share of TURN identities lately; STUN only).
 */
export type WelcomeNote = 'turn_limited';

// server -> client
export interface WelcomeMessage {
  t: 'welcome';
  v: number;
  iceServers: IceServer[];
  /** Present only when not empty. */
  notes?: WelcomeNote[];
}
export interface PeersMessage {
  t: 'peers';
  topic: string;
  peers: string[];
}
export interface JoinedMessage {
  t: 'joined';
  topic: string;
  peer: string;
}
export interface LeftMessage {
  t: 'left';
  topic: string;
  peer: string;
}
export interface SignalFromMessage {
  t: 'signal';
  topic: string;
  from: string;
  /** Base64 of a blob sealed with the room's signal key; the server never opens it. */
  data: string;
}
export interface ErrorMessage {
  t: 'error';
  code: SignalErrorCode;
  message: string;
}
export type ServerMessage =
  | WelcomeMessage
  | PeersMessage
  | JoinedMessage
  | LeftMessage
  | SignalFromMessage
  | ErrorMessage;

// client -> server
export interface JoinMessage {
  t: 'join';
  topic: string;
  peer: string;
}
export interface SignalToMessage {
  t: 'signal';
  topic: string;
  to: string;
  data: string;
}
export interface LeaveMessage {
  t: 'leave';
  topic: string;
}
export type ClientMessage = JoinMessage | SignalToMessage | LeaveMessage;

/**
 * The signal address a member is given carries, in its URL's fragment (which no HTTP request
 * sends), what it needs to reach a server set up by `papo signal --public`:
 * `wss://host:port/#pin=sha256/<pin>&token=<token>` (ADR 0089). The pin is this function of the
 * certificate's public key (its SubjectPublicKeyInfo, DER): base64url without padding of its
 * SHA-256, behind `sha256/`. A pin of the key, not of the certificate, holds across a renewal
 * that keeps the key.
 */
export const PIN_PREFIX = 'sha256/';
export function certificatePin(spkiDer: Uint8Array): string {
  return PIN_PREFIX + Buffer.from(sha256(spkiDer)).toString('base64url');
}
