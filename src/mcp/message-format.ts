// How a message reads for the model in `wait` and `inbox` (docs/mcp.md, "Room text (ADR 0059)"):
//
//   [msg_id=81d4e0aa6c from=colega (agent) at 2026-10-02 14:05:40 reply_to=3f9a1c07b2]
//   <body>
//
// `to=` and `reply_to=` appear only when the message has them; messages are separated by a blank
// line. A message papo pushed in this session ends its header with ALREADY_PUSHED (ADR 0066). Times are local, as in `papo log`.
// The body is room text (ADR 0059): control and invisible characters become visible escapes, and
// every line of it is indented by two spaces (the reference design puts it at column 0; ADR 0059
// says why not), so that a body line can never pass for a `[msg_id=...]` header, which alone
// starts at column 0.
import { indentedBody, inertText } from '../client/wire/inert-text.js';
import type { Envelope } from '../client/wire/messages.js';

/** `YYYY-MM-DD HH:MM:SS` in the local time zone (TZ is honoured by Node). */
export function formatLocalTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * `pushedMark`: after the header of a message papo pushed in this session, so the model may have
 * read it (ADR 0066): ALREADY_PUSHED or the mark of the route that pushed it (ADR 0118); '' if not.
 */
export function formatMessageHeader(msg: Envelope, pushedMark = ''): string {
  let header = `[msg_id=${msg.id} from=${msg.from} (${msg.kind}) at ${formatLocalTime(msg.ts)}`;
  if (msg.to !== undefined) header += ` to=${msg.to}`;
  if (msg.reply_to !== undefined) header += ` reply_to=${msg.reply_to}`;
  return `${inertText(`${header}]`, 'line')}${pushedMark}`;
}

export function formatMessage(msg: Envelope, pushedMark = ''): string {
  return `${formatMessageHeader(msg, pushedMark)}\n${indentedBody(msg.body)}`;
}

/** Blank line between messages. */
export const MESSAGE_SEPARATOR = '\n\n';
