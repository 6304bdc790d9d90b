// Two people, two homes, one room — made the way users make it, with the built binary:
//   papo new --name voce --signal ws://127.0.0.1:<free port>   → invite
//   papo join <invite> --name colega
// and a project folder for each (`papo mcp` runs there, so the `about` each announces is the
// folder's name). The room's signal URL is on loopback, so the first `papo mcp` to start hosts the
// embedded signal server. Everything is removed when the test ends.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../src/cli/free-port.js';
import { type McpProcess, PAPO_BIN, spawnMcp } from './mcp-process.js';
import { type Json, type RpcClient, resultText } from './rpc-client.js';

export { freePort } from '../../../src/cli/free-port.js';

export interface Side {
  /** Member name in the room. */
  name: string;
  /** PAPO_HOME of this person. */
  home: string;
  /** The project folder `papo mcp` runs in (its name is the announced `about`). */
  project: string;
}

export interface Room {
  root: string;
  /** Every server started with startAgent; stopped before the folder is removed. */
  agents: McpProcess[];
  signalUrl: string;
  roomId: string;
  voce: Side;
  colega: Side;
}

/** The environment of a user with no papo settings, an English locale and this home. */
export function userEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', LANG: 'C', PAPO_HOME: home, ...extra };
}

/** Runs the built `papo` with these arguments; throws with its stderr when it fails. */
export function papo(args: string[], home: string): string {
  const r = spawnSync(process.execPath, [PAPO_BIN, ...args], {
    env: userEnv(home),
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.status !== 0) throw new Error(`papo ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** Makes the room (new + join with the built binary) in a temporary folder removed after `t`. */
export async function makeRoom(
  t: { after: (fn: () => Promise<void>) => void },
  projects: [string, string] = ['payments-api', 'notifications'],
): Promise<Room> {
  const root = mkdtempSync(join(tmpdir(), 'papo-e2e-'));
  const agents: McpProcess[] = [];
  // One hook, in this order: the servers write to their homes until they are stopped.
  t.after(async () => {
    await Promise.all(agents.map((p) => p.stop()));
    rmSync(root, { recursive: true, force: true });
  });
  const side = (name: string, project: string): Side => {
    const s = { name, home: join(root, `home-${name}`), project: join(root, 'code', name, project) };
    mkdirSync(s.home, { recursive: true });
    mkdirSync(s.project, { recursive: true });
    return s;
  };
  const voce = side('voce', projects[0]);
  const colega = side('colega', projects[1]);
  const signalUrl = `ws://127.0.0.1:${await freePort()}`;
  const created = papo(['new', '--name', 'voce', '--signal', signalUrl], voce.home);
  const invite = /^ {2}(papo1[a-z2-7]+)$/m.exec(created)?.[1];
  const roomId = /[Rr]oom ([0-9a-f]{8})\b/.exec(created)?.[1];
  if (invite === undefined || roomId === undefined) throw new Error(`no invite or room id in:\n${created}`);
  papo(['join', invite, '--name', 'colega'], colega.home);
  return { root, agents, signalUrl, roomId, voce, colega };
}

/** Starts `papo mcp` for one side (cwd = its project folder); stopped when the room's test ends. */
export function startAgent(room: Room, side: Side, env: Record<string, string> = {}): McpProcess {
  const p = spawnMcp({ home: side.home, cwd: side.project, env: { LANG: 'C', ...env } });
  room.agents.push(p);
  return p;
}

/** tools/call returning the text, failing the test on a tool error. */
export async function callText(
  client: RpcClient,
  name: string,
  args: Json = {},
  meta?: Json,
): Promise<string> {
  const result = await client.call(name, args, meta, 30_000);
  if (result.isError === true) throw new Error(`${name} failed: ${resultText(result)}`);
  return resultText(result);
}

/** Polls the `status` tool until its text matches `pattern` (WebRTC links take a moment). */
export async function statusUntil(client: RpcClient, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  return toolUntil(client, 'status', pattern, timeoutMs);
}

/** Calls a tool without arguments until its text matches (state settles a moment after an ack). */
export async function toolUntil(
  client: RpcClient,
  tool: string,
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = await callText(client, tool);
    if (pattern.test(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${tool} never matched ${pattern}; last:\n${last}`);
}

/** The channel notifications received so far (their params). */
export function channelPushes(client: RpcClient): Json[] {
  return client.messages.filter((m) => m.method === 'notifications/claude/channel').map((m) => m.params);
}

/** The next channel push carrying `msgId` (already received or future). */
export async function pushOf(client: RpcClient, msgId: string, timeoutMs = 20_000): Promise<Json> {
  const m = await client.waitFor(
    (x) => x.method === 'notifications/claude/channel' && x.params?.meta?.msg_id === msgId,
    timeoutMs,
    `channel push of ${msgId}`,
  );
  return m.params;
}

/** The msg_id in a `send` result ("Delivered to ... (msg_id X)" / "Not acknowledged yet (msg_id X)"). */
export function msgIdIn(text: string): string {
  const id = /\(msg_id ([0-9a-f]{10})\)/.exec(text)?.[1];
  if (id === undefined) throw new Error(`no msg_id in: ${text}`);
  return id;
}
