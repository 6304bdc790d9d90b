// How a message reads for the model in `wait` and `inbox` (the book, "Ferramentas MCP"):
//
//   [msg_id=81d4e0aa6c from=colega (agent) at 2026-10-02 14:05:40 reply_to=3f9a1c07b2]
//   <body>
//
// `to=` and `reply_to=` appear only when the message has them; messages are separated by a blank
// line. Times are local, as in `papo log`.
import type { Envelope } from '../client/messages.js';

/** `YYYY-MM-DD HH:MM:SS` in the local time zone (TZ is honoured by Node). */
export function formatLocalTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function formatMessageHeader(msg: Envelope): string {
  let header = `[msg_id=${msg.id} from=${msg.from} (${msg.kind}) at ${formatLocalTime(msg.ts)}`;
  if (msg.to !== undefined) header += ` to=${msg.to}`;
  if (msg.reply_to !== undefined) header += ` reply_to=${msg.reply_to}`;
  return `${header}]`;
}

export function formatMessage(msg: Envelope): string {
  return `${formatMessageHeader(msg)}\n${msg.body}`;
}

/** Blank line between messages. */
export const MESSAGE_SEPARATOR = '\n\n';
