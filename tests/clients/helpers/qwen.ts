// A real Qwen Code for the tests in tests/clients/: the pinned version (scripts/agent-cli.mjs), run in
// a HOME of the test's own, its model the scripted fake Chat Completions API (fake-chat-completions.ts)
// through OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL and --auth-type openai, every other
// connection refused by a proxy that lets through only the fake (Qwen Code sends its model requests
// through HTTPS_PROXY even to 127.0.0.1: it does not read NO_PROXY there).
//
//   qwenTurn(t, { cli, root, project, papoHome, fake, prompt, timeoutMs?, env?, installArgs?,
//                 installEnv? }): Promise<QwenTurn>
//     ONE headless turn: makes (once per root and project) Qwen Code's HOME under `root`; runs
//     `papo install --client qwen ...installArgs` in `project` (qwen mcp add; papo's entry in
//     <project>/.qwen/settings.json; idempotent); then `qwen -p <prompt> --auth-type openai` in
//     `project`, to its end. Resolves with its exit code, output, duration and setup (HOME,
//     environment, refused connections). Everything it starts is stopped after `t` (hooks registered
//     before makeRoom's: pass stopFirst(t)).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type AgentCli, agentCli } from '../../support/agent-cli.js';
import {
  type ClientRun,
  clientSandbox,
  type Hooks,
  papoInstallFor,
  runClient,
} from '../../support/client-run.js';
import { FAKE_API_KEY, FAKE_MODEL, type FakeChatCompletions } from '../fake-chat-completions.js';

/** The pinned Qwen Code, installed into its cache when needed, or `{ skip }` with the reason. */
export function qwenCli(): AgentCli | { skip: string } {
  return agentCli('qwen');
}

export interface QwenSetup {
  /** HOME of Qwen Code (its ~/.qwen/). */
  home: string;
  env: NodeJS.ProcessEnv;
  /** Where Qwen Code tried to go past the machine (all refused). */
  refused: string[];
}

const setups = new Map<string, QwenSetup>();

/** Qwen Code's HOME under `root` for `project` (made once) and the environment to run it in. */
export async function qwenSetup(
  t: Hooks,
  opts: { cli: AgentCli; root: string; project: string; papoHome: string; fake: FakeChatCompletions },
): Promise<QwenSetup> {
  const home = join(opts.root, `qwen-home-${basename(opts.project)}`);
  const known = setups.get(home);
  if (known !== undefined && existsSync(home)) return known;
  mkdirSync(join(home, '.qwen'), { recursive: true });
  // No update check, no usage statistics: nothing Qwen Code needs for a turn.
  writeFileSync(
    join(home, '.qwen', 'settings.json'),
    `${JSON.stringify(
      { general: { disableAutoUpdate: true }, privacy: { usageStatisticsEnabled: false } },
      null,
      2,
    )}\n`,
  );
  // Only the fake let through; after Qwen Code is stopped, the papo mcp it started must be gone.
  const sandbox = await clientSandbox(t, {
    binDir: opts.cli.binDir,
    home,
    papoHome: opts.papoHome,
    allow: [new URL(opts.fake.url).host],
  });
  const env: NodeJS.ProcessEnv = {
    ...sandbox.env,
    OPENAI_BASE_URL: opts.fake.url,
    OPENAI_API_KEY: FAKE_API_KEY,
    OPENAI_MODEL: FAKE_MODEL,
  };
  const setup = { home, env, refused: sandbox.refused };
  setups.set(home, setup);
  return setup;
}

export interface QwenTurn extends ClientRun {
  /** What papo install printed. */
  installed: string;
  setup: QwenSetup;
}

export interface QwenTurnOptions {
  cli: AgentCli;
  /** A folder removed after the test (room.root): Qwen Code's HOME goes there. */
  root: string;
  project: string;
  papoHome: string;
  fake: FakeChatCompletions;
  prompt: string;
  timeoutMs?: number;
  /** Added to Qwen Code's environment (and papo install's). */
  env?: Record<string, string>;
  /** papo install's arguments after --client qwen (e.g. ['--scope', 'user']). */
  installArgs?: string[];
  /** Added to papo install's environment only (e.g. PAPO_INSTALL_COMMAND). */
  installEnv?: Record<string, string>;
}

/** ONE headless turn of Qwen Code in `project`, papo registered there by papo install. */
export async function qwenTurn(t: Hooks, opts: QwenTurnOptions): Promise<QwenTurn> {
  const setup = await qwenSetup(t, opts);
  const env = { ...setup.env, ...(opts.env ?? {}) };
  const installed = await papoInstallFor('qwen', opts.project, env, opts.installArgs, opts.installEnv);
  const run = await runClient(t, opts.cli.bin, ['-p', opts.prompt, '--auth-type', 'openai'], {
    cwd: opts.project,
    env,
    timeoutMs: opts.timeoutMs ?? 120_000,
  });
  return { ...run, installed, setup };
}
