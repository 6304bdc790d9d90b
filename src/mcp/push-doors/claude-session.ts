// Claude Code's door: its session messaging (2.1.332, read in its code and measured: ADR 0118).
// Claude Code gives its MCP stdio children CLAUDE_CODE_MESSAGING_SOCKET and
// CLAUDE_CODE_MESSAGING_TOKEN; no flag, no dialog, no login.
import type { Door, PushRoute } from '../push-contract.js';
import { CLAUDE_NO_SOCKET, pushedText } from '../texts.js';
import { isClient } from './clients.js';
import { writeSocketLines } from './socket-lines.js';

const WHAT = "Claude Code's messaging socket";

/**
 * One connection per message writes two JSON lines: `{"type":"auth","token":…}`, then
 * `{"type":"user","message":{"role":"user","content":…},"msg_id":…,"priority":"next"}`. `next`
 * wakes an idle session, and during a turn the text comes after the current tool result; `now`
 * would cancel the tool call in flight (papo's own `wait` included), so it is never sent. Claude
 * Code says "Another Claude session sent a message" around the text, so papo's own frame is in it
 * (texts.ts, `pushedText`). The token is never logged.
 */
export function claudeSessionRoute(socketPath: string, token: string): PushRoute {
  return {
    kind: 'claude-session',
    push: (msg) =>
      writeSocketLines(
        socketPath,
        [
          { type: 'auth', token },
          {
            type: 'user',
            message: { role: 'user', content: pushedText(msg, 'claude-session') },
            msg_id: `papo-${msg.id}`,
            priority: 'next',
          },
        ],
        WHAT,
      ),
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
