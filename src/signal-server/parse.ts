// Client messages, checked field by field, and the signals replicas hand each other through Redis
// (checked by the same rules). The `data` blob is only checked to be a string: it is sealed with the
// room key and the server forwards it untouched (docs/protocol.md, "Signal protocol v1").
import { type ClientMessage, PEER_PATTERN, TOPIC_PATTERN } from '../signal-protocol.js';

export type Parsed =
  | {
      ok: true;
      message: ClientMessage;
      /** A signal whose `data` needs no escaping in JSON: the hub can write it as it came. */
      plain?: true;
    }
  | { ok: false; reason: string };

const TOPIC_RULE = 'topic must be 64 lower-case hex characters';

// A signal exactly as papo's client writes it (JSON.stringify of { t, topic, to, data }), and as the
// server writes it to the addressee (hub.ts `text.signal`, which is also what one replica hands
// another through Redis), with `from` for `to`:
// {"t":"signal","topic":"<64 hex>","to":"<64 hex>","data":"<data>"}
const SIGNAL_HEAD = '{"t":"signal","topic":"';

/** Where the fields of a signal frame begin when its peer field is `to` (client) or `from` (server). */
function signalLayout(peerKey: 'to' | 'from') {
  const peerAt = SIGNAL_HEAD.length + 64;
  const peerField = `","${peerKey}":"`;
  const dataAt = peerAt + peerField.length + 64;
  const dataField = '","data":"';
  return { peerKey, peerAt, peerField, dataAt, dataField, bodyAt: dataAt + dataField.length };
}
type SignalLayout = ReturnType<typeof signalLayout>;
const CLIENT_SIGNAL = signalLayout('to');
const SERVER_SIGNAL = signalLayout('from');

/**
 * Characters JSON.stringify writes as they are: from space up, except the quote, the backslash
 * and UTF-16 surrogates (a surrogate pair is well formed, but rare enough to leave to JSON).
 */
const PLAIN = /^[ !#-[\]-\ud7ff\ue000-\uffff]+$/;

/** The fields of a signal: the peer is `to` in a client's frame, `from` in the server's. */
interface SignalFields {
  topic: string;
  peer: string;
  data: string;
  plain?: true;
}

/**
 * The frame every signal is, read without JSON.parse: the same fields JSON.parse and the checks
 * below would give, or undefined for anything else (which then takes the general path). A body
 * without quotes, backslashes or control characters is its own JSON string literal, so the frame
 * is the canonical JSON of that message and nothing else.
 */
function plainSignal(raw: string, l: SignalLayout): SignalFields | undefined {
  if (
    raw.length <= l.bodyAt + 2 ||
    !raw.startsWith(SIGNAL_HEAD) ||
    !raw.startsWith(l.peerField, l.peerAt) ||
    !raw.startsWith(l.dataField, l.dataAt) ||
    !raw.endsWith('"}')
  )
    return undefined;
  const topic = raw.slice(SIGNAL_HEAD.length, l.peerAt);
  const peer = raw.slice(l.peerAt + l.peerField.length, l.dataAt);
  const data = raw.slice(l.bodyAt, raw.length - 2);
  if (!TOPIC_PATTERN.test(topic) || !PEER_PATTERN.test(peer) || !PLAIN.test(data)) return undefined;
  return { topic, peer, data, plain: true };
}

/** The checks every signal's fields pass, whichever way it goes; a string says which failed. */
function signalFields(m: Record<string, unknown>, peerKey: 'to' | 'from'): SignalFields | string {
  const topic = m.topic;
  if (typeof topic !== 'string' || !TOPIC_PATTERN.test(topic)) return TOPIC_RULE;
  const peer = m[peerKey];
  if (typeof peer !== 'string' || !PEER_PATTERN.test(peer))
    return `${peerKey} must be 64 lower-case hex characters`;
  const data = m.data;
  if (typeof data !== 'string' || data === '') return 'data must be a non-empty string';
  return { topic, peer, data };
}

/** `raw` read as a JSON object; a string says why it is not one. */
export function jsonObject(raw: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return 'message is not valid JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'message must be a JSON object';
  return value as Record<string, unknown>;
}

export function parseClientMessage(raw: string): Parsed {
  const fast = plainSignal(raw, CLIENT_SIGNAL);
  if (fast !== undefined) {
    return {
      ok: true,
      message: { t: 'signal', topic: fast.topic, to: fast.peer, data: fast.data },
      plain: true,
    };
  }
  const m = jsonObject(raw);
  if (typeof m === 'string') return { ok: false, reason: m };
  const topic = m.topic;
  switch (m.t) {
    case 'join': {
      if (typeof topic !== 'string' || !TOPIC_PATTERN.test(topic)) return { ok: false, reason: TOPIC_RULE };
      const peer = m.peer;
      if (typeof peer !== 'string' || !PEER_PATTERN.test(peer)) {
        return { ok: false, reason: 'peer must be 64 lower-case hex characters' };
      }
      return { ok: true, message: { t: 'join', topic, peer } };
    }
    case 'signal': {
      const f = signalFields(m, 'to');
      if (typeof f === 'string') return { ok: false, reason: f };
      return { ok: true, message: { t: 'signal', topic: f.topic, to: f.peer, data: f.data } };
    }
    case 'leave':
      if (typeof topic !== 'string' || !TOPIC_PATTERN.test(topic)) return { ok: false, reason: TOPIC_RULE };
      return { ok: true, message: { t: 'leave', topic } };
    default:
      return { ok: false, reason: 'unknown message type' };
  }
}

/**
 * The largest signal frame the server writes for a client's frame of at most `maxMessageBytes`:
 * `from` is two characters longer than `to`, and JSON.stringify writes a string no longer than
 * any other JSON text of it (it escapes only what JSON requires, in the shortest form).
 */
export function forwardedSignalBytes(maxMessageBytes: number): number {
  return maxMessageBytes + 2;
}

export type ParsedForward =
  | { ok: true; topic: string; from: string; data: string; plain?: true }
  | { ok: false; reason: string };

/**
 * A signal frame as the server writes it to its addressee, handed over by another replica through
 * the shared store, which anyone with write access to it can also write: the same field rules as
 * a client's signal, and no larger than a client's frame within `maxMessageBytes` can become.
 * Only the fields come back; the caller writes the frame anew from them.
 */
export function parseForwardedSignal(raw: string, maxMessageBytes: number): ParsedForward {
  const max = forwardedSignalBytes(maxMessageBytes);
  // The length in UTF-16 units is never more than the length in UTF-8 bytes: the cheap test first.
  if (raw.length > max || Buffer.byteLength(raw) > max) {
    return { ok: false, reason: 'larger than a signal a client may send' };
  }
  let f = plainSignal(raw, SERVER_SIGNAL);
  if (f === undefined) {
    const m = jsonObject(raw);
    if (typeof m === 'string') return { ok: false, reason: m };
    if (m.t !== 'signal') return { ok: false, reason: 'not a signal' };
    const checked = signalFields(m, 'from');
    if (typeof checked === 'string') return { ok: false, reason: checked };
    f = checked;
  }
  const { topic, peer: from, data, plain } = f;
  return plain ? { ok: true, topic, from, data, plain } : { ok: true, topic, from, data };
}
