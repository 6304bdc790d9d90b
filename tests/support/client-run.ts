// Running a real agent CLI (Claude Code, Codex, Gemini CLI, opencode, Qwen Code) in the tests:
// papo install as the user runs it, the client in a process group of its own (stopped whole after
// the test, or when it overruns), and the processes a member's papo mcp left behind.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gateProxy } from './gate-proxy.js';
import { papoOk } from './papo.js';

/** node:test's context, or stopFirst(t): where the stops are registered. */
export interface Hooks {
  after: (fn: () => Promise<void> | void) => void;
}

/**
 * Hooks that run before the ones registered after this call: node:test runs a test's `after` hooks
 * in the order they were registered, and makeRoom's removes the room's folder, so a client must
 * be stopped by a hook registered before it. Within these, the last registered runs first.
 */
export function stopFirst(t: Hooks): Hooks {
  const fns: (() => Promise<void> | void)[] = [];
  t.after(async () => {
    for (const fn of fns.reverse()) await fn();
  });
  return { after: (fn) => void fns.push(fn) };
}

export interface ClientSandbox {
  /** The environment every client runs in, before its own variables. */
  env: NodeJS.ProcessEnv;
  /** Where the client tried to go past the machine (all refused), as "CONNECT host:port"... */
  refused: string[];
}

/**
 * What every client runs in: a proxy that refuses every connection but to `allow` (host:port; for
 * a client that sends even loopback through its proxy), and an environment with the client's bin
 * folder and node on PATH, `home` as HOME, a UTF-8 locale, HTTP(S) through the proxy except for
 * loopback, no git over SSH, and PAPO_HOME when given. With `papoHome`, the papo mcp servers left
 * under it are ended and named after `t` (after the client is stopped: hooks registered later, in
 * stopFirst, run first).
 */
export async function clientSandbox(
  t: Hooks,
  opts: { binDir: string; home: string; papoHome?: string; allow?: string[] },
): Promise<ClientSandbox> {
  const proxy = await gateProxy(t, opts.allow ?? []);
  const papoHome = opts.papoHome;
  if (papoHome !== undefined)
    t.after(async () => {
      await leftovers(papoHome);
    });
  const env: NodeJS.ProcessEnv = {
    PATH: `${opts.binDir}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: opts.home,
    LANG: 'C.UTF-8',
    HTTPS_PROXY: proxy.url,
    https_proxy: proxy.url,
    HTTP_PROXY: proxy.url,
    http_proxy: proxy.url,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    GIT_SSH_COMMAND: 'false',
    ...(papoHome === undefined ? {} : { PAPO_HOME: papoHome }),
  };
  return { env, refused: proxy.refused };
}

/**
 * Runs `papo install ...args` in `project` as the user would, with the client's environment plus
 * `extra`; returns what it printed, or throws with its output when it fails.
 */
export function papoInstallWith(
  args: string[],
  project: string,
  env: NodeJS.ProcessEnv,
  extra: Record<string, string> = {},
): Promise<string> {
  return papoOk(['install', ...args], { cwd: project, env: { ...env, ...extra }, timeoutMs: 120_000 });
}

/** Runs `papo install --client <client> ...args` in `project` with the client's environment. */
export function papoInstallFor(
  client: string,
  project: string,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  extra: Record<string, string> = {},
): Promise<string> {
  return papoInstallWith(['--client', client, ...args], project, env, extra);
}

export interface ClientRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** How long the client ran, in ms. */
  ms: number;
}

export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** 'pipe' for a client that is talked to on stdin; closed otherwise. */
  stdin?: 'pipe' | 'ignore';
}

/** Spawns `bin args...` in a process group of its own, stopped whole after `t`. */
export function spawnGroup(t: Hooks, bin: string, args: string[], opts: SpawnOptions): ChildProcess {
  const child = spawn(bin, args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: [opts.stdin ?? 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  t.after(() => stopGroup(child));
  return child;
}

/**
 * Runs `bin args...` to its end, in a process group of its own, killed whole if it overruns
 * `timeoutMs`; `log` gets a copy of its stdout as it comes.
 */
export async function runClient(
  t: Hooks,
  bin: string,
  args: string[],
  opts: SpawnOptions & { timeoutMs: number; log?: string },
): Promise<ClientRun> {
  const started = Date.now();
  const child = spawnGroup(t, bin, args, opts);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
    if (opts.log) appendFileSync(opts.log, c);
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const timer = setTimeout(() => void stopGroup(child), opts.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr, ms: Date.now() - started };
}

/** Ends a detached child's process group (the client and the MCP servers it started). */
export async function stopGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const alive = (): boolean => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(-pid, 'SIGTERM');
  for (let i = 0; i < 30 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(-pid, 'SIGKILL');
}

/** The value of `name` in the environment of process `pid` (null when unset or unreadable). */
export function envOf(pid: number, name: string): string | null {
  try {
    for (const kv of readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')) {
      if (kv.startsWith(`${name}=`)) return kv.slice(name.length + 1);
    }
  } catch {
    // gone meanwhile, or not ours to read
  }
  return null;
}

/** Processes (other than this one) whose environment holds `NAME=value`: what a test left running. */
export function processesWithEnv(name: string, value: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    if (envOf(Number(entry), name) === value) out.push(Number(entry));
  }
  return out;
}

/**
 * Waits up to `ms` for the processes started with PAPO_HOME=`home` to end; kills and names those
 * left (a client is expected to end the MCP servers it started).
 */
export async function leftovers(home: string, ms = 5_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = processesWithEnv('PAPO_HOME', home);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    left = processesWithEnv('PAPO_HOME', home);
  }
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  return left;
}
