// Shared pieces of the room-member integration tests, for the rooms of tests/support/room.ts
// (makeRoom): in-process members over real node-datachannel links, `papo mcp` child processes (the
// driver of tests/support/mcp-process.ts) started for a member, and what a member's profile holds.
// Every helper registers its own cleanup on the test context.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { disableNativeCleanup } from '../../src/client/net/peer-link.js';
import { type OpenedMember, openMember } from '../../src/client/open-member.js';
import type { Envelope, LogEntry } from '../../src/client/wire/messages.js';
import { type SignalServerHandle, startSignalServer } from '../../src/signal-server/server.js';
import type { Hooks } from '../support/files.js';
import { type McpProcess, spawnMcp } from '../support/mcp-process.js';
import { memberEnv } from '../support/papo.js';
import { channelPushes, type MemberHome } from '../support/room.js';
import { waitFor } from '../support/wait.js';

// node-datachannel's cleanup() normally runs (from releaseNative) when the last link user of the
// process closes. In this test process, run from a member's close inside t.after, it timed out
// ("cleanup timeout (possible deadlock)", the event loop blocked for 10 s) and then left the file's
// process unable to exit. Without it the process exits once its links are closed, so the tests skip
// it; tests/member/lifecycle.test.ts checks the production default in a child process of its own.
disableNativeCleanup();

/** A signal server of its own on port 0 (or `port`), closed after the test. */
export async function signalServer(
  t: Hooks,
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

/** An in-process agent member, closed after the test (closing twice is harmless). */
export async function openAgent(
  t: Hooks,
  member: MemberHome,
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

/** Collects the `message` events of a member. */
export function inboxEvents(opened: OpenedMember): Envelope[] {
  const seen: Envelope[] = [];
  opened.member.on('message', (m) => seen.push(m));
  return seen;
}

// ---- papo mcp child processes ------------------------------------------------------------------

/**
 * Starts `papo mcp --about tests` for a home (tests/support/mcp-process.ts) and initializes the
 * session (which opens the member); killed after the test.
 */
export async function startMcp(
  t: Hooks,
  home: string,
  env: NodeJS.ProcessEnv = memberEnv(),
): Promise<McpProcess> {
  const mcp = spawnMcp({
    home,
    args: ['--about', 'tests'],
    env: { ...env, PAPO_LOG: env.PAPO_LOG ?? 'info' },
  });
  t.after(() => mcp.kill());
  await mcp.client.initialize();
  return mcp;
}

/** Waits until the member's `status` tool shows `name` online; returns the status text. */
export async function waitOnline(member: McpProcess, name: string, timeoutMs = 20_000): Promise<string> {
  const line = new RegExp(`^- ${name} \\([a-z]+\\): online`, 'm');
  let last = '';
  return waitFor(
    `${name} online`,
    async () => {
      last = await member.tool('status');
      return line.test(last) ? last : '';
    },
    { timeoutMs, last: () => `${last}\nstderr:\n${member.stderr().slice(-2000)}` },
  );
}

/** The parsed JSON of a profile file (inbox.json, outbox.json...), or `fallback` when absent. */
export function readProfileJson<T>(member: MemberHome, file: string, fallback: T): T {
  try {
    return JSON.parse(readFileSync(join(member.profile.dir, file), 'utf8')) as T;
  } catch {
    return fallback;
  }
}

/** The entries of a member's log.jsonl (none when there is no log yet). */
export function readProfileLog(member: MemberHome): LogEntry[] {
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

/** The msg_id of each channel push the member's `papo mcp` wrote so far, in order. */
export function pushedIds(member: McpProcess): string[] {
  return channelPushes(member.client).map((p) => String(p?.meta?.msg_id));
}

/** The ids of the messages in a member's inbox/ folder, oldest first. */
export function inboxIdsOnDisk(member: MemberHome): string[] {
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
