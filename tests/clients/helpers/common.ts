// What the real-client tests of tests/clients/ share: papo install run as the user would, a client
// run to its end in a process group of its own, and the processes papo mcp left.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { stopGroup } from '../../claude-code/helpers/claude.js';
import { PAPO_BIN } from '../../mcp/helpers/mcp-process.js';

export interface Hooks {
  after: (fn: () => Promise<void> | void) => void;
}

export interface ClientRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** How long the client ran, in ms. */
  ms: number;
}

/** Runs `papo install --client <client> ...args` in `project` with the client's environment. */
export function papoInstallFor(
  client: string,
  project: string,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  extra: Record<string, string> = {},
): string {
  const r = spawnSync(process.execPath, [PAPO_BIN, 'install', '--client', client, ...args], {
    cwd: project,
    env: { ...env, ...extra },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`papo install exited ${r.status}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Runs `bin args...` to its end (in its own process group, killed whole if it overruns). */
export async function runClient(
  t: Hooks,
  bin: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ClientRun> {
  const started = Date.now();
  const child = spawn(bin, args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  t.after(() => stopGroup(child));
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const timer = setTimeout(() => void stopGroup(child), opts.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr, ms: Date.now() - started };
}

/** The value of `name` in the environment of process `pid` (null when unset or unreadable). */
export function envOf(pid: number, name: string): string | null {
  try {
    for (const kv of readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')) {
      if (kv.startsWith(`${name}=`)) return kv.slice(name.length + 1);
    }
  } catch {}
  return null;
}
