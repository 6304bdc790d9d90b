// Frames between members (docs/protocol.md, "Frames"): JSON objects with `t`, optional
// fields omitted when empty, sealed with the room's frame key (aad "papo/v1"). Every frame is
// also signed by its sender's Ed25519 key (`sig`, last; ADR 0064): frame-codec.ts signs and checks.
// Decoding is total: any input either becomes a valid frame or a PapoError('invalid_frame');
// it never throws anything else, because these bytes come from the network.
import { PapoError } from '../errors.js';
import { normaliseAbout } from './about.js';
import { isFrameTime } from './frame-time.js';
import { MAX_BODY_BYTES, MAX_SEALED_FRAME_BYTES } from './limits.js';
import type { Envelope, SenderKind } from './messages.js';
import { isMemberName, MESSAGE_ID_PATTERN, NODE_ID_PATTERN } from './names.js';
import { FRAME_AAD, open, seal } from './room-crypto.js';

/** Longest `about` text a hello carries (src/client/wire/about.ts). */
export { MAX_ABOUT_CHARS } from './about.js';
export { MAX_BODY_BYTES, MAX_SEALED_FRAME_BYTES };

const MSG_ID = MESSAGE_ID_PATTERN;
const NODE_ID = NODE_ID_PATTERN;

/** Hex of an Ed25519 signature (64 bytes) by the frame's `node` (frame-codec.ts). */
export const SIGNATURE_PATTERN = /^[0-9a-f]{128}$/;

export interface HelloFrame {
  t: 'hello';
  node: string;
  name: string;
  about?: string;
  kind: SenderKind;
  ephemeral: boolean;
  /**
   * An agent's person: the node id of the key its person's `papo say` signs with, so the room
   * knows "name (human)" belongs to it before the person ever speaks (ADR 0064).
   */
  person?: string;
  /**
   * Its person reviews incoming messages before the agent sees them (ADR 0081): senders say so.
   * Present only when true; a member that does not know the field ignores it.
   */
  review?: true;
  /**
   * When its sender signed it (Unix ms, its clock), later than any time it signed before: a hello
   * sealed again later is refused by this, not by the seal's nonce (ADR 0093).
   */
  ts: number;
  sig?: string;
}

export interface MsgFrame extends Envelope {
  t: 'msg';
}

export interface AckFrame {
  t: 'ack';
  id: string;
  by: string;
  /** The acking member's node id: the key that signs the ack. */
  node: string;
  sig?: string;
}

/**
 * What a member refused, and why: `inbox_full`, a message it did not store and will not until its
 * agent reads (ADR 0062; the sender keeps it queued); `name_taken`, frames from `for`, a key that
 * claims a name another key holds (ADR 0064; `id` is the message refused, if it was one).
 */
export interface RefusedFrame {
  t: 'refused';
  id?: string;
  /** With `name_taken`: the node id of the key that claimed the name. */
  for?: string;
  by: string;
  /** The refusing member's node id: the key that signs the refusal. */
  node: string;
  why: RefusalReason;
  sig?: string;
}

export type RefusalReason = 'inbox_full' | 'name_taken';
const REFUSAL_REASONS: readonly string[] = ['inbox_full', 'name_taken'] satisfies RefusalReason[];

/**
 * Catch-up (ADR 0063), never forwarded: `have` lists the ids a member holds from `since` on (at
 * most MAX_HAVE_IDS); `missed` is a message it lacks, sent by a member that stored it, with a
 * msg's fields.
 */
export interface HaveFrame {
  t: 'have';
  /** The member whose digest this is: the key that signs it (ADR 0064). */
  node: string;
  since: number;
  ids: string[];
  sig?: string;
}

export interface MissedFrame extends Envelope {
  t: 'missed';
}

/** Most ids a `have` digest carries (src/client/room/catch-up.ts). */
export const MAX_HAVE_IDS = 200;

export type Frame = HelloFrame | MsgFrame | AckFrame | RefusedFrame | HaveFrame | MissedFrame;

/** A fresh message id: 5 random bytes, 10 hex characters. */
export function newMessageId(): string {
  // Web Crypto's generator (a global in Node): frames import no `node:` module (STYLE.md).
  return Buffer.from(crypto.getRandomValues(new Uint8Array(5))).toString('hex');
}

export function isMessageId(value: unknown): value is string {
  return typeof value === 'string' && MSG_ID.test(value);
}

export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * JSON of a frame, fields in the order of docs/protocol.md ("Frames"), optional ones only when
 * present, and `sig` last when the frame has one: the signed bytes are this JSON without its `sig`
 * (frame-codec.ts).
 */
export function encodeFrame(frame: Frame): string {
  const sig = frame.sig === undefined ? {} : { sig: frame.sig };
  switch (frame.t) {
    case 'hello':
      return JSON.stringify({
        t: 'hello',
        node: frame.node,
        name: frame.name,
        ...(frame.about ? { about: frame.about } : {}),
        kind: frame.kind,
        ephemeral: frame.ephemeral,
        ts: frame.ts,
        ...(frame.person ? { person: frame.person } : {}),
        ...(frame.review ? { review: true } : {}),
        ...sig,
      });
    case 'msg':
      return JSON.stringify({ ...msgToJson(frame), ...sig });
    case 'missed':
      return JSON.stringify({ ...msgToJson(frame), t: frame.t, ...sig });
    case 'have':
      return JSON.stringify({ t: 'have', node: frame.node, since: frame.since, ids: frame.ids, ...sig });
    case 'ack':
      return JSON.stringify({ t: 'ack', id: frame.id, by: frame.by, node: frame.node, ...sig });
    case 'refused':
      return JSON.stringify({
        t: 'refused',
        ...(frame.id ? { id: frame.id } : {}),
        ...(frame.for ? { for: frame.for } : {}),
        by: frame.by,
        node: frame.node,
        why: frame.why,
        ...sig,
      });
  }
}

function msgToJson(m: Envelope): Record<string, unknown> {
  return {
    t: 'msg',
    id: m.id,
    from: m.from,
    node: m.node,
    kind: m.kind,
    ...(m.to ? { to: m.to } : {}),
    ...(m.reply_to ? { reply_to: m.reply_to } : {}),
    ts: m.ts,
    body: m.body,
  };
}

/** Envelope of a msg or missed frame (drops `t`). */
export function envelopeOf(frame: MsgFrame | MissedFrame): Envelope {
  const { t: _t, ...envelope } = frame;
  return envelope;
}

/**
 * An envelope read back from a profile file (inbox/, held/, outbox.json): the checks of a msg
 * frame (ids, names, kind, time, body), unknown fields dropped; null when it fails them. papo wrote
 * it from a frame that passed them, so a failure means the file was damaged or edited.
 */
export function checkedEnvelope(value: unknown): Envelope | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  let frame: Frame;
  try {
    frame = decodeFrame(JSON.stringify({ ...value, t: 'msg' }));
  } catch {
    return null;
  }
  return frame.t === 'msg' ? envelopeOf(frame) : null;
}

export function msgFrame(envelope: Envelope): MsgFrame {
  return { t: 'msg', ...envelope };
}

function invalid(reason: string): PapoError {
  return new PapoError('invalid_frame', `invalid frame: ${reason}`);
}

type Json = Record<string, unknown>;

function str(o: Json, key: string, test: (v: string) => boolean, what: string): string {
  const v = o[key];
  if (typeof v !== 'string' || !test(v)) throw invalid(`${key} is not ${what}`);
  return v;
}

function optStr(o: Json, key: string, test: (v: string) => boolean, what: string): string | undefined {
  if (o[key] === undefined) return undefined;
  const v = str(o, key, test, what);
  return v === '' ? undefined : v;
}

/**
 * A time in Unix milliseconds (frame-time.ts): a safe integer, not negative, and, for a frame that
 * reaches us at `now`, within Date's range and not too far ahead of our clock (ADR 0119).
 */
function time(o: Json, key: string, now: number | undefined): number {
  const v = o[key];
  if (!isFrameTime(v, now)) throw invalid(`${key} is not a time`);
  return v;
}

function kindOf(o: Json): SenderKind {
  const v = o.kind;
  if (v !== 'agent' && v !== 'human') throw invalid('kind is not "agent" or "human"');
  return v;
}

/**
 * Parses and validates a frame. Unknown extra fields are dropped (a newer member may add
 * optional fields); a missing or malformed known field, or an unknown `t`, is an error. `now`: our
 * clock when the frame came off the wire, against which its times are checked (frame-time.ts);
 * without it (a frame read back from a profile file) a time is only a safe integer from 0 on.
 */
export function decodeFrame(input: string | Uint8Array, now?: number): Frame {
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      throw invalid('not UTF-8');
    }
  }
  if (utf8Length(text) > MAX_SEALED_FRAME_BYTES) throw invalid('too large');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('not an object');
  const o = value as Json;
  const isNode = (v: string) => NODE_ID.test(v);
  const sigValue = optStr(o, 'sig', (v) => SIGNATURE_PATTERN.test(v), 'a signature');
  const sig = sigValue === undefined ? {} : { sig: sigValue };
  switch (o.t) {
    case 'hello': {
      if (typeof o.ephemeral !== 'boolean') throw invalid('ephemeral is not a boolean');
      // Said apart: a member older than ADR 0093 sends hellos without it, and its person should
      // learn why it is not shown online.
      if (o.ts === undefined) throw invalid('hello without ts (its sender runs an older papo: update it)');
      // A hostile `about` (lines, controls, any length) is made one inert line of at most
      // MAX_ABOUT_CHARS rather than refused: refusing it would drop the whole hello, and with it
      // the member (ADR 0059).
      const rawAbout = optStr(o, 'about', () => true, 'a text');
      const about = rawAbout === undefined ? undefined : normaliseAbout(rawAbout);
      const person = optStr(o, 'person', isNode, 'a node id');
      return {
        t: 'hello',
        node: str(o, 'node', isNode, 'a node id'),
        name: str(o, 'name', isMemberName, 'a member name'),
        ...(about !== undefined ? { about } : {}),
        kind: kindOf(o),
        ephemeral: o.ephemeral,
        ts: time(o, 'ts', now),
        ...(person !== undefined ? { person } : {}),
        ...(o.review === true ? { review: true as const } : {}),
        ...sig,
      };
    }
    case 'msg':
    case 'missed': {
      const ts = time(o, 'ts', now);
      const body = str(o, 'body', (v) => v.length > 0 && utf8Length(v) <= MAX_BODY_BYTES, 'a body');
      const to = optStr(o, 'to', isMemberName, 'a member name');
      const replyTo = optStr(o, 'reply_to', (v) => MSG_ID.test(v), 'a message id');
      return {
        t: o.t as 'msg' | 'missed',
        id: str(o, 'id', (v) => MSG_ID.test(v), 'a message id'),
        from: str(o, 'from', isMemberName, 'a member name'),
        node: str(o, 'node', isNode, 'a node id'),
        kind: kindOf(o),
        ...(to !== undefined ? { to } : {}),
        ...(replyTo !== undefined ? { reply_to: replyTo } : {}),
        ts,
        body,
        ...sig,
      };
    }
    case 'ack':
      return {
        t: 'ack',
        id: str(o, 'id', (v) => MSG_ID.test(v), 'a message id'),
        by: str(o, 'by', isMemberName, 'a member name'),
        node: str(o, 'node', isNode, 'a node id'),
        ...sig,
      };
    case 'refused': {
      const id = optStr(o, 'id', (v) => MSG_ID.test(v), 'a message id');
      const forNode = optStr(o, 'for', isNode, 'a node id');
      return {
        t: 'refused',
        ...(id !== undefined ? { id } : {}),
        ...(forNode !== undefined ? { for: forNode } : {}),
        by: str(o, 'by', isMemberName, 'a member name'),
        node: str(o, 'node', isNode, 'a node id'),
        why: str(o, 'why', (v) => REFUSAL_REASONS.includes(v), 'a refusal reason') as RefusalReason,
        ...sig,
      };
    }
    case 'have': {
      const since = time(o, 'since', now);
      const ids = o.ids;
      if (!Array.isArray(ids) || ids.length > MAX_HAVE_IDS || !ids.every((v) => isMessageId(v)))
        throw invalid(`ids is not a list of at most ${MAX_HAVE_IDS} message ids`);
      return { t: 'have', node: str(o, 'node', isNode, 'a node id'), since, ids: ids as string[], ...sig };
    }
    default:
      throw invalid('unknown type');
  }
}

/** Seals a frame for the wire; refuses one whose sealed form would pass the 64 KiB limit. */
export function sealFrame(frameKey: Uint8Array, frame: Frame): Uint8Array {
  const sealed = seal(frameKey, new TextEncoder().encode(encodeFrame(frame)), FRAME_AAD);
  if (sealed.length > MAX_SEALED_FRAME_BYTES) throw new RangeError('sealed frame larger than 64 KiB');
  return sealed;
}

/**
 * Opens and decodes a frame from the wire, its times checked against `now` (our clock): PapoError
 * 'open_failed' or 'invalid_frame' otherwise.
 */
export function openFrame(frameKey: Uint8Array, sealed: Uint8Array, now = Date.now()): Frame {
  if (!(sealed instanceof Uint8Array)) throw invalid('not bytes');
  if (sealed.length > MAX_SEALED_FRAME_BYTES) throw invalid('sealed frame larger than 64 KiB');
  return decodeFrame(open(frameKey, sealed, FRAME_AAD), now);
}
