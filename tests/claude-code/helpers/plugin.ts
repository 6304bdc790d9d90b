// papo as a Claude Code plugin (ADR 0101) in the tests: the checkout added as the `papo`
// marketplace and the `papo` plugin installed from it, by the pinned Claude Code itself, in a HOME
// of the test's own. The plugin runs `papo` from PATH: here a `papo` of the test's that is the
// built binary behind the stdio recorder, so what Claude Code and papo said to each other is kept.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientSandbox, type Hooks, leftovers, papoInstallWith } from '../../support/client-run.js';
import { ROOT } from '../../support/papo.js';
import type { Room } from '../../support/room.js';
import type { FakeAnthropic } from '../fake-anthropic.js';
import { type ClaudeCode, claudeEnv, recorderCommand, seedClaudeJson, TmuxClaude } from './claude.js';

/** The plugin's MCP server as Claude Code names it (`plugin:<plugin>:<server>`). */
export const PLUGIN_SERVER = 'plugin:papo:papo';
/** The prefix of the plugin's tools as the model sees them (mcp__plugin_<plugin>_<server>__). */
export const PLUGIN_TOOL_PREFIX = 'mcp__plugin_papo_papo__';

export interface PluginSetup {
  home: string;
  env: NodeJS.ProcessEnv;
  /** The recorder's log of every papo the plugin started. */
  log: string;
  /** Runs the pinned `claude` with `args` in `cwd` to its end: exit code and output. */
  claude(args: string[], cwd: string): { status: number | null; out: string };
}

/**
 * A HOME for Claude Code under `root` with the plugin installed from the checkout, in the user
 * scope (once for every project, as a person installs it), every folder of `projects` trusted.
 * PAPO_HOME is not in Claude Code's environment: each project says its own (projectProfile), and
 * the papo mcp servers left under `papoHome` are ended and named after the test.
 */
export async function pluginSetup(
  early: Hooks,
  opts: { cc: ClaudeCode; root: string; projects: string[]; papoHome: string; fake: FakeAnthropic },
): Promise<PluginSetup> {
  const home = join(opts.root, 'claude-home');
  const bin = join(opts.root, 'bin');
  mkdirSync(home, { recursive: true });
  mkdirSync(bin, { recursive: true });
  const [first, ...others] = opts.projects;
  if (first === undefined) throw new Error('pluginSetup needs a project');
  seedClaudeJson(home, first, opts.cc.version);
  const claudeJson = join(home, '.claude.json');
  const state = JSON.parse(readFileSync(claudeJson, 'utf8'));
  for (const p of others) state.projects[p] = state.projects[first];
  writeFileSync(claudeJson, `${JSON.stringify(state, null, 2)}\n`);

  const log = join(opts.root, 'papo-stdio.jsonl');
  writeFileSync(join(bin, 'papo'), `#!/bin/sh\nexec ${recorderCommand(log)} "$@"\n`);
  chmodSync(join(bin, 'papo'), 0o755);
  early.after(async () => {
    await leftovers(opts.papoHome);
  });
  const sandbox = await clientSandbox(early, { binDir: `${bin}:${opts.cc.binDir}`, home });
  const env = claudeEnv(sandbox.env, opts.fake);
  const claude = (args: string[], cwd: string) => {
    const r = spawnSync(opts.cc.bin, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  };
  // As the README says: the marketplace from the checkout, then the plugin from it.
  for (const args of [
    ['plugin', 'marketplace', 'add', ROOT],
    ['plugin', 'install', 'papo@papo'],
  ]) {
    const r = claude(args, opts.root);
    if (r.status !== 0) throw new Error(`claude ${args.join(' ')} exited ${r.status}: ${r.out}`);
  }
  return { home, env, log, claude };
}

/**
 * The project's own profile, as ADR 0101 has it and as a person sets it: `papo install --plugin
 * --profile <profile>` run in the project, with `papoHome` (written with PAPO_PROFILE into the
 * env of the project's .claude/settings.local.json, which Claude Code passes to the servers it
 * starts). papo install adds the marketplace and installs the plugin again, which Claude Code
 * takes as done. Returns what papo install said.
 */
export function projectProfile(
  setup: PluginSetup,
  project: string,
  profile: string,
  papoHome: string,
): Promise<string> {
  mkdirSync(project, { recursive: true });
  return papoInstallWith(['--plugin', '--profile', profile], project, { ...setup.env, PAPO_HOME: papoHome });
}

/**
 * Claude Code's terminal UI in tmux for voce of `room`, papo from the plugin (installed as the
 * README says, voce's profile set by papo install --plugin), started with `args`.
 */
export async function pluginUi(
  early: Hooks,
  opts: { cc: ClaudeCode; room: Room; fake: FakeAnthropic; args: string[] },
): Promise<TmuxClaude> {
  const { room } = opts;
  const project = room.members.voce.project;
  const papoHome = room.members.voce.home;
  const setup = await pluginSetup(early, {
    cc: opts.cc,
    root: room.root,
    projects: [project],
    papoHome,
    fake: opts.fake,
  });
  await projectProfile(setup, project, 'default', papoHome);
  const ui = new TmuxClaude(setup.env, project, room.root);
  ui.start(early, opts.args);
  return ui;
}
