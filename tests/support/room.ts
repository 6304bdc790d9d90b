// The one maker of a room for the tests: a temporary folder holding, for each member, a PAPO_HOME
// (profile "default") and a project folder (`papo mcp` runs there, and startAgent announces the
// folder's name as its `about`, as a person would with --about: papo announces none by itself). By default it is two people, voce and colega, made the way users make a room,
// with the built binary:
//   papo new --name voce --signal ws://127.0.0.1:<free port>   → invite
//   papo join <invite> --name colega
// The default signal URL is on loopback, so the first `papo mcp` to start hosts the embedded signal
// server. `make: 'store'` writes the profiles in this process instead (createProfile), for the tests
// that open their members in-process and need no CLI run. Everything is removed when the test ends.
// The tools of the `papo mcp` servers are called through their RpcClient (callText, statusUntil,
// toolUntil, pushOf).
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { freePort } from '../../src/cli/free-port.js';
import { createProfile, openProfile, type Profile } from '../../src/client/store/profile-store.js';
import { encodeInvite } from '../../src/client/wire/invite.js';
import { deriveRoomKeys, generateSecret } from '../../src/client/wire/room-crypto.js';
import { CHANNEL_METHOD } from '../../src/mcp/channel-pump.js';
import { type Hooks, makeTempDir } from './files.js';
import { type McpProcess, spawnMcp } from './mcp-process.js';
import { cliRoom, userEnv } from './papo.js';
import { type Json, type RpcClient, resultText } from './rpc-client.js';
import { waitFor } from './wait.js';

export interface MemberHome {
  /** Member name in the room. */
  name: string;
  /** PAPO_HOME of this person. */
  home: string;
  /** The project folder `papo mcp` runs in (its name is the announced `about`). */
  project: string;
  /** Its profile "default" (`profile.dir` holds the profile's files). */
  profile: Profile;
}

export interface Room<N extends string = 'voce' | 'colega'> {
  /** The folder that holds every home and project. */
  root: string;
  /** Every server started with startAgent; stopped before the folder is removed. */
  agents: McpProcess[];
  signalUrl: string;
  secret: Uint8Array;
  invite: string;
  roomId: string;
  members: Record<N, MemberHome>;
  /** The members' homes, in the order of their names. */
  homes: string[];
  /** Stops the agents, then removes the folder (makeRoom's hook does it when given a test). */
  close(): Promise<void>;
}

export interface MakeRoomOptions<N extends string> {
  /** The members, the first makes the room (default voce and colega). */
  names?: readonly N[];
  /** Default: ws://127.0.0.1 on a free port, hosted by the first `papo mcp` that starts. */
  signalUrl?: string;
  /** 'cli' (default): papo new and papo join with the built binary; 'store': createProfile here. */
  make?: 'cli' | 'store';
  /** The project folder's name of each member, in order (default: payments-api, notifications,
   * then the member's name). */
  projects?: readonly string[];
  /** The temporary folder is papo-<label>-... (default "room"). */
  label?: string;
}

const DEFAULT_PROJECTS = ['payments-api', 'notifications'];

/**
 * Makes a room in a temporary folder, closed after `t`; with `t` null the caller closes it (a run
 * outside node:test, as the chaos run and the fuzzer).
 */
export async function makeRoom<N extends string = 'voce' | 'colega'>(
  t: Hooks | null,
  options: MakeRoomOptions<N> = {},
): Promise<Room<N>> {
  const names = options.names ?? (['voce', 'colega'] as unknown as readonly N[]);
  const root = makeTempDir(`papo-${options.label ?? 'room'}-`);
  const agents: McpProcess[] = [];
  const close = async () => {
    await Promise.all(agents.map((p) => p.stop()));
    // A few retries: a client's process that just ended may have left a file behind a moment.
    rmSync(root, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  };
  // One hook, in this order: the servers write to their homes until they are stopped.
  t?.after(close);
  const signalUrl = options.signalUrl ?? `ws://127.0.0.1:${await freePort()}`;
  const places = names.map((name, i) => {
    const project = options.projects?.[i] ?? DEFAULT_PROJECTS[i] ?? name;
    const place = { name, home: join(root, `home-${name}`), project: join(root, 'code', name, project) };
    mkdirSync(place.home, { recursive: true });
    mkdirSync(place.project, { recursive: true });
    return place;
  });
  if (options.make === 'store') {
    const secret = generateSecret();
    for (const p of places)
      await createProfile({
        home: p.home,
        profile: 'default',
        name: p.name,
        secret,
        signalUrl,
        force: false,
      });
  } else {
    await cliRoom(
      signalUrl,
      places.map((p) => ({ name: p.name, env: userEnv(p.home) })),
    );
  }
  const members = {} as Record<N, MemberHome>;
  for (const p of places)
    members[p.name] = { ...p, profile: await openProfile({ home: p.home, profile: 'default' }) };
  const first = places[0];
  if (first === undefined) throw new Error('a room needs someone to make it');
  const { secret } = members[first.name].profile;
  return {
    root,
    agents,
    signalUrl,
    secret,
    invite: encodeInvite(secret, signalUrl),
    roomId: deriveRoomKeys(secret).roomId,
    members,
    homes: places.map((p) => p.home),
    close,
  };
}

/**
 * Starts `papo mcp` for one member (cwd = its project folder, announced as `--about`, as a person
 * would say what the agent works on); stopped when the room closes.
 */
export function startAgent<N extends string>(
  room: Room<N>,
  side: MemberHome,
  env: Record<string, string> = {},
): McpProcess {
  const p = spawnMcp({
    home: side.home,
    cwd: side.project,
    args: ['--about', basename(side.project)],
    env: { LANG: 'C', ...env },
  });
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
