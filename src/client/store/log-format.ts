// The human line of a log entry, as `papo log` prints it and the MCP `history` tool returns it
// (docs/cli.md, "papo log"). Times are local: the TZ variable decides (docs/cli.md, "Environment").

import { shortId } from '../log.js';
import { indentFollowingLines, inertText } from '../wire/inert-text.js';
import type { Envelope, LogEntry } from '../wire/messages.js';

/**
 * [2026-10-02 14:03:11] voce -> room (msg 3f9a1c07b2): body
 * [2026-10-02 14:03:12] delivered 3f9a1c07b2 to colega
 * [2026-10-02 14:05:40] colega (agent) -> voce (msg 81d4e0aa6c, reply to 3f9a1c07b2): body
 * What we sent without `to` went to the whole room ("-> room"); what we received names us as its
 * recipient (`self`), as in docs/files.md's example ("log.jsonl"), whose line for it carries no `to`.
 * The body is room text (ADR 0059): its control and invisible characters are shown as escapes
 * (`\x1b`, `\u202e`), and each of its further lines is indented by two spaces (docs/cli.md,
 * "papo log"), so only an entry's first line starts at column 0 and no
 * line of a body can pass for another entry.
 */
export function formatLogEntry(entry: LogEntry, self?: string, mark?: ReviewMark): string {
  if (entry.ev === 'delivered') {
    return inertText(`[${formatLocalTime(entry.ts)}] delivered ${entry.id} to ${entry.by}`, 'line');
  }
  if (entry.ev === 'impostor') {
    // Added with signed frames (ADR 0064): frames refused because their key does not hold the name.
    return inertText(
      `[${formatLocalTime(entry.ts)}] refused frames claiming to be ${entry.name} (${entry.kind}) from another key [${shortId(entry.node)}]: not handed to the agent`,
      'line',
    );
  }
  if (entry.ev === 'review') {
    // Added with the review gate: the person's decision on a held message (ADR 0081), as they read it.
    const what =
      entry.decision === 'approved'
        ? `you approved ${entry.id}: your agent has it now`
        : `you rejected ${entry.id}: your agent never sees it${entry.reason ? `; reason: ${entry.reason}` : ''}`;
    return inertText(`[${formatLocalTime(entry.ts)}] ${what}`, 'line');
  }
  const msg = entry.msg;
  // The sender's kind is shown for what arrived; what we sent is always ours.
  const sender = entry.ev === 'in' ? `${msg.from} (${msg.kind})` : msg.from;
  const recipient = msg.to ?? (entry.ev === 'in' && self !== undefined ? self : 'room');
  // Names and ids are validated where frames are decoded; the whole line goes through the escape
  // anyway, so a hand-edited log.jsonl cannot reach the terminal either.
  const head = `[${formatLocalTime(msg.ts)}] ${sender} -> ${recipient} (${reference(msg)}${mark ? `, ${mark.note}` : ''})`;
  const line = mark?.body === false ? head : `${head}: ${msg.body}`;
  return indentFollowingLines(inertText(line));
}

/**
 * What the review gate did with a received message (ADR 0081), added inside the parentheses after
 * its id; without `body`, its text is left out (what the agent's history shows of a message its
 * person has not approved).
 */
export interface ReviewMark {
  note: string;
  body: boolean;
}

/** The decision the log holds for each held message among `entries` (the latest wins). */
export function reviewStates(entries: readonly LogEntry[]): Map<string, 'held' | 'approved' | 'rejected'> {
  const states = new Map<string, 'held' | 'approved' | 'rejected'>();
  for (const e of entries) {
    if (e.ev === 'in' && e.held === true) states.set(e.msg.id, 'held');
    else if (e.ev === 'review' && states.has(e.id)) states.set(e.id, e.decision);
  }
  return states;
}

function reference(msg: Envelope): string {
  return msg.reply_to ? `msg ${msg.id}, reply to ${msg.reply_to}` : `msg ${msg.id}`;
}

/** YYYY-MM-DD HH:MM:SS in the process's local time zone. */
export function formatLocalTime(ms: number): string {
  const d = new Date(ms);
  const p = (v: number) => String(v).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
