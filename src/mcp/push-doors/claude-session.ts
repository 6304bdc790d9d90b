// Claude Code's door: its session messaging (2.1.332, read in its code and measured: ADR 0118).
// Claude Code gives its MCP stdio children CLAUDE_CODE_MESSAGING_SOCKET and
// CLAUDE_CODE_MESSAGING_TOKEN; no flag, no dialog, no login.
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Door, PushRoute } from '../push-contract.js';
import { CLAUDE_NO_SOCKET, claudeRefused, pushedText } from '../texts.js';
import { isClient } from './clients.js';
import { listenSocketLines, writeSocketLines } from './socket-lines.js';

const WHAT = "Claude Code's messaging socket";

/**
 * Where Claude Code answers: it sends a receipt when it does not hand a message to its model
 * (`refused`, `held`, `expired`, `dropped`; none on delivery), as one JSON line
 * `{"type":"control","action":"peer_message_status","status":…,"orig_msg_id":…}` on a connection
 * to the frame's `from`, a socket that must lie beside its own (measured, 2.1.332). So papo binds
 * one there, once per session when first needed, and removes it at exit. The receipt carries no
 * token: a local process of the user that forges one only makes papo stop pushing (docs/security.md).
 */
class ClaudeReceipts {
  readonly #ids = new Map<string, string>();

  private constructor(
    readonly path: string,
    private readonly refused: Refused,
  ) {}

  /** Binds papo's receipt socket beside Claude Code's `besides`; `refused` hears each refusal. */
  static async bind(besides: string, refused: Refused): Promise<ClaudeReceipts> {
    const path = join(dirname(besides), `papo-${process.pid}-${randomBytes(4).toString('hex')}.sock`);
    const receipts = new ClaudeReceipts(path, refused);
    await listenSocketLines(path, (lines) => receipts.#read(lines));
    process.once('exit', () => rmSync(path, { force: true }));
    return receipts;
  }

  /** The id Claude Code is given for the room's message `id` (a UUID: it keeps only those). */
  idFor(id: string): string {
    const uuid = randomUUID();
    this.#ids.set(uuid, id);
    // Receipts come within seconds; a session's ids do not pile up.
    if (this.#ids.size > 1000) this.#ids.delete(this.#ids.keys().next().value as string);
    return uuid;
  }

  #read(lines: unknown[]): void {
    for (const line of lines as Record<string, unknown>[]) {
      if (line?.type !== 'control' || line.action !== 'peer_message_status') continue;
      const status = typeof line.status_detail === 'string' ? line.status_detail : line.status;
      if (typeof status !== 'string' || !REFUSALS.has(status)) continue;
      const orig = typeof line.orig_msg_id === 'string' ? this.#ids.get(line.orig_msg_id) : undefined;
      this.refused(orig, claudeRefused(status));
    }
  }
}

/** Told that Claude Code did not hand a message to its model: the room's id when known, and why. */
type Refused = (msgId: string | undefined, detail: string) => void;

/** Claude Code's receipts that say its model did not get the message. */
const REFUSALS = new Set(['refused', 'held', 'expired', 'dropped']);

/**
 * One connection per message writes two JSON lines: `{"type":"auth","token":…}`, then
 * `{"type":"user","message":{"role":"user","content":…},"msg_id":<uuid>,"priority":"next",
 * "from":"uds:<papo's receipt socket>"}`. `next` wakes an idle session, and during a turn the text
 * comes after the current tool result; `now` would cancel the tool call in flight (papo's own
 * `wait` included), so it is never sent. Claude Code says "Another Claude session sent a message"
 * around the text, so papo's own frame is in it (texts.ts, `pushedText`). A receipt (above) makes
 * the pump fall back. Without a receipt socket (it could not be bound) the frame has no `from`.
 * The token is never logged.
 */
export function claudeSessionRoute(socketPath: string, token: string): PushRoute {
  let receipts: Promise<ClaudeReceipts | undefined> | undefined;
  const listeners: Refused[] = [];
  const bound = () => {
    receipts ??= ClaudeReceipts.bind(socketPath, (id, detail) => {
      for (const l of listeners) l(id, detail);
    }).catch(() => undefined);
    return receipts;
  };
  return {
    kind: 'claude-session',
    push: async (msg) => {
      const r = await bound();
      await writeSocketLines(
        socketPath,
        [
          { type: 'auth', token },
          {
            type: 'user',
            message: { role: 'user', content: pushedText(msg, 'claude-session') },
            msg_id: r?.idFor(msg.id) ?? randomUUID(),
            priority: 'next',
            ...(r !== undefined && { from: `uds:${r.path}` }),
          },
        ],
        WHAT,
      );
    },
    onRefused: (listener) => {
      listeners.push(listener);
    },
  };
}

/**
 * Claude Code's door, when its environment gives one. Without the socket, papo still says Claude
 * Code's door is closed when it runs under Claude Code (CLAUDECODE=1, which Claude Code sets for
 * what it starts, or an ancestor's executable named `claude`); `papo doctor` reads the flag itself.
 */
export const claudeDoor: Door = ({ env, ancestors }) => {
  const socket = env.CLAUDE_CODE_MESSAGING_SOCKET;
  const token = env.CLAUDE_CODE_MESSAGING_TOKEN;
  if (socket !== undefined && socket !== '' && token !== undefined && token !== '')
    return { kind: 'claude-session', route: claudeSessionRoute(socket, token) };
  const underClaude = env.CLAUDECODE === '1' || ancestors().some((a) => isClient('claude-session', a.args));
  return underClaude
    ? { kind: 'claude-session', off: { why: 'closed', detail: CLAUDE_NO_SOCKET } }
    : undefined;
};
