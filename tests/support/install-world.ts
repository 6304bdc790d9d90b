// A person about to run `papo install --client <client>` in a project folder (issue 27): a HOME, a
// PAPO_HOME with a profile, a project, and the client on PATH (the real, pinned one when the test
// needs what it writes itself, or a stand-in that does nothing, for the clients whose file papo
// writes). What a folder holds is read without following links, so that a test sees a planted link
// as a link, and what papo wrote through it in the file it names.
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { type AgentClient, agentCli } from './agent-cli.js';
import { type Hooks, tempDir } from './files.js';
import { cleanEnv, type PapoRun, runPapo } from './papo.js';

export interface InstallWorld {
  /** The test's folder: everything below is the person's machine. */
  dir: string;
  home: string;
  papoHome: string;
  project: string;
  /** The environment papo install runs in, then `extra`. */
  env(extra?: Record<string, string | undefined>): NodeJS.ProcessEnv;
  /** `papo install --client <client> ...args` in the project. */
  install(args?: string[], extra?: Record<string, string | undefined>): Promise<PapoRun>;
}

/** The real, pinned client, or `{ skip }` with the reason. */
export function realClient(client: AgentClient): { binDir: string } | { skip: string } {
  const cli = agentCli(client);
  return 'skip' in cli ? cli : { binDir: cli.binDir };
}

/**
 * A person with a profile (`papo new`) and a project folder. `binDir` puts the real client on PATH;
 * without it, a stand-in named `client` that exits 0 and writes nothing.
 */
export async function installWorld(t: Hooks, client: AgentClient, binDir?: string): Promise<InstallWorld> {
  const dir = tempDir(t, `papo-install-${client}-`);
  const home = join(dir, 'home');
  const papoHome = join(dir, 'papo-home');
  const project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(project);
  let bin = binDir;
  if (bin === undefined) {
    bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, client), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, client), 0o755);
  }
  const base = {
    HOME: home,
    PAPO_HOME: papoHome,
    PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    XDG_CONFIG_HOME: undefined,
    CODEX_HOME: join(home, '.codex'),
    GEMINI_CLI_HOME: undefined,
    CLAUDE_CONFIG_DIR: undefined,
  };
  mkdirSync(base.CODEX_HOME);
  await runPapo(['new', '--name', 'alice'], { env: cleanEnv({ PAPO_HOME: papoHome }) });
  const env = (extra: Record<string, string | undefined> = {}) => cleanEnv({ ...base, ...extra });
  return {
    dir,
    home,
    papoHome,
    project,
    env,
    install: (args = [], extra = {}) =>
      runPapo(['install', '--client', client, ...args], {
        cwd: project,
        env: env(extra),
        timeoutMs: 120_000,
      }),
  };
}

/**
 * Every path under `dir` (links not followed): a link as `-> target`, a file as its mode and
 * content, a folder as `<dir>`; to show that a refused install changed nothing anywhere.
 */
export function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub)).sort()) {
      const rel = sub === '' ? name : join(sub, name);
      const st = lstatSync(join(dir, rel));
      if (st.isSymbolicLink()) out[rel] = `-> ${readlinkSync(join(dir, rel))}`;
      else if (st.isDirectory()) {
        out[rel] = '<dir>';
        walk(rel);
      } else if (st.isFile())
        out[rel] = `${(st.mode & 0o777).toString(8)} ${readFileSync(join(dir, rel), 'utf8')}`;
      else out[rel] = '<other>';
    }
  };
  walk('');
  return out;
}

/** The regular files under `dir` (links not followed) whose text holds any of `needles`. */
export function filesHolding(dir: string, needles: readonly string[]): string[] {
  return Object.entries(tree(dir))
    .filter(([, v]) => !v.startsWith('-> ') && needles.some((n) => v.includes(n)))
    .map(([k]) => k);
}
