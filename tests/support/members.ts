// Real room members for the NAT lab, chaos and attack scenarios: `papo new` / `papo join` through
// the built CLI, and `papo mcp` processes (mcp-process.ts) — optionally inside a network namespace
// of the NAT lab (`ip netns exec <ns> node dist/src/cli/main.js mcp`).
import { makeTempDir } from './files.js';
import { type McpProcess, spawnMcp } from './mcp-process.js';
import { cliRoom } from './papo.js';
import { waitFor } from './wait.js';

/** Base environment of a member: its own home, English texts, no inherited PAPO_* settings. */
export function memberEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, PAPO_HOME: home, LANG: 'C', NO_COLOR: '1', ...extra };
}

export interface RoomSetup {
  invite: string;
  homes: string[];
  names: string[];
}

/**
 * `papo new` in the first home, `papo join <invite>` in the others: a temporary home each
 * (papo-<label>-...), which the caller removes once its members are gone (`homes`).
 */
export async function makeRoom(signalUrl: string, names: string[], label = 'room'): Promise<RoomSetup> {
  const homes = names.map(() => makeTempDir(`papo-${label}-`));
  const { invite } = await cliRoom(
    signalUrl,
    names.map((name, i) => ({ name, env: memberEnv(homes[i] as string) })),
  );
  return { invite, homes, names };
}

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
    env: memberEnv(home, options.env),
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

/** Polls `status` until `peer` is online with a direct or relay link; returns the path. */
export async function waitLinked(member: Member, peer: string, timeoutMs = 100_000): Promise<string> {
  let last = '';
  return waitFor(
    `${member.name} linked to ${peer}`,
    async () => {
      last = await member.status();
      const link = linkOf(last, peer);
      return link === 'direct' || link === 'relay' ? link : '';
    },
    { timeoutMs, intervalMs: 300, last: () => last },
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
