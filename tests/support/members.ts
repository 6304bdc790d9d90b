// Room members at work, for the NAT lab, chaos and attack scenarios: `papo mcp` processes
// (mcp-process.ts) in the homes of a room (makeRoom in room.ts), optionally inside a network
// namespace of the NAT lab (`ip netns exec <ns> node dist/src/cli/main.js mcp`); and the wait for a
// link, between those or between in-process members (openMember).
import type { OpenedMember } from '../../src/client/open-member.js';
import { type McpProcess, spawnMcp } from './mcp-process.js';
import { memberEnv } from './papo.js';
import { waitFor } from './wait.js';

export interface Member extends McpProcess {
  name: string;
  status(): Promise<string>;
  send(message: string, extra?: Record<string, unknown>): Promise<string>;
}

/**
 * Starts `papo mcp` for `home` (inside `ns` when given) and initializes the MCP session. (A
 * relayed handshake that deadlocks libdatachannel, ADR 0055, freezes only papo's transport
 * process, which papo mcp replaces by itself: ADR 0057.)
 */
export async function startMember(
  name: string,
  home: string,
  options: { ns?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Member> {
  const proc = spawnMcp({
    home,
    // In a namespace of the NAT lab the member takes its STUN and TURN servers from the signal
    // server's welcome; HOME is the member's own, so nothing of the caller's agent settings shows.
    env: memberEnv({ HOME: home, ...(options.ns ? { PAPO_ICE_SERVERS: undefined } : {}), ...options.env }),
    ...(options.ns ? { wrap: ['ip', 'netns', 'exec', options.ns] } : {}),
    stderrLimit: 200_000,
    keepLines: 10_000,
  });
  await proc.client.initialize();
  return {
    ...proc,
    name,
    status: () => proc.tool('status'),
    send: (message, extra = {}) => proc.tool('send', { message, ...extra }),
  };
}

/** The `link:` of `peer` in a status text: 'direct', 'relay', another text, or null when offline/absent. */
export function linkOf(status: string, peer: string): string | null {
  const line = status.split('\n').find((l) => l.startsWith(`- ${peer} (`));
  if (!line?.includes(': online')) return null;
  return /link: (.+)$/.exec(line)?.[1] ?? null;
}

/** True while `a` has an open data channel to the member whose node id is `nodeId`. */
export function linkedTo(a: OpenedMember, nodeId: string): boolean {
  return a.probe.neighbours().includes(nodeId);
}

/**
 * Waits until two members are linked: two in-process members until each holds an open data
 * channel to the other (default 20 s); a `papo mcp` member until its `status` shows the member
 * named `peer` online with a direct or relay link (default 100 s), and returns that path.
 */
export function waitLinked(a: OpenedMember, b: OpenedMember, timeoutMs?: number): Promise<undefined>;
export function waitLinked(member: Member, peer: string, timeoutMs?: number): Promise<string>;
export async function waitLinked(
  a: OpenedMember | Member,
  b: OpenedMember | string,
  timeoutMs?: number,
): Promise<string | undefined> {
  if (typeof b !== 'string') {
    const one = a as OpenedMember;
    await waitFor(
      'the two members linked',
      () => linkedTo(one, b.member.nodeId) && linkedTo(b, one.member.nodeId),
      timeoutMs ?? 20_000,
    );
    return undefined;
  }
  const member = a as Member;
  let last = '';
  return waitFor(
    `${member.name} linked to ${b}`,
    async () => {
      last = await member.status();
      const link = linkOf(last, b);
      return link === 'direct' || link === 'relay' ? link : '';
    },
    { timeoutMs: timeoutMs ?? 100_000, intervalMs: 300, last: () => last },
  );
}

/**
 * Polls `status` until the link to `peer` is `path`. ICE may first select a relay pair and move to
 * a direct one a moment later (seen in the lab: relay for about 200 ms, then direct), so a path is
 * judged once it has settled, not at the first sight of a link.
 */
export async function waitPath(
  member: Member,
  peer: string,
  path: 'direct' | 'relay',
  timeoutMs = 100_000,
): Promise<void> {
  let last = '';
  await waitFor(
    `${member.name}'s link to ${peer} to be ${path}`,
    async () => {
      last = await member.status();
      return linkOf(last, peer) === path;
    },
    { timeoutMs, intervalMs: 200, last: () => last },
  );
}

/** Calls `wait` until a message whose body contains `needle` arrives; returns the whole text. */
export async function waitMessage(member: Member, needle: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let seen = '';
  // `wait` itself blocks until a message comes (up to its timeout): no pause between the calls.
  return waitFor(
    `${member.name} to receive "${needle}"`,
    async () => {
      const left = Math.max(1, Math.min(10, Math.ceil((deadline - Date.now()) / 1000)));
      const text = await member.tool('wait', { timeout_seconds: left });
      seen += `${text}\n`;
      return text.includes(needle) ? text : '';
    },
    { timeoutMs, intervalMs: 0, last: () => seen.slice(-2000) },
  );
}
