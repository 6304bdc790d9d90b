// Real room members for the lab, chaos and attack scenarios: `papo new` / `papo join` through the
// built CLI, and `papo mcp` processes driven over stdio with McpStdioClient — optionally inside a
// network namespace of the NAT lab (`ip netns exec <ns> node dist/src/cli/main.js mcp`).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpStdioClient, toolText } from '../../src/cli/stdio-client.js';
import { type ChildRun, runChild } from '../support/run-child.js';

export const PAPO_BIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `papo-${label}-`));
}

/** Base environment of a member: its own home, English texts, no inherited PAPO_* settings. */
export function memberEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, PAPO_HOME: home, LANG: 'C', NO_COLOR: '1', ...extra };
}

/** Runs the papo CLI to completion (in a namespace when `ns` is given). */
export function papo(args: string[], env: NodeJS.ProcessEnv, ns?: string): Promise<ChildRun> {
  return ns
    ? runChild('ip', ['netns', 'exec', ns, process.execPath, PAPO_BIN, ...args], { env, timeoutMs: 30_000 })
    : runChild(process.execPath, [PAPO_BIN, ...args], { env, timeoutMs: 30_000 });
}

export interface RoomSetup {
  invite: string;
  homes: string[];
  names: string[];
}

/** `papo new` in the first home, `papo join <invite>` in the others. */
export async function makeRoom(signalUrl: string, names: string[], label = 'room'): Promise<RoomSetup> {
  const homes = names.map(() => tempDir(label));
  const created = await papo(
    ['new', '--name', names[0] as string, '--signal', signalUrl],
    memberEnv(homes[0] as string),
  );
  if (created.code !== 0) throw new Error(`papo new failed: ${created.stderr}`);
  const invite = /papo1[a-z2-7]+/.exec(created.stdout)?.[0];
  if (!invite) throw new Error(`no invite in the output of papo new: ${created.stdout}`);
  for (const [i, name] of names.entries()) {
    if (i === 0) continue;
    const joined = await papo(['join', invite, '--name', name], memberEnv(homes[i] as string));
    if (joined.code !== 0) throw new Error(`papo join failed: ${joined.stderr}`);
  }
  return { invite, homes, names };
}

export interface Member {
  name: string;
  home: string;
  /** The MCP client of the process. */
  readonly client: McpStdioClient;
  stderr(): string;
  status(): Promise<string>;
  send(message: string, extra?: Record<string, unknown>): Promise<string>;
  /** The papo mcp process (its transport process is a child of it). */
  readonly pid: number;
  /** Kill -9 (chaos) or close by EOF. */
  kill(): Promise<void>;
  close(): Promise<void>;
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
  const env = memberEnv(home, options.env);
  const spawnOne = async () => {
    const client = options.ns
      ? new McpStdioClient('ip', ['netns', 'exec', options.ns, process.execPath, PAPO_BIN, 'mcp'], {
          env,
          cwd: home,
        })
      : new McpStdioClient(process.execPath, [PAPO_BIN, 'mcp'], { env, cwd: home });
    let err = '';
    client.child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
      if (err.length > 200_000) err = err.slice(-100_000);
    });
    client.child.stdin.on('error', () => {});
    const exited = new Promise<void>((resolve) => {
      if (client.child.exitCode !== null || client.child.signalCode !== null) resolve();
      else client.child.once('exit', () => resolve());
    });
    await client.initialize();
    return { client, err: () => err, exited };
  };
  const proc = await spawnOne();
  const running = () => proc.client.child.exitCode === null && proc.client.child.signalCode === null;
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<string> =>
    toolText(await proc.client.callTool(tool, args));
  return {
    name,
    home,
    client: proc.client,
    pid: proc.client.child.pid as number,
    stderr: () => proc.err(),
    status: () => call('status'),
    send: (message, extra = {}) => call('send', { message, ...extra }),
    async kill() {
      if (running()) proc.client.child.kill('SIGKILL');
      await proc.exited;
    },
    async close() {
      if (running()) await proc.client.close();
    },
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
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = await member.status();
    const link = linkOf(last, peer);
    if (link === 'direct' || link === 'relay') return link;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${member.name} not linked to ${peer} within ${timeoutMs} ms; last status:\n${last}`);
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
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = await member.status();
    if (linkOf(last, peer) === path) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `${member.name}'s link to ${peer} is not ${path} within ${timeoutMs} ms; last status:\n${last}`,
  );
}

/** Calls `wait` until a message whose body contains `needle` arrives; returns the whole text. */
export async function waitFor(member: Member, needle: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let seen = '';
  while (Date.now() < deadline) {
    const left = Math.max(1, Math.min(10, Math.ceil((deadline - Date.now()) / 1000)));
    const text = toolText(await member.client.callTool('wait', { timeout_seconds: left }));
    seen += `${text}\n`;
    if (text.includes(needle)) return text;
  }
  throw new Error(
    `${member.name} did not receive "${needle}" within ${timeoutMs} ms; got:\n${seen.slice(-2000)}`,
  );
}

/** The msg_id in a send/wait text. */
export function msgIdOf(text: string): string | null {
  return /msg_id[ =]([0-9a-f]{10})/.exec(text)?.[1] ?? null;
}
