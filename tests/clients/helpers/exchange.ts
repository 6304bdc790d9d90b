// The exchange the headless tests of tests/clients/ script for each client: the colleague (colega,
// a plain papo mcp) asks, voce's model waits for it with papo's `wait` and answers with `send` and
// reply_to. What the tests share of it: the colleague's side, the scripted answer, and a signal
// server that requires a token.

import { startSignalServer } from '../../../src/signal-server/server.js';
import { recordedLines } from '../../claude-code/helpers/claude.js';
import type { Hooks } from '../../support/client-run.js';
import type { McpProcess } from '../../support/mcp-process.js';
import { msgIdIn } from '../../support/papo.js';
import { callText, type Room, statusUntil } from '../../support/room.js';
import { type Json, type Turn, toolResults } from '../fake-chat-completions.js';

/** colega's question, voce's model's answer, and what voce's user asked for. */
export const ASK = 'Hi, notifications agent here. Which fields does the payment.confirmed webhook carry?';
export const REPLY = 'payment.confirmed carries id, amount_cents, currency and confirmed_at (ISO 8601).';
export const PROMPT = 'Agree the payment webhook fields with the notifications agent over papo.';

/** The msg_id of colega's message in a wait/inbox result ('missing' when there is none). */
export function colegaMsgId(text: string): string {
  return /\[msg_id=([0-9a-f]{10}) from=colega \(agent\)/.exec(text)?.[1] ?? 'missing';
}

/**
 * A Chat Completions turn (opencode, Qwen Code): answers the message the last tool result (the
 * wait) carried, with the client's name of papo's send, `reply` to colega and reply_to.
 */
export function replyToWaited(send: string, reply: string): (body: Json) => Turn {
  return (body: Json) => {
    const id = colegaMsgId(toolResults(body).at(-1)?.text ?? '');
    return { tools: [{ name: send, args: { message: reply, to: 'colega', reply_to: id } }] };
  };
}

/**
 * The colleague's side: once voce is online for colega and voce's model is in papo's `wait` (its
 * call seen in the stdio recorder's `log`), colega sends `ask` to voce and waits for the answer.
 */
export async function askWhileWaiting(
  colega: McpProcess,
  log: string,
  ask: string,
): Promise<{ askId: string; answer: string; ms: number }> {
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  for (let i = 0; !recordedLines(log).some((l) => l.dir === 'in' && l.msg.params?.name === 'wait'); i++) {
    if (i > 240) throw new Error('the model never called wait');
    await new Promise((r) => setTimeout(r, 250));
  }
  const sentAt = Date.now();
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ask, to: 'voce' }));
  const answer = await callText(colega.client, 'wait', { timeout_seconds: 60, from: 'voce' });
  return { askId, answer, ms: Date.now() - sentAt };
}

/**
 * The room's signal server, requiring `token`: started on the room's port before any papo mcp,
 * so that no embedded server takes it; stopped after `t`.
 */
export async function tokenSignalServer(t: Hooks, room: Room, token: string): Promise<void> {
  const signal = await startSignalServer({
    host: '127.0.0.1',
    port: Number(new URL(room.signalUrl).port),
    env: { PAPO_SIGNAL_TOKEN: token },
  });
  t.after(() => signal.close());
}
