// A real Gemini CLI for the tests: the pinned version (scripts/agent-cli.mjs), in a HOME of the
// test's own, against the scripted fake Gemini API (../fake-gemini.ts), every other connection sent
// to a proxy that refuses it. Everything it starts is stopped when the test ends.
//
//   geminiTurn(t, { cli, root, project, papoHome, fake, prompt, env?, timeoutMs? })
//     → Promise<{ code, stdout, stderr, output, setup }>
//
// runs ONE headless turn (`gemini --skip-trust -p <prompt> -o json`) in `project`, with papo
// registered there by `papo install --client gemini` (scope user, in the HOME under `root`), the
// member's PAPO_HOME `papoHome`, and `env` added to Gemini CLI's environment (PAPO_SIGNAL_TOKEN,
// PAPO_INSTALL_COMMAND...). `output` is Gemini CLI's JSON result ({ response, stats, ... }) or null.
// The turn ends when the scripted model answers without a function call. `t` is a test context, or
// the hooks of stopFirst (../../support/client-run.ts) when a room's folder is involved.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentCli } from '../../support/agent-cli.js';
import {
  type ClientRun,
  clientSandbox,
  type Hooks,
  papoInstallFor,
  runClient,
} from '../../support/client-run.js';
import { FAKE_GEMINI_KEY, type FakeGemini, type Json } from '../fake-gemini.js';

export interface GeminiSetup {
  /** HOME of Gemini CLI (its ~/.gemini/). */
  home: string;
  env: NodeJS.ProcessEnv;
  /** Where Gemini CLI tried to go past the machine (all refused). */
  connects: string[];
}

/**
 * Gemini CLI's settings before papo install: the API key auth (with GOOGLE_GEMINI_BASE_URL, the
 * fake), no usage statistics, no telemetry, no update check or notification.
 */
export const BASE_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
};

/** A HOME for Gemini CLI under `root` (root/gemini-home) and the environment to run it in. */
export async function geminiSetup(
  t: Hooks,
  opts: { cli: AgentCli; root: string; papoHome: string; fake: FakeGemini; env?: Record<string, string> },
): Promise<GeminiSetup> {
  const home = join(opts.root, 'gemini-home');
  const settings = join(home, '.gemini', 'settings.json');
  if (!existsSync(settings)) {
    mkdirSync(dirname(settings), { recursive: true });
    writeFileSync(settings, `${JSON.stringify(BASE_SETTINGS, null, 2)}\n`);
  }
  // After Gemini CLI is stopped (hooks registered later run first in stopFirst): its MCP servers.
  const sandbox = await clientSandbox(t, { binDir: opts.cli.binDir, home, papoHome: opts.papoHome });
  const env: NodeJS.ProcessEnv = {
    ...sandbox.env,
    TERM: 'xterm-256color',
    GOOGLE_GEMINI_BASE_URL: opts.fake.url,
    GEMINI_API_KEY: FAKE_GEMINI_KEY,
    ...opts.env,
  };
  return { home, env, connects: sandbox.refused };
}

export interface GeminiTurn extends ClientRun {
  /** Gemini CLI's `-o json` result, or null when stdout held none. */
  output: Json | null;
  setup: GeminiSetup;
}

/** One headless turn of Gemini CLI in `project` with papo registered (see the top of this file). */
export async function geminiTurn(
  t: Hooks,
  opts: {
    cli: AgentCli;
    root: string;
    project: string;
    papoHome: string;
    fake: FakeGemini;
    prompt: string;
    env?: Record<string, string>;
    timeoutMs?: number;
  },
): Promise<GeminiTurn> {
  const setup = await geminiSetup(t, opts);
  await papoInstallFor('gemini', opts.project, setup.env);
  // --skip-trust: this run trusts the project folder, as the person does once in Gemini CLI's dialog;
  // without it a headless run refuses to start at all, and no stdio MCP server runs.
  const r = await runClient(t, opts.cli.bin, ['--skip-trust', '-p', opts.prompt, '-o', 'json'], {
    cwd: opts.project,
    env: setup.env,
    timeoutMs: opts.timeoutMs ?? 120_000,
  });
  const start = r.stdout.indexOf('{');
  let output: Json | null = null;
  try {
    output = start === -1 ? null : JSON.parse(r.stdout.slice(start));
  } catch {}
  return { ...r, output, setup };
}
