// Two people, two homes, one room — made the way users make it, with the built binary:
//   papo new --name voce --signal ws://127.0.0.1:<free port>   → invite
//   papo join <invite> --name colega
// and a project folder for each (`papo mcp` runs there, so the `about` each announces is the
// folder's name). The room's signal URL is on loopback, so the first `papo mcp` to start hosts the
// embedded signal server. Everything is removed when the test ends. The tools of the `papo mcp`
// servers are called through their RpcClient (callText, statusUntil, toolUntil, pushOf).
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src/cli/free-port.js';
import { CHANNEL_METHOD } from '../../src/mcp/channel-pump.js';
import { type Hooks, makeTempDir } from './files.js';
import { type McpProcess, spawnMcp } from './mcp-process.js';
import { cliRoom, userEnv } from './papo.js';
import { type Json, type RpcClient, resultText } from './rpc-client.js';
import { waitFor } from './wait.js';

export { freePort } from '../../src/cli/free-port.js';

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

/** Makes the room (new + join with the built binary) in a temporary folder removed after `t`. */
export async function makeRoom(
  t: Hooks,
  projects: [string, string] = ['payments-api', 'notifications'],
): Promise<Room> {
  const root = makeTempDir('papo-e2e-');
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
  const { roomId } = await cliRoom(signalUrl, [
    { name: voce.name, env: userEnv(voce.home) },
    { name: colega.name, env: userEnv(colega.home) },
  ]);
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
  let last = '';
  return waitFor(
    `${tool} to match ${pattern}`,
    async () => {
      last = await callText(client, tool);
      return pattern.test(last) ? last : '';
    },
    { timeoutMs, intervalMs: 200, last: () => last },
  );
}

/** The channel notifications received so far (their params). */
export function channelPushes(client: RpcClient): Json[] {
  return client.messages.filter((m) => m.method === CHANNEL_METHOD).map((m) => m.params);
}

/** The next channel push carrying `msgId` (already received or future). */
export async function pushOf(client: RpcClient, msgId: string, timeoutMs = 20_000): Promise<Json> {
  const m = await client.waitFor(
    (x) => x.method === CHANNEL_METHOD && x.params?.meta?.msg_id === msgId,
    timeoutMs,
    `channel push of ${msgId}`,
  );
  return m.params;
}
