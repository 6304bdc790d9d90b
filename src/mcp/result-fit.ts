// Keeps tool results inside what Claude Code takes comfortably (ADR 0042): it warns past 10,000
// tokens, cuts at 25,000 and moves text results over 50,000 characters to a file. papo builds no
// result over LIMITS.maxResultChars (40,000), with one documented exception: `wait`/`inbox` do not
// cut a message to fit others, so a single message longer than the budget is returned alone, up to
// LIMITS.maxSingleMessageResultChars (49,900, under the 50,000-character threshold): a 48 KiB body
// fits, and only one whose escapes or indentation (ADR 0059) make it longer is cut, with a note.
import type { Envelope } from '../client/wire/messages.js';
import { formatMessage, MESSAGE_SEPARATOR } from './message-format.js';
import {
  historyLeftOut,
  LIMITS,
  lineCut,
  messageCut,
  moreUnread,
  statusMoreMembers,
  UNTRUSTED_NOTICE,
} from './texts.js';

export interface FittedMessages {
  text: string;
  /** The messages in `text`, to be consumed; the rest stay unread. */
  included: Envelope[];
  remaining: number;
}

/**
 * The untrusted-data notice, then as many of `messages` (oldest first, in order) as fit in
 * `budget` characters, then how many remain. Always includes at least the first message. A message
 * papo pushed carries `pushedMark`'s mark in its header (ADR 0066).
 */
export function fitMessages(
  messages: readonly Envelope[],
  budget: number = LIMITS.maxResultChars,
  pushedMark: (id: string) => string = () => '',
): FittedMessages {
  if (messages.length === 0) throw new RangeError('fitMessages needs at least one message');
  const parts: string[] = [];
  const included: Envelope[] = [];
  let length = UNTRUSTED_NOTICE.length;
  for (const [i, msg] of messages.entries()) {
    let block = formatMessage(msg, pushedMark(msg.id));
    const remainingAfter = messages.length - i - 1;
    // Reserve room for the trailer that says how many stay unread, should any be left out.
    const trailer = remainingAfter > 0 ? MESSAGE_SEPARATOR.length + moreUnread(messages.length).length : 0;
    if (included.length === 0) block = cutAlone(block, LIMITS.maxSingleMessageResultChars - length - trailer);
    const added = MESSAGE_SEPARATOR.length + block.length;
    if (included.length > 0 && length + added + trailer > budget) break;
    parts.push(block);
    included.push(msg);
    length += added;
  }
  const remaining = messages.length - included.length;
  let text = `${UNTRUSTED_NOTICE}${MESSAGE_SEPARATOR}${parts.join(MESSAGE_SEPARATOR)}`;
  if (remaining > 0) text += `${MESSAGE_SEPARATOR}${moreUnread(remaining)}`;
  return { text, included, remaining };
}

/** A message block cut to `room` characters with a note, if longer (never a surrogate pair split). */
function cutAlone(block: string, room: number): string {
  const sep = MESSAGE_SEPARATOR.length;
  if (block.length + sep <= room) return block;
  let keep = room - sep - messageCut(block.length).length;
  const code = block.charCodeAt(keep - 1);
  if (code >= 0xd800 && code <= 0xdbff) keep -= 1;
  return `${block.slice(0, keep)}${messageCut(block.length - keep)}`;
}

/**
 * History lines (oldest first): keeps the newest that fit, says how many earlier ones were left
 * out, and cuts a single line that alone exceeds the budget (history is read-only context, and
 * every message stays readable in `papo log`).
 */
export function fitLines(
  lines: readonly string[],
  budget: number = LIMITS.maxResultChars,
  prefix = '',
): string {
  const head = prefix === '' ? '' : `${prefix}\n`;
  // Room for the "left out" note, computed with the largest count it could show.
  const note = `${historyLeftOut(lines.length)}\n`;
  const room = budget - head.length - note.length;
  const kept: string[] = [];
  let length = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    let line = lines[i] as string;
    const sep = kept.length === 0 ? 0 : 1;
    if (length + sep + line.length > room) {
      if (kept.length > 0) break;
      const cutNote = lineCut(line.length);
      const keep = Math.max(0, room - cutNote.length - 16);
      line = `${line.slice(0, keep)}${lineCut(line.length - keep)}`;
    }
    kept.unshift(line);
    length += sep + line.length;
  }
  const leftOut = lines.length - kept.length;
  return `${head}${leftOut > 0 ? `${historyLeftOut(leftOut)}\n` : ''}${kept.join('\n')}`;
}

/**
 * `status` lines: `head` and `tail` whole, and the member lines in order if they all fit in
 * `budget`; otherwise online members first (the ones the agent can talk to), as many as fit, then
 * how many were left out. A room's members are bounded (MAX_KNOWN_PEERS) but their lines are not
 * small: 256 with a long `about` would pass the cap.
 */
export function fitStatus(
  head: readonly string[],
  members: readonly { line: string; online: boolean }[],
  tail: readonly string[],
  budget: number = LIMITS.maxResultChars,
): string {
  const size = (lines: readonly string[]) => lines.reduce((n, line) => n + line.length + 1, 0);
  const all = members.map((m) => m.line);
  if (size([...head, ...all, ...tail]) - 1 <= budget) return [...head, ...all, ...tail].join('\n');
  const room = budget - size([...head, ...tail]) - statusMoreMembers(members.length).length - 1;
  const kept: string[] = [];
  let length = 0;
  for (const m of [...members.filter((x) => x.online), ...members.filter((x) => !x.online)]) {
    if (length + m.line.length + 1 > room) break;
    kept.push(m.line);
    length += m.line.length + 1;
  }
  const leftOut = members.length - kept.length;
  return [...head, ...kept, statusMoreMembers(leftOut), ...tail].join('\n');
}
