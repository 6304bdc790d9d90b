// How a pushed message reaches the model: one route per `papo mcp` session, chosen at start and
// said in `status` (ADR 0118). The pump (channel-pump.ts) decides *which* messages are pushed and
// when (only what the review gate released, never one a `wait` in flight takes, the evidence of
// ADR 0066); a route only carries one message into the client. A route that fails hands over to
// the fallback (channel events, as before: they reach the model only when channels are on), and
// the failure is said on stderr and in `status`, never silently.
//
// The routes, in the order they are chosen:
// - `channel`: `notifications/claude/channel` (Claude Code with the channels flag). Chosen when
//   Claude Code was started with papo's channel (its command line names it), because then a
//   message through the session socket as well would reach the model twice.
// - `claude-session`: Claude Code's own session messaging (2.1.332 gives its MCP stdio children
//   CLAUDE_CODE_MESSAGING_SOCKET and CLAUDE_CODE_MESSAGING_TOKEN; no flag, no dialog).
// - otherwise `channel` unconfirmed: what papo did before this route existed; the agent pulls with
//   `wait`, and channel events that Claude Code drops cost nothing.
// Another client's door (Qwen Code's Cross-Session Protocol, `codex queue`) is one more
// `PushRoute` and one more case in `choosePushRoute`.

import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { messageOf } from '../client/errors.js';
import { CHANNEL_METHOD, channelParams } from './channel-pump.js';
import type { PushRoute, RouteChoice } from './push-contract.js';
import { pushedText } from './texts.js';

export type { PushRoute, PushRouteKind, RouteChoice, SessionOffReason } from './push-contract.js';

/** The channel route: a notification on stdout, which cannot fail from papo's side. */
export function channelRoute(notify: (method: string, params: unknown) => void): PushRoute {
  return {
    kind: 'channel',
    push: (msg) => {
      notify(CHANNEL_METHOD, channelParams(msg));
      return Promise.resolve();
    },
  };
}

/** How long one message may take to be written to Claude Code's socket. */
export const SESSION_PUSH_TIMEOUT_MS = 5000;

/**
 * Claude Code's session messaging (2.1.332, read in its code and measured: ADR 0118). One
 * connection per message writes two JSON lines: `{"type":"auth","token":…}`, then
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
      new Promise<void>((resolve, reject) => {
        const lines = [
          { type: 'auth', token },
          {
            type: 'user',
            message: { role: 'user', content: pushedText(msg) },
            msg_id: `papo-${msg.id}`,
            priority: 'next',
          },
        ]
          .map((l) => `${JSON.stringify(l)}\n`)
          .join('');
        let settled = false;
        const done = (err?: Error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          socket.destroy();
          if (err === undefined) resolve();
          else reject(err);
        };
        const socket = createConnection({ path: socketPath });
        const timer = setTimeout(
          () => done(new Error(`no answer from the socket within ${SESSION_PUSH_TIMEOUT_MS} ms`)),
          SESSION_PUSH_TIMEOUT_MS,
        );
        socket.on('error', (err) => done(new Error(socketError(err))));
        socket.on('connect', () => {
          // Written and ended: Claude Code reads the lines and closes its side.
          socket.end(lines, () => done());
        });
      }),
  };
}

/** A socket error without the path's secrets (there are none) or the token (never in it). */
function socketError(err: Error & { code?: string }): string {
  if (err.code === 'ENOENT') return "Claude Code's messaging socket is gone (ENOENT)";
  if (err.code === 'ECONNREFUSED') return "Claude Code's messaging socket refused the connection";
  return messageOf(err);
}

/** How many processes up papo looks for the Claude Code that started it (a wrapper or two between). */
const ANCESTORS_LOOKED_AT = 6;

/**
 * The command lines of papo's ancestors, nearest first (Linux: /proc; elsewhere none, and papo
 * cannot tell that channels were asked for).
 */
export function ancestorCommandLines(pid = process.ppid): string[][] {
  const lines: string[][] = [];
  let current = pid;
  for (let i = 0; i < ANCESTORS_LOOKED_AT && current > 1; i++) {
    try {
      lines.push(readFileSync(`/proc/${current}/cmdline`, 'utf8').split('\0').filter(Boolean));
      const stat = readFileSync(`/proc/${current}/stat`, 'utf8');
      // The second field, the command's name in parentheses, may hold spaces: read after its end.
      current = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      break;
    }
  }
  return lines;
}

/**
 * Was Claude Code started with papo's channel? `--channels` or
 * `--dangerously-load-development-channels` followed by `server:papo` or `plugin:papo@…` (Claude
 * Code takes several servers after one flag, and `--flag=value`).
 */
export function channelsAskedFor(commandLines: string[][]): boolean {
  const flag = /^--(?:dangerously-load-development-channels|channels)(?:=(.*))?$/;
  const papo = /^(?:server:papo|plugin:papo@\S+)$/;
  for (const args of commandLines) {
    for (let i = 0; i < args.length; i++) {
      const m = flag.exec(args[i] as string);
      if (m === null) continue;
      const values = m[1] !== undefined ? [m[1]] : [];
      for (let j = i + 1; m[1] === undefined && j < args.length && !(args[j] as string).startsWith('-'); j++)
        values.push(args[j] as string);
      if (values.flatMap((v) => v.split(/[\s,]+/)).some((v) => papo.test(v))) return true;
    }
  }
  return false;
}

/** Chooses this session's route (module comment: the order, and why). */
export function choosePushRoute(
  env: NodeJS.ProcessEnv,
  notify: (method: string, params: unknown) => void,
  commandLines: () => string[][] = ancestorCommandLines,
): RouteChoice {
  const channel = channelRoute(notify);
  const channelsAsked = channelsAskedFor(commandLines());
  const socket = env.CLAUDE_CODE_MESSAGING_SOCKET;
  const token = env.CLAUDE_CODE_MESSAGING_TOKEN;
  if (socket === undefined || socket === '' || token === undefined || token === '')
    return { route: channel, channelsAsked, sessionOff: { why: 'no-socket' } };
  if (channelsAsked) return { route: channel, channelsAsked, sessionOff: { why: 'channels' } };
  return { route: claudeSessionRoute(socket, token), channelsAsked };
}
