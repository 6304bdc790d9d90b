// A real opencode for the tests in tests/clients/: the pinned version (scripts/agent-cli.mjs), run in
// a HOME and XDG folders of the test's own, its model a custom provider pointed at the scripted fake
// Chat Completions API (fake-chat-completions.ts), every other connection refused by a proxy.
//
//   opencodeTurn(t, { cli, root, project, papoHome, fake, prompt, timeoutMs?, env?, userConfig?,
//                     installArgs?, installEnv? }): Promise<OpencodeTurn>
//     ONE headless turn: makes (once per root and project) opencode's HOME under `root`, with the
//     fake as its model in the user's config; runs `papo install --client opencode ...installArgs`
//     in `project` (papo's entry in <project>/opencode.json; idempotent); then
//     `opencode run --format json <prompt>` in `project`, to its end. Resolves with its exit code,
//     output, JSON events, duration and setup (HOME, environment, refused connections). Everything
//     it starts is stopped after `t` (hooks registered before makeRoom's: pass stopFirst(t)).
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
import { FAKE_API_KEY, FAKE_MODEL, type FakeChatCompletions, type Json } from '../fake-chat-completions.js';

/** The pinned opencode, installed into its cache when needed, or `{ skip }` with the reason. */
export function opencodeCli(): AgentCli | { skip: string } {
  return agentCli('opencode');
}

export interface OpencodeSetup {
  /** HOME of opencode; its config is in HOME/.config/opencode, its data in HOME/.local/share. */
  home: string;
  env: NodeJS.ProcessEnv;
  /** Where opencode tried to go past the machine (all refused). */
  refused: string[];
}

/** The provider that makes the fake opencode's model (id "fake/papo-fake-model"). */
export function fakeProvider(fake: FakeChatCompletions): Json {
  return {
    fake: {
      npm: '@ai-sdk/openai-compatible',
      name: 'papo fake',
      options: { baseURL: fake.url, apiKey: FAKE_API_KEY },
      models: { [FAKE_MODEL]: { name: 'papo fake model', tool_call: true } },
    },
  };
}

const setups = new Map<string, OpencodeSetup>();

/**
 * opencode's HOME under `root` for `project` (made once), with the fake as the model in the user's
 * config ($XDG_CONFIG_HOME/opencode/opencode.json, plus `userConfig`), so that the project's
 * opencode.json holds only what papo install writes.
 */
export async function opencodeSetup(
  t: Hooks,
  opts: {
    cli: AgentCli;
    root: string;
    project: string;
    papoHome: string;
    fake: FakeChatCompletions;
    userConfig?: Json;
  },
): Promise<OpencodeSetup> {
  const home = join(opts.root, `opencode-home-${basename(opts.project)}`);
  const known = setups.get(home);
  if (known !== undefined && existsSync(home)) return known;
  const config = join(home, '.config', 'opencode');
  mkdirSync(config, { recursive: true });
  writeFileSync(
    join(config, 'opencode.json'),
    `${JSON.stringify(
      {
        $schema: 'https://opencode.ai/config.json',
        autoupdate: false,
        share: 'disabled',
        provider: fakeProvider(opts.fake),
        model: `fake/${FAKE_MODEL}`,
        small_model: `fake/${FAKE_MODEL}`,
        ...(opts.userConfig ?? {}),
      },
      null,
      2,
    )}\n`,
  );
  // Only the fake let through; after opencode is stopped, the papo mcp it started must be gone.
  const sandbox = await clientSandbox(t, {
    binDir: opts.cli.binDir,
    home,
    papoHome: opts.papoHome,
    allow: [new URL(opts.fake.url).host],
  });
  const env: NodeJS.ProcessEnv = {
    ...sandbox.env,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  };
  const setup = { home, env, refused: sandbox.refused };
  setups.set(home, setup);
  return setup;
}

export interface OpencodeTurn extends ClientRun {
  /** The `--format json` events opencode printed. */
  events: Json[];
  /** What papo install printed. */
  installed: string;
  setup: OpencodeSetup;
}

export interface OpencodeTurnOptions {
  cli: AgentCli;
  /** A folder removed after the test (room.root): opencode's HOME goes there. */
  root: string;
  project: string;
  papoHome: string;
  fake: FakeChatCompletions;
  prompt: string;
  timeoutMs?: number;
  /** Added to opencode's environment (and papo install's). */
  env?: Record<string, string>;
  /** Merged into the user's opencode.json. */
  userConfig?: Json;
  /** papo install's arguments after --client opencode (e.g. ['--scope', 'user']). */
  installArgs?: string[];
  /** Added to papo install's environment only (e.g. PAPO_INSTALL_COMMAND). */
  installEnv?: Record<string, string>;
}

/** ONE headless turn of opencode in `project`, papo registered there by papo install. */
export async function opencodeTurn(t: Hooks, opts: OpencodeTurnOptions): Promise<OpencodeTurn> {
  const setup = await opencodeSetup(t, opts);
  const env = { ...setup.env, ...(opts.env ?? {}) };
  const installed = await papoInstallFor('opencode', opts.project, env, opts.installArgs, opts.installEnv);
  const run = await runClient(t, opts.cli.bin, ['run', '--format', 'json', opts.prompt], {
    cwd: opts.project,
    env,
    timeoutMs: opts.timeoutMs ?? 120_000,
  });
  return { ...run, events: jsonLines(run.stdout), installed, setup };
}

/** The JSON objects of a `--format json` output, one a line. */
export function jsonLines(stdout: string): Json[] {
  const out: Json[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line));
    } catch {}
  }
  return out;
}
