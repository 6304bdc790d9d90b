// Client messages, checked field by field. The `data` blob is only checked to be a string: it is
// sealed with the room key and the server forwards it untouched (DESIGN.md, "Signal server").
import { type ClientMessage, PEER_PATTERN, TOPIC_PATTERN } from '../signal-protocol.js';

export type Parsed = { ok: true; message: ClientMessage } | { ok: false; reason: string };

const TOPIC_RULE = 'topic must be 64 lower-case hex characters';

export function parseClientMessage(raw: string): Parsed {
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
