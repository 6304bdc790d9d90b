import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type AgentCli, agentCli } from '../../support/agent-cli.js';
import {
  type ClientRun,
  clientSandbox,
  type Hooks,
  papoInstallFor,
  processesWithEnv,
  runClient,
} from '../../support/client-run.js';
import { PAPO_BIN } from '../../support/papo.js';
import { TmuxPane } from '../../support/tmux-pane.js';
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

/**
 * Qwen Code's terminal UI in a tmux server of its own (its socket in the test's folder, so killing
 * it ends only this test's Qwen Code and leaves nothing in /tmp/tmux-*). Qwen Code binds its
 * session inbox, and gives papo QWEN_CODE_MESSAGING_SOCKET, only here, not in `qwen -p`.
 */
export class TmuxQwen extends TmuxPane {
  constructor(env: NodeJS.ProcessEnv, cwd: string, folder: string) {
    super(env, cwd, folder, 'qwen', 'tmux-qwen.sock');
  }

  /** Starts `<bin> args...` in a 200x50 terminal; `t` stops it and its tmux server. */
  start(t: Hooks, bin: string, args: string[]): void {
    t.after(() => this.stop());
    this.open([bin, ...args]);
  }

  /**
   * Ends the tmux server, then waits (10 s at most, then SIGKILL) for every process of this Qwen
   * Code (its HOME is the test's: the launcher, the process it relaunches, what they started), so
   * that none writes into a folder being removed. papo mcp is left to `leftovers`, which names it.
   */
  async stop(): Promise<void> {
    this.killServer();
    const home = this.env.HOME ?? '';
    const mine = () => processesWithEnv('HOME', home).filter((pid) => !isPapo(pid));
    const deadline = Date.now() + 10_000;
    while (mine().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const pid of mine()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  }
}

/** Is `pid` a papo process (its command line runs papo's main.js)? */
function isPapo(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(PAPO_BIN);
  } catch {
    return false;
  }
}

export interface QwenUiOptions {
  cli: AgentCli;
  /** A folder removed after the test (room.root): Qwen Code's HOME and tmux's socket go there. */
  root: string;
  project: string;
  papoHome: string;
  fake: FakeChatCompletions;
  /** Added to Qwen Code's environment. */
  env?: Record<string, string>;
  /** Merged into Qwen Code's ~/.qwen/settings.json (e.g. `{ agents: { crossSessionInbound: 'refuse' } }`). */
  settings?: Record<string, unknown>;
  /** Qwen Code's --approval-mode (default: `default`; `yolo` runs its shell without asking). */
  approvalMode?: 'default' | 'yolo';
}

/**
 * Qwen Code's terminal UI for `project`, papo registered there by `papo install --client qwen`
 * (nothing else), its model the fake, in the default approval mode unless told; resolves once the prompt is
 * ready. Everything it starts is stopped after `t` (pass stopFirst(t)).
 */
export async function qwenUi(t: Hooks, opts: QwenUiOptions): Promise<{ ui: TmuxQwen; setup: QwenSetup }> {
  const setup = await qwenSetup(t, opts);
  // No follow-up suggestions: after each turn the TUI asks the model what the person might type
  // next, in a request that offers tools, which would take a scripted turn of the test's.
  const file = join(setup.home, '.qwen', 'settings.json');
  const settings = JSON.parse(readFileSync(file, 'utf8'));
  const ui = { ...settings.ui, enableFollowupSuggestions: false };
  writeFileSync(file, `${JSON.stringify({ ...settings, ui, ...(opts.settings ?? {}) }, null, 2)}\n`);
  // Qwen Code binds its inbox under TMPDIR and leaves the folder behind when its terminal hangs up:
  // a folder of the test's own, removed with it (papo's receipt socket goes there too).
  const tmp = join(opts.root, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const env = { ...setup.env, ...(opts.env ?? {}), TERM: 'xterm-256color', TMPDIR: tmp };
  await papoInstallFor('qwen', opts.project, env);
  const tui = new TmuxQwen(env, opts.project, opts.root);
  tui.start(t, opts.cli.bin, ['--auth-type', 'openai', '--approval-mode', opts.approvalMode ?? 'default']);
  await tui.until(/Type your message/, 60_000);
  return { ui: tui, setup };
}
