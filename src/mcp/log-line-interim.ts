// INTERIM — to be replaced by `formatLogEntry` from src/client/log-format.ts (being written for
// `papo log` in another branch). `history` must print exactly the lines `papo log` prints; until
// that module lands on main this is a local copy of the book's format ("Comandos da CLI", papo log):
//
//   [2026-10-02 14:03:11] voce -> room (msg 3f9a1c07b2): mensagem enviada para todos
//   [2026-10-02 14:03:12] delivered 3f9a1c07b2 to colega
//   [2026-10-02 14:05:40] colega (agent) -> voce (msg 81d4e0aa6c, reply to 3f9a1c07b2): resposta
import type { LogEntry } from '../client/messages.js';
import { formatLocalTime } from './message-format.js';

export function formatLogEntry(entry: LogEntry): string {
  if (entry.ev === 'delivered') {
    return `[${formatLocalTime(entry.ts)}] delivered ${entry.id} to ${entry.by}`;
  }
  const m = entry.msg;
  const who = entry.ev === 'in' ? `${m.from} (${m.kind})` : m.from;
  const refs = m.reply_to === undefined ? `msg ${m.id}` : `msg ${m.id}, reply to ${m.reply_to}`;
  return `[${formatLocalTime(m.ts)}] ${who} -> ${m.to ?? 'room'} (${refs}): ${m.body}`;
}
