// Shared pieces of the room-member integration tests: temporary rooms (one PAPO_HOME per member),
// in-process members over real node-datachannel links, `papo mcp` child processes driven over stdio,
// and a polling wait. Every helper registers its own cleanup on the test context.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpStdioClient, type ToolResult, toolText } from '../../src/cli/stdio-client.js';
import type { Envelope, LogEntry } from '../../src/client/messages.js';
import { type OpenedMember, openMember } from '../../src/client/open-member.js';
import { disableNativeCleanup } from '../../src/client/peer-link.js';
import { createProfile, type Profile } from '../../src/client/profile-store.js';
import { generateSecret } from '../../src/client/room-crypto.js';
import { CHANNEL_METHOD } from '../../src/mcp/channel-pump.js';
import { type SignalServerHandle, startSignalServer } from '../../src/signal-server/server.js';

export { freePort } from '../../src/cli/free-port.js';

export const PAPO_BIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

// node-datachannel's cleanup() normally runs (from releaseNative) when the last link user of the
// process closes. In this test process, run from a member's close inside t.after, it timed out
// ("cleanup timeout (possible deadlock)", the event loop blocked for 10 s) and then left the file's
// process unable to exit. Without it the process exits once its links are closed, so the tests skip
// it; tests/node/lifecycle.test.ts checks the production default in a child process of its own.
disableNativeCleanup();

export interface Ctx {
  after: (fn: () => unknown) => void;
}

export function tempDir(t: Ctx, prefix = 'papo-node-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A signal server of its own on port 0 (or `port`), closed after the test. */
export async function signalServer(
  t: Ctx,
  options: { port?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<SignalServerHandle> {
  const server = await startSignalServer({
    host: '127.0.0.1',
    port: options.port ?? 0,
    env: options.env ?? {},
  });
  t.after(() => server.close());
  return server;
}

export interface RoomMemberHome {
  /** The PAPO_HOME of this member (profile "default"). */
  home: string;
  profile: Profile;
}

/** One room: a fresh secret, and a profile named `name` in its own temporary home for each name. */
export async function makeRoom<N extends string>(
  t: Ctx,
  names: readonly N[],
  signalUrl: string,
): Promise<{ secret: Uint8Array; members: Record<N, RoomMemberHome> }> {
  const secret = generateSecret();
  const members = {} as Record<N, RoomMemberHome>;
  for (const name of names) {
    const home = tempDir(t, `papo-node-${name.toLowerCase()}-`);
    const { profile } = await createProfile({
      home,
      profile: 'default',
      name,
      secret,
      signalUrl,
      force: false,
    });
    members[name] = { home, profile };
  }
  return { secret, members };
}

/** Test environment: no PAPO_* of the caller, loopback-friendly ICE (no STUN lookups). */
export function memberEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PAPO_')) env[k] = v;
  env.LANG = 'C';
  // No STUN server: on loopback the host candidates are all a link needs, and there is no network.
  env.PAPO_ICE_SERVERS = '[]';
  return { ...env, ...extra };
}

/** An in-process agent member, closed after the test (closing twice is harmless). */
export async function openAgent(
  t: Ctx,
  member: RoomMemberHome,
  env: NodeJS.ProcessEnv = memberEnv(),
  about?: string,
): Promise<OpenedMember> {
  const opened = await openMember({
    home: member.home,
    profile: 'default',
    env,
    mode: 'agent',
    ...(about !== undefined ? { about } : {}),
  });
  t.after(() => opened.member.close());
  return opened;
}

/** Polls `check` every 25 ms until it returns a truthy value; rejects after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 15_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** True while `a` has an open data channel to the member whose node id is `nodeId`. */
export function linkedTo(a: OpenedMember, nodeId: string): boolean {
  return a.probe.neighbours().includes(nodeId);
}

/** Waits until every pair of these in-process members holds an open link. */
export async function waitLinked(members: OpenedMember[], timeoutMs = 20_000): Promise<void> {
  await waitFor(
    'every member linked',
    () => members.every((a) => members.every((b) => a === b || linkedTo(a, b.member.nodeId))),
    timeoutMs,
  );
}

/** Collects the `message` events of a member. */
export function inboxEvents(opened: OpenedMember): Envelope[] {
  const seen: Envelope[] = [];
  opened.member.on('message', (m) => seen.push(m));
  return seen;
}

// ---- papo mcp child processes ------------------------------------------------------------------

export interface McpMember {
  client: McpStdioClient;
  pid: number;
  stderr: () => string;
  exited: Promise<void>;
}

/** Starts `papo mcp` for a home and initializes the session (which opens the member). */
export async function spawnMcp(
  t: Ctx,
  home: string,
  env: NodeJS.ProcessEnv = memberEnv(),
): Promise<McpMember> {
  const client = new McpStdioClient(process.execPath, [PAPO_BIN, 'mcp', '--about', 'tests'], {
    env: { ...env, PAPO_HOME: home, PAPO_LOG: env.PAPO_LOG ?? 'info' },
    cwd: home,
  });
  let err = '';
  client.child.stderr.setEncoding('utf8');
  client.child.stderr.on('data', (c: string) => {
    err += c;
  });
  client.child.stdin.on('error', () => {});
  const exited = new Promise<void>((resolve) => {
    if (client.child.exitCode !== null || client.child.signalCode !== null) resolve();
    else client.child.once('exit', () => resolve());
  });
  t.after(async () => {
    if (client.child.exitCode === null && client.child.signalCode === null) {
      client.child.kill('SIGKILL');
      await exited;
    }
  });
  await client.initialize();
  return { client, pid: client.child.pid as number, stderr: () => err, exited };
}

/** kill -9, and wait until the process is gone. */
export async function kill9(member: McpMember): Promise<void> {
  const child = member.client.child;
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await member.exited;
}

export async function tool(
  member: McpMember,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const result: ToolResult = await member.client.callTool(name, args);
  return toolText(result);
}

/** Waits until the member's `status` tool shows `name` online; returns the status text. */
export async function waitOnline(member: McpMember, name: string, timeoutMs = 20_000): Promise<string> {
  const line = new RegExp(`^- ${name} \\([a-z]+\\): online`, 'm');
  let last = '';
  try {
    return await waitFor(
      `${name} online`,
      async () => {
        last = await tool(member, 'status');
        return line.test(last) ? last : '';
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(
      `${(err as Error).message}; last status:\n${last}\nstderr:\n${member.stderr().slice(-2000)}`,
    );
  }
}

/** The parsed JSON of a profile file (inbox.json, outbox.json...), or `fallback` when absent. */
export function readProfileJson<T>(member: RoomMemberHome, file: string, fallback: T): T {
  try {
    return JSON.parse(readFileSync(join(member.profile.dir, file), 'utf8')) as T;
  } catch {
    return fallback;
  }
}

/** The entries of a member's log.jsonl (none when there is no log yet). */
export function readProfileLog(member: RoomMemberHome): LogEntry[] {
  let text: string;
  try {
    text = readFileSync(join(member.profile.dir, 'log.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LogEntry);
}

/** The channel pushes a member's `papo mcp` wrote so far (their params). */
export function channelPushes(member: McpMember): Record<string, unknown>[] {
  return member.client.notifications
    .filter((n) => n.method === CHANNEL_METHOD)
    .map((n) => (n.params ?? {}) as Record<string, unknown>);
}

/** The msg_id of each push so far, in order. */
export function pushedIds(member: McpMember): string[] {
  return channelPushes(member).map((p) => String((p.meta as Record<string, unknown> | undefined)?.msg_id));
}

/** The ids of the messages in a member's inbox/ folder, oldest first. */
export function inboxIdsOnDisk(member: RoomMemberHome): string[] {
  try {
    return readdirSync(join(member.profile.dir, 'inbox'))
      .filter((f) => /^\d{10}-[0-9a-f]{10}\.json$/.test(f))
      .sort()
      .map(
        (f) => (JSON.parse(readFileSync(join(member.profile.dir, 'inbox', f), 'utf8')) as { id: string }).id,
      );
  } catch {
    return [];
  }
}

/** The ids of the `msg_id` mentioned in a tool text, in order. */
export function msgIdIn(text: string): string {
  const m = /msg_id ([0-9a-f]{10})/.exec(text);
  if (!m?.[1]) throw new Error(`no msg_id in: ${text}`);
  return m[1];
}
