// Qwen Code's door: its Cross-Session Protocol (0.24.4, documented in its package:
// bundled/qc-helper/docs/features/cross-session-protocol.md; ADR 0118, "Amended: Qwen Code").
// Qwen Code's TUI binds a session inbox and gives its MCP stdio children
// QWEN_CODE_MESSAGING_SOCKET and QWEN_CODE_MESSAGING_TOKEN (a child token: a message that presents
// it is the session's own process, `origin="own-process"`, delivered without review unless the
// person's agents.crossSessionInbound says hold or refuse). No flag, no dialog, no login.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Door, PushRoute } from '../push-contract.js';
import { pushedText, QWEN_NO_SOCKET, qwenNotDelivered } from '../texts.js';
import { isClient } from './clients.js';
import { listenSocketLines, SESSION_PUSH_TIMEOUT_MS, writeSocketLines } from './socket-lines.js';

const WHAT = "Qwen Code's session inbox";

/** A receipt as papo reads it: the status, and the drop's reason when it is one. */
interface Receipt {
  status: string;
  dropReason?: string;
}

/**
 * Where Qwen Code answers: the protocol never writes on the connection that carried a message; it
 * sends each receipt (delivered, held, refused, …) on a connection of its own to the message's
 * `from`, its first line the auth line with the message's `replyToken` (§2, §5). So papo binds a
 * socket of its own, in a folder of its own (0700, removed at exit), with a token of its own.
 */
class ReceiptInbox {
  readonly token = randomBytes(32).toString('hex');
  readonly #waiting = new Map<string, (r: Receipt) => void>();

  private constructor(readonly path: string) {}

  static async bind(): Promise<ReceiptInbox> {
    const dir = mkdtempSync(join(tmpdir(), 'papo-qwen-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const inbox = new ReceiptInbox(join(dir, 'receipts.sock'));
    await listenSocketLines(inbox.path, (lines) => inbox.#read(lines));
    return inbox;
  }

  /** The first receipt for `msgId` that settles it; `none` after `ms` without one. */
  expect(msgId: string, ms: number): { receipt: Promise<Receipt>; cancel: () => void } {
    let cancel = () => {};
    const receipt = new Promise<Receipt>((resolve) => {
      const timer = setTimeout(() => settle({ status: 'none' }), ms);
      const settle = (r: Receipt) => {
        clearTimeout(timer);
        this.#waiting.delete(msgId);
        resolve(r);
      };
      cancel = () => {
        clearTimeout(timer);
        this.#waiting.delete(msgId);
      };
      this.#waiting.set(msgId, settle);
    });
    return { receipt, cancel };
  }

  /** One connection's lines: Qwen Code's auth line with papo's token, then delivery_status frames. */
  #read(lines: unknown[]): void {
    const [auth, ...frames] = lines as Record<string, unknown>[];
    if (auth?.type !== 'auth' || typeof auth.token !== 'string') return;
    const token = Buffer.from(auth.token);
    if (token.length !== this.token.length || !timingSafeEqual(token, Buffer.from(this.token))) return;
    for (const f of frames) {
      if (f?.type !== 'control' || f.action !== 'delivery_status') continue;
      if (typeof f.status !== 'string' || typeof f.origMsgId !== 'string') continue;
      // A status papo does not know moves nothing (§7): it keeps waiting.
      if (!KNOWN_STATUS.has(f.status)) continue;
      const receipt: Receipt = { status: f.status };
      if (typeof f.dropReason === 'string') receipt.dropReason = f.dropReason.slice(0, 40);
      const ids = [f.origMsgId, ...(Array.isArray(f.droppedMsgIds) ? f.droppedMsgIds : [])];
      for (const id of ids) if (typeof id === 'string') this.#waiting.get(id)?.(receipt);
    }
  }
}

/** The receipts of Qwen Code 0.24.4 (the protocol's §5). */
const KNOWN_STATUS = new Set([
  'delivered',
  'held',
  'denied',
  'refused',
  'expired',
  'misaddressed',
  'dropped',
]);

/**
 * One connection per message writes two JSON lines: the auth line with the child token, then a
 * `user` frame (`priority: next`: today Qwen Code queues `now` the same way, but it is "carried for
 * a future interrupt path", and an interrupt would cancel the tool call in flight, papo's own
 * `wait` included). No `toSessionId`: the child token reaches only the TUI that started papo, one
 * session at a time, and that session's id changes on /clear and /resume under the same papo (the
 * protocol's own example for a session's processes sends none). The frame's `from` and
 * `replyToken` are papo's receipt socket: `delivered` resolves; any other receipt, or none within
 * SESSION_PUSH_TIMEOUT_MS (a wrong token is dropped silently), rejects, and the pump falls back,
 * said. The message id is the room's, so a papo restarted in the same session re-pushing it gets
 * Qwen Code's earlier verdict again, not a second copy in the conversation. Qwen Code puts
 * `<cross_session_message … origin="own-process">` and its own notice around the text, so papo's
 * own frame is in it (texts.ts, `pushedText`). The tokens are never logged.
 */
export function qwenSessionRoute(socketPath: string, token: string): PushRoute {
  let receipts: Promise<ReceiptInbox> | undefined;
  return {
    kind: 'qwen-session',
    push: async (msg) => {
      receipts ??= ReceiptInbox.bind();
      const inbox = await receipts.catch((err: Error & { code?: string }) => {
        receipts = undefined;
        throw new Error(
          `papo could not open its socket for Qwen Code's receipts (${err.code ?? err.message})`,
        );
      });
      const msgId = `papo-${msg.id}`;
      const { receipt, cancel } = inbox.expect(msgId, SESSION_PUSH_TIMEOUT_MS);
      try {
        await writeSocketLines(
          socketPath,
          [
            { msgV: 1, type: 'auth', token },
            {
              msgV: 1,
              msgId,
              type: 'user',
              from: inbox.path,
              replyToken: inbox.token,
              fromName: 'papo',
              priority: 'next',
              message: { role: 'user', content: pushedText(msg, 'qwen-session') },
            },
          ],
          WHAT,
        );
      } catch (err) {
        cancel();
        throw err;
      }
      const r = await receipt;
      if (r.status === 'delivered') return;
      const why = qwenNotDelivered(r.status, r.dropReason);
      throw new Error(r.status === 'none' ? `${why} within ${SESSION_PUSH_TIMEOUT_MS} ms` : why);
    },
  };
}

/**
 * Qwen Code's door, when its environment gives one. Without the inbox, papo still says Qwen Code's
 * door is closed when it runs under Qwen Code: Qwen Code gives what it starts QWEN_CODE_SESSION_ID
 * and QWEN_CODE_CLI in its TUI and in `qwen -p` alike (0.24.4, measured), the inbox in the TUI
 * only; or an ancestor is Qwen Code (clients.ts).
 */
export const qwenDoor: Door = ({ env, ancestors }) => {
  const socket = env.QWEN_CODE_MESSAGING_SOCKET;
  const token = env.QWEN_CODE_MESSAGING_TOKEN;
  if (socket !== undefined && socket !== '' && token !== undefined && token !== '')
    return { kind: 'qwen-session', route: qwenSessionRoute(socket, token) };
  const underQwen =
    [env.QWEN_CODE_SESSION_ID, env.QWEN_CODE_CLI].some((v) => v !== undefined && v !== '') ||
    ancestors().some((a) => isClient('qwen-session', a.args));
  return underQwen ? { kind: 'qwen-session', off: { why: 'closed', detail: QWEN_NO_SOCKET } } : undefined;
};
