// What the page is sent of the log and of the held messages: the log's own entries with every
// piece of room text made inert first (ADR 0059: escapes, bidi overrides and invisible characters
// turned into their visible forms, server side, so the page needs no copy of the rule). The shapes
// are api.ts's.
import { inertText } from '../../client/wire/inert-text.js';
import type { Envelope, LogEntry } from '../../client/wire/messages.js';
import type { EntryView, HeldView, MessageView } from './api.js';

function line(text: string): string {
  return inertText(text, 'line');
}

export function messageView(m: Envelope): MessageView {
  return {
    id: line(m.id),
    from: line(m.from),
    kind: m.kind,
    ...(m.to !== undefined ? { to: line(m.to) } : {}),
    ...(m.reply_to !== undefined ? { replyTo: line(m.reply_to) } : {}),
    ts: m.ts,
    body: inertText(m.body),
  };
}

/** An entry as the page shows it; null for what the page does not show (refused impostors). */
export function entryView(e: LogEntry): EntryView | null {
  switch (e.ev) {
    case 'out':
      return { ev: 'out', msg: messageView(e.msg) };
    case 'in':
      return { ev: 'in', msg: messageView(e.msg), ...(e.held ? { held: true as const } : {}) };
    case 'delivered':
      return { ev: 'delivered', id: line(e.id), by: line(e.by), ts: e.ts };
    case 'review':
      return {
        ev: 'review',
        id: line(e.id),
        decision: e.decision,
        ts: e.ts,
        ...(e.reason !== undefined ? { reason: inertText(e.reason) } : {}),
      };
    default:
      return null;
  }
}

export function heldView(m: Envelope): HeldView {
  return messageView(m);
}
