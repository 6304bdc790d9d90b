// Client messages, checked field by field. The `data` blob is only checked to be a string: it is
// sealed with the room key and the server forwards it untouched (docs/protocol.md, "Signal protocol v1").
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

// A signal exactly as papo's client writes it (JSON.stringify of { t, topic, to, data }):
// {"t":"signal","topic":"<64 hex>","to":"<64 hex>","data":"<data>"}
const SIGNAL_HEAD = '{"t":"signal","topic":"';
const TO_AT = SIGNAL_HEAD.length + 64;
const TO_KEY = '","to":"';
const DATA_AT = TO_AT + TO_KEY.length + 64;
const DATA_KEY = '","data":"';
const BODY_AT = DATA_AT + DATA_KEY.length;
/**
 * Characters JSON.stringify writes as they are: from space up, except the quote, the backslash
 * and UTF-16 surrogates (a surrogate pair is well formed, but rare enough to leave to JSON).
 */
const PLAIN = /^[ !#-[\]-\ud7ff\ue000-\uffff]+$/;

/**
 * The frame every signal is, read without JSON.parse: the same message JSON.parse and the checks
 * below would give, or undefined for anything else (which then takes the general path). A body
 * without quotes, backslashes or control characters is its own JSON string literal, so the frame
 * is the canonical JSON of that message and nothing else.
 */
function plainSignal(raw: string): Parsed | undefined {
  if (
    raw.length <= BODY_AT + 2 ||
    !raw.startsWith(SIGNAL_HEAD) ||
    !raw.startsWith(TO_KEY, TO_AT) ||
    !raw.startsWith(DATA_KEY, DATA_AT) ||
    !raw.endsWith('"}')
  )
    return undefined;
  const topic = raw.slice(SIGNAL_HEAD.length, TO_AT);
  const to = raw.slice(TO_AT + TO_KEY.length, DATA_AT);
  const data = raw.slice(BODY_AT, raw.length - 2);
  if (!TOPIC_PATTERN.test(topic) || !PEER_PATTERN.test(to) || !PLAIN.test(data)) return undefined;
  return { ok: true, message: { t: 'signal', topic, to, data }, plain: true };
}

export function parseClientMessage(raw: string): Parsed {
  const signal = plainSignal(raw);
  if (signal !== undefined) return signal;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, reason: 'message is not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'message must be a JSON object' };
  }
  const m = value as Record<string, unknown>;
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
      if (typeof topic !== 'string' || !TOPIC_PATTERN.test(topic)) return { ok: false, reason: TOPIC_RULE };
      const to = m.to;
      if (typeof to !== 'string' || !PEER_PATTERN.test(to)) {
        return { ok: false, reason: 'to must be 64 lower-case hex characters' };
      }
      const data = m.data;
      if (typeof data !== 'string' || data === '')
        return { ok: false, reason: 'data must be a non-empty string' };
      return { ok: true, message: { t: 'signal', topic, to, data } };
    }
    case 'leave':
      if (typeof topic !== 'string' || !TOPIC_PATTERN.test(topic)) return { ok: false, reason: TOPIC_RULE };
      return { ok: true, message: { t: 'leave', topic } };
    default:
      return { ok: false, reason: 'unknown message type' };
  }
}
