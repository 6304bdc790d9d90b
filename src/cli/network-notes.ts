// What `papo status` and `papo say` tell a person about the network (docs/transport.md, "Network
// health"): the signal server unreachable or refusing, members on it that no path reaches, a room
// that meets on this machine only, this command's own transport process in trouble, the agent's
// transport restarts, a PAPO_RELAY this papo does not read, and (for status) impostors the agent refused.
import { shortId } from '../client/log.js';
import type { MemberStatus, NetworkHealth } from '../client/member-api.js';
import { NO_PATH_AFTER_MS, noPathSummary } from '../client/net/health.js';
import { papoRelaySet } from '../client/net/ice-config.js';
import type { OpenedMember } from '../client/open-member.js';
import { readAgentTransportRecord, readProfileLogTail } from '../client/store/profile-store.js';
import { inertText } from '../client/wire/inert-text.js';
import { isLoopbackSignalUrl } from '../client/wire/signal-url.js';
import type { Messages } from './i18n.js';

/** Lines about this command's own view of the network; empty when all is well. */
export async function networkNotes(
  t: Messages,
  opened: OpenedMember,
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  // This command runs under its own identity: the person's own agent is a member to it too.
  const own = { node: opened.profile.identity.nodeId, name: t.yourAgent, online: false };
  return networkNotesOf(t, await opened.member.network(), opened.member.members(), env, own);
}

/**
 * The same lines from a member's network and the members it knows (a say handed to the running
 * papo mcp brings back its view: ADR 0102); `own`, the person's agent when the view is another's.
 */
export function networkNotesOf(
  t: Messages,
  health: NetworkHealth,
  members: readonly MemberStatus[],
  env: NodeJS.ProcessEnv,
  own?: { node: string; name: string; online: boolean },
): string[] {
  const lines = networkProblemsOf(t, health, members, own);
  if (isLoopbackSignalUrl(health.signalUrl) && members.length === 0) {
    lines.push(t.localOnlyRoom(health.signalUrl));
  }
  if (papoRelaySet(env)) lines.push(t.papoRelayNote);
  return lines;
}

/**
 * What keeps a member's room from working, as it sees it: its network process in trouble, the
 * signal server refusing or out of reach, members on the topic with no path. `papo status` prints
 * these lines, and `papo doctor` fails its `room` check with the same ones when the running papo mcp
 * sees them (issue 40: the two agree).
 */
export function networkProblemsOf(
  t: Messages,
  health: NetworkHealth,
  members: readonly MemberStatus[],
  own?: { node: string; name: string; online: boolean },
): string[] {
  const lines: string[] = [];
  const transport = health.transport;
  if (transport.state === 'restarting' || transport.state === 'unresponsive') {
    lines.push(t.transportTrouble(transport.lastRestart?.why ?? 'stopped answering', transport.restarts));
  }
  const problem = health.signal.problem;
  if (!health.signal.joined && problem !== undefined) {
    // The detail is the signal server's own words: escaped like room text (ADR 0059).
    lines.push(t.signalProblem(problem.code, health.signalUrl, inertText(problem.detail, 'line')));
  }
  const noPath = noPathSummary(health.signal, own ? [...members, own] : [...members]);
  if (noPath !== undefined) {
    lines.push(
      t.noPath(
        noPath.names,
        noPath.others,
        health.signalUrl,
        Math.round(NO_PATH_AFTER_MS / 1000),
        noPath.reason,
        noPath.source,
      ),
    );
  }
  return lines;
}

/**
 * The running agent's (papo mcp's) transport restarts, as it recorded them; undefined when none,
 * or when the papo mcp that recorded them is no longer running (an earlier session's news).
 */
export async function agentRestartNote(t: Messages, profileDir: string): Promise<string | undefined> {
  const record = await readAgentTransportRecord(profileDir);
  if (record === undefined) return undefined;
  const when = new Date(record.at).toLocaleString();
  return t.agentTransportRestarts(record.restarts, when, record.why.slice(0, 200));
}

/**
 * Impostors the agent refused in the last day (ADR 0064): keys that claimed a name another key
 * holds. Read from the `impostor` lines of log.jsonl, which papo mcp writes.
 */
export async function impostorNotes(t: Messages, profileDir: string, now = Date.now()): Promise<string[]> {
  const entries = await readProfileLogTail(profileDir, 500);
  const seen = new Map<string, string>();
  for (const e of entries) {
    if (e.ev !== 'impostor' || now - e.ts > 24 * 3600_000) continue;
    seen.set(`${e.name} ${e.kind} ${e.node}`, t.impostorNote(e.name, e.kind, shortId(e.node)));
  }
  return [...seen.values()];
}
