// Runs the built papo binary as a user would, with a clean environment of its own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PAPO = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a user with no papo settings and an English locale. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('PAPO_') || k.startsWith('LC_') || k === 'LANG' || k === 'NO_COLOR' || k === 'TZ')
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

export function papo(args: string[], env: NodeJS.ProcessEnv): Run {
  const r = spawnSync(process.execPath, [PAPO, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function tempDir(t: { after: (fn: () => void) => void }, prefix = 'papo-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The invite printed by new/invite (its own indented line). */
export function inviteIn(stdout: string): string {
  const m = /^ {2}(papo1[a-z2-7]+)$/m.exec(stdout);
  if (!m?.[1]) throw new Error(`no invite in:\n${stdout}`);
  return m[1];
}

export function roomIdIn(stdout: string): string {
  const m = /(?:Room|room|Sala|sala) ([0-9a-f]{8})\b/.exec(stdout);
  if (!m?.[1]) throw new Error(`no room id in:\n${stdout}`);
  return m[1];
}

/** Every path under dir with its content, to show that a refused command changed nothing. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    out[name] = st.isDirectory()
      ? `<dir ${st.mode & 0o777}>`
      : `${st.mode & 0o777} ${readFileSync(p, 'hex')}`;
  }
  return out;
}
