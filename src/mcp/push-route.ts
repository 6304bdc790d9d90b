// How a pushed message reaches the model: one route per `papo mcp` session, chosen at its first
// use and said in `status` (ADR 0118). The pump (channel-pump.ts) decides *which* messages are
// pushed and when (only what the review gate released, never one a `wait` in flight takes, the
// evidence of ADR 0066); a route only carries one message into the client. A route that fails hands
// over to the fallback (channel events, as before: they reach the model only when channels are on),
// and the failure is said on stderr and in `status`, never silently.
//
// The routes, in the order they are chosen:
// - `channel`: `notifications/claude/channel` (Claude Code with the channels flag). Chosen when
//   Claude Code was started with papo's channel (its command line names it), because then a
//   message through its session socket as well would reach the model twice.
// - the client's own door (push-doors/): Claude Code's session messages, Qwen Code's
//   Cross-Session Protocol, `codex queue`. Each door looks at papo's environment and ancestors and
//   says whether papo runs under its client; the first that does is the client's. PAPO_PUSH=pull
//   keeps the door shut (the person's choice: a Codex turn reads as typed by them, for one).
// - otherwise `channel` unconfirmed: what papo did before the doors; the agent pulls with `wait`,
//   and channel events that the client drops cost nothing.

import { readFileSync } from 'node:fs';
import { CHANNEL_METHOD, channelParams } from './channel-pump.js';
import type {
  Ancestor,
  Door,
  DoorContext,
  DoorFound,
  DoorKind,
  PushRoute,
  RouteChoice,
} from './push-contract.js';
import { claudeDoor } from './push-doors/claude-session.js';
import { isClient } from './push-doors/clients.js';
import { codexDoor } from './push-doors/codex-queue.js';
import { qwenDoor } from './push-doors/qwen-session.js';
import { PUSH_SHUT } from './texts.js';

export type { Ancestor, PushRoute, PushRouteKind, RouteChoice } from './push-contract.js';
export { claudeSessionRoute } from './push-doors/claude-session.js';
export { SESSION_PUSH_TIMEOUT_MS } from './push-doors/socket-lines.js';

/** The clients' doors, in the order they are looked for. */
export const DOORS: readonly Door[] = [claudeDoor, qwenDoor, codexDoor];

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

/** How many processes up papo looks for the Claude Code that started it (a wrapper or two between). */
const ANCESTORS_LOOKED_AT = 6;

/**
 * papo's ancestors, nearest first: each one's process id and command line (Linux: /proc; elsewhere
 * none, and papo cannot tell that channels were asked for, nor find Codex's thread).
 */
export function ancestors(pid = process.ppid): Ancestor[] {
  const found: Ancestor[] = [];
  let current = pid;
  for (let i = 0; i < ANCESTORS_LOOKED_AT && current > 1; i++) {
    try {
      found.push({
        pid: current,
        args: readFileSync(`/proc/${current}/cmdline`, 'utf8').split('\0').filter(Boolean),
      });
      const stat = readFileSync(`/proc/${current}/stat`, 'utf8');
      // The second field, the command's name in parentheses, may hold spaces: read after its end.
      current = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      break;
    }
  }
  return found;
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
  readAncestors: () => Ancestor[] = ancestors,
  doors: readonly Door[] = DOORS,
): RouteChoice {
  const channel = channelRoute(notify);
  let seen: Ancestor[] | undefined;
  const ctx: DoorContext = {
    env,
    ancestors: () => {
      seen ??= readAncestors();
      return seen;
    },
  };
  const channelsAsked = channelsAskedFor(ctx.ancestors().map((a) => a.args));
  // The person may keep every door shut (PAPO_PUSH=pull): the agent then reads with `wait`.
  const shut = env.PAPO_PUSH?.trim().toLowerCase() === 'pull';
  // The doors found, nearest client first: papo may run under a client started from another's
  // shell, which passes its variables down (CLAUDECODE=1, even Claude Code's socket), and the door
  // is the client's that started papo. Then an open door before one known closed, then DOORS' order.
  const ancestry = ctx.ancestors();
  const nearness = (kind: DoorKind) => {
    const i = ancestry.findIndex((a) => isClient(kind, a.args));
    return i === -1 ? Number.POSITIVE_INFINITY : i;
  };
  const found = doors
    .map((door, order) => ({ found: door(ctx), order }))
    .filter((d): d is { found: DoorFound; order: number } => d.found !== undefined)
    .map((d) => ({ ...d, near: nearness(d.found.kind), open: 'route' in d.found ? 0 : 1 }))
    .sort((a, b) => a.near - b.near || a.open - b.open || a.order - b.order)[0]?.found;
  if (found === undefined) return { route: channel, channelsAsked };
  if ('off' in found) return { route: channel, channelsAsked, door: found.kind, doorOff: found.off };
  if (shut && !channelsAsked)
    return { route: channel, channelsAsked, door: found.kind, doorOff: { why: 'closed', detail: PUSH_SHUT } };
  if (channelsAsked) return { route: channel, channelsAsked, door: found.kind, doorOff: { why: 'channels' } };
  return { route: found.route, channelsAsked, door: found.kind };
}
