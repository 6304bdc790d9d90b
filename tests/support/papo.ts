// The one runner of the built papo binary (dist/src/cli/main.js), as a user runs it: a command to
// its end (runPapo), without blocking the test's event loop (members and servers may live in it),
// or one that runs on (spawnPapo), optionally under a wrapper command (the NAT lab's `ip netns exec
// <ns>`). Also the environments the tests give it, the room people make with it, and the ids it
// prints.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type ChildRun, type RunChildOptions, runChild } from './run-child.js';

/** The repository root (tests run from dist/tests/support). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The built binary. */
export const PAPO_BIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export type PapoRun = ChildRun;

export interface RunPapoOptions extends RunChildOptions {
  /** A command papo runs under, e.g. ['ip', 'netns', 'exec', ns]. */
  wrap?: string[];
}

/** The command line that runs papo with `args` (under `wrap`): [command, arguments]. */
export function papoCommand(args: string[], wrap: string[] = []): [string, string[]] {
  const line = [...wrap, process.execPath, PAPO_BIN, ...args];
  return [line[0] as string, line.slice(1)];
}

/**
 * Starts papo with `args` and hands back the process, stdio piped, for a command that runs on
 * (`papo log -f`, `papo mcp`: see mcp-process.ts); whoever starts it ends it.
 */
export function spawnPapo(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; wrap?: string[] } = {},
): ChildProcessWithoutNullStreams {
  const [cmd, argv] = papoCommand(args, options.wrap);
  return spawn(cmd, argv, {
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
}

/** Runs papo to its end (SIGKILL after 60 s unless `timeoutMs`): exit code, output, signal. */
export function runPapo(args: string[], options: RunPapoOptions = {}): Promise<PapoRun> {
  const { wrap, ...rest } = options;
  const [cmd, argv] = papoCommand(args, wrap);
  return runChild(cmd, argv, rest);
}

/** Runs papo and returns its stdout; throws with its output unless it exits 0. */
export async function papoOk(args: string[], options: RunPapoOptions = {}): Promise<string> {
  const r = await runPapo(args, options);
  if (r.code !== 0)
    throw new Error(`papo ${args.join(' ')} exited ${r.code ?? r.signal}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

export interface CliRoom {
  invite: string;
  roomId: string;
}

/**
 * A room made as people make one: `papo new --name <first> --signal <url>` in the first one's
 * environment (its PAPO_HOME), then `papo join <invite> --name <name>` in each other's.
 */
export async function cliRoom(
  signalUrl: string,
  people: { name: string; env: NodeJS.ProcessEnv }[],
): Promise<CliRoom> {
  const [first, ...others] = people;
  if (first === undefined) throw new Error('a room needs someone to make it');
  const run = (args: string[], env: NodeJS.ProcessEnv) => papoOk(args, { env, timeoutMs: 30_000 });
  const created = await run(['new', '--name', first.name, '--signal', signalUrl], first.env);
  const invite = inviteIn(created);
  const roomId = roomIdIn(created);
  for (const p of others) await run(['join', invite, '--name', p.name], p.env);
  return { invite, roomId };
}

/**
 * The environment of a user with no papo settings and an English locale: this process's, without
 * PAPO_*, LC_*, LANG, NO_COLOR, TZ and NODE_EXTRA_CA_CERTS (a machine may set it for its own CA
 * bundle; papo install passes it on), then `extra` (undefined removes a variable).
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      k.startsWith('PAPO_') ||
      k.startsWith('LC_') ||
      k === 'LANG' ||
      k === 'NO_COLOR' ||
      k === 'TZ' ||
      k === 'NODE_EXTRA_CA_CERTS'
    )
      continue;
    env[k] = v;
  }
  env.LANG = 'C';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/**
 * The environment of a room member's papo in a test: cleanEnv's, with no STUN server (on loopback
 * the host candidates are all a link needs, and there is no network), then `extra`. A member in a
 * namespace of the NAT lab passes `PAPO_ICE_SERVERS: undefined`, to take the lab's servers from
 * the signal server's welcome.
 */
export function memberEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return cleanEnv({ PAPO_ICE_SERVERS: '[]', ...extra });
}

/** A minimal environment: PATH, an English locale, this PAPO_HOME, then `extra`. */
export function userEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', LANG: 'C', PAPO_HOME: home, ...extra };
}

/** The invite printed by new/invite (its own indented line). */
export function inviteIn(stdout: string): string {
  const m = /^ {2}(papo1[a-z2-7]+)$/m.exec(stdout);
  if (!m?.[1]) throw new Error(`no invite in:\n${stdout}`);
  return m[1];
}

/** The room id printed by new/join/invite, in English or Portuguese. */
export function roomIdIn(stdout: string): string {
  const m = /(?:Room|room|Sala|sala) ([0-9a-f]{8})\b/.exec(stdout);
  if (!m?.[1]) throw new Error(`no room id in:\n${stdout}`);
  return m[1];
}

/**
 * The first message id in a text of papo's, in each form it prints one: "(msg_id 931b6edd4b)" in a
 * send result, "[msg_id=931b6edd4b from=..." in wait and inbox, "(msg 931b6edd4b)" or "(msg
 * 931b6edd4b, reply to ...)" in history, papo log and papo say. Throws when there is none.
 */
export function msgIdIn(text: string): string {
  const id = /\bmsg(?:_id)?[ =]([0-9a-f]{10})(?![0-9a-f])/.exec(text)?.[1];
  if (id === undefined) throw new Error(`no msg_id in: ${text}`);
  return id;
}
