import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentCli, agentCli } from '../../support/agent-cli.js';
import {
  type ClientRun,
  clientSandbox,
  type Hooks,
  papoInstallFor,
  runClient,
  spawnGroup,
  stopGroup,
} from '../../support/client-run.js';
import { TmuxPane, untilGone } from '../../support/tmux-pane.js';
import { FAKE_OPENAI_KEY, FAKE_OPENAI_MODEL, type FakeOpenAI, type Json } from '../fake-openai.js';

/** The pinned Codex CLI (about 15 s and 420 MB the first time), or `{ skip }` with the reason. */
export function codexCli(): AgentCli | { skip: string } {
  return agentCli('codex');
}

/** The variable holding the fake's key (the model provider's env_key). */
const KEY_VAR = 'PAPO_TEST_OPENAI_KEY';

/**
 * `-c` overrides that point Codex at the fake: a model provider of its own ("papo-fake") with the
 * Responses wire API. On the command line, so that config.toml holds only what papo install wrote.
 */
export function codexModelArgs(fake: FakeOpenAI): string[] {
  const provider = 'model_providers.papo-fake';
  return [
    ['model', FAKE_OPENAI_MODEL],
    ['model_provider', 'papo-fake'],
    [`${provider}.name`, 'papo fake'],
    [`${provider}.base_url`, fake.url],
    [`${provider}.wire_api`, 'responses'],
    [`${provider}.env_key`, KEY_VAR],
  ].flatMap(([k, v]) => ['-c', `${k}=${JSON.stringify(v)}`]);
}

export interface CodexSetup {
  cli: AgentCli;
  /** CODEX_HOME (config.toml, sessions, logs). */
  codexHome: string;
  /** HOME of Codex, empty. */
  home: string;
  env: NodeJS.ProcessEnv;
  fake: FakeOpenAI;
  /** Where Codex tried to go past the machine (all refused). */
  connects: string[];
}

/** A CODEX_HOME and HOME for Codex under `root`, and the environment to run it (and papo install) in. */
export async function codexSetup(
  t: Hooks,
  opts: { cli: AgentCli; root: string; fake: FakeOpenAI; papoHome?: string; name?: string },
): Promise<CodexSetup> {
  const base = join(opts.root, opts.name ?? 'codex');
  const codexHome = join(base, 'codex-home');
  const home = join(base, 'home');
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(home, { recursive: true });
  // After Codex is stopped (hooks registered later run first): the MCP servers it left.
  const sandbox = await clientSandbox(t, {
    binDir: opts.cli.binDir,
    home,
    ...(opts.papoHome === undefined ? {} : { papoHome: opts.papoHome }),
  });
  const env: NodeJS.ProcessEnv = {
    ...sandbox.env,
    CODEX_HOME: codexHome,
    [KEY_VAR]: FAKE_OPENAI_KEY,
  };
  return { cli: opts.cli, codexHome, home, env, fake: opts.fake, connects: sandbox.refused };
}

export interface CodexRun extends ClientRun {
  /** The JSON lines of `codex exec --json` (thread.started, item.completed, turn.completed...). */
  events: Json[];
}

/**
 * One headless turn: `codex exec --json --skip-git-repo-check <prompt>` in `cwd`, against the fake,
 * to its end. `env` adds variables to Codex's environment (not to its configuration).
 */
export async function runCodex(
  t: Hooks,
  setup: CodexSetup,
  opts: { cwd: string; prompt: string; timeoutMs: number; env?: Record<string, string>; args?: string[] },
): Promise<CodexRun> {
  const args = [
    'exec',
    '--json',
    '--skip-git-repo-check',
    ...codexModelArgs(setup.fake),
    ...(opts.args ?? []),
  ];
  const run = await runClient(t, setup.cli.bin, [...args, opts.prompt], {
    cwd: opts.cwd,
    env: { ...setup.env, ...opts.env },
    timeoutMs: opts.timeoutMs,
  });
  const events = run.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  return { ...run, events };
}

/** The MCP tool calls of a run (item.completed of type mcp_tool_call). */
export function mcpToolCalls(run: CodexRun): Json[] {
  return run.events
    .filter((e) => e.type === 'item.completed' && e.item?.type === 'mcp_tool_call')
    .map((e) => e.item);
}

/**
 * codexSetup + papoInstallFor('codex') + runCodex: one headless turn of Codex in `project`, with papo
 * registered for the member whose PAPO_HOME is `papoHome`. Pass `setup` (from an earlier call's
 * result) to run another turn in the same CODEX_HOME without installing again.
 */
export async function codexTurn(
  t: Hooks,
  opts: {
    cli: AgentCli;
    root: string;
    project: string;
    papoHome: string;
    fake: FakeOpenAI;
    prompt: string;
    timeoutMs?: number;
    /** Added to Codex's environment and to papo install's (PAPO_SIGNAL_TOKEN...). */
    env?: Record<string, string>;
    setup?: CodexSetup;
    name?: string;
  },
): Promise<CodexRun & { setup: CodexSetup; connects: string[] }> {
  let setup = opts.setup;
  if (setup === undefined) {
    setup = await codexSetup(t, {
      cli: opts.cli,
      root: opts.root,
      fake: opts.fake,
      papoHome: opts.papoHome,
      ...(opts.name === undefined ? {} : { name: opts.name }),
    });
    await papoInstallFor('codex', opts.project, setup.env, [], opts.env);
  }
  const run = await runCodex(t, setup, {
    cwd: opts.project,
    prompt: opts.prompt,
    timeoutMs: opts.timeoutMs ?? 120_000,
    ...(opts.env === undefined ? {} : { env: opts.env }),
  });
  return { ...run, setup, connects: setup.connects };
}

/**
 * What Codex's app server says of its MCP servers once a thread has started them
 * (`mcpServerStatus/list` with the thread's id): runtimeStatus "connected", serverInfo, tools.
 * No model request is made.
 */
export async function mcpServerStatus(t: Hooks, setup: CodexSetup, cwd: string): Promise<Json[]> {
  // codex app-server is talked to on its stdin.
  const child = spawnGroup(t, setup.cli.bin, ['app-server', ...codexModelArgs(setup.fake)], {
    cwd,
    env: setup.env,
    stdin: 'pipe',
  });
  child.stdin?.on('error', () => {});
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const pending = new Map<number, (m: Json) => void>();
  const ready = new Set<string>();
  let buffer = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      let m: Json;
      try {
        m = JSON.parse(line);
      } catch {
        continue;
      }
      if (m.method === 'mcpServer/startupStatus/updated' && m.params?.status === 'ready')
        ready.add(m.params.name);
      if (m.id !== undefined) pending.get(m.id)?.(m);
    }
  });
  let id = 0;
  const request = (method: string, params: Json): Promise<Json> =>
    new Promise((resolve, reject) => {
      const mine = ++id;
      const timer = setTimeout(
        () => reject(new Error(`codex app-server: no answer to ${method}; ${stderr}`)),
        60_000,
      );
      pending.set(mine, (m) => {
        clearTimeout(timer);
        if (m.error) reject(new Error(`${method}: ${JSON.stringify(m.error)}`));
        else resolve(m.result);
      });
      child.stdin?.write(`${JSON.stringify({ id: mine, method, params })}\n`);
    });
  try {
    await request('initialize', { clientInfo: { name: 'papo-test', version: '0' }, capabilities: null });
    child.stdin?.write(`${JSON.stringify({ method: 'initialized' })}\n`);
    const started = await request('thread/start', { cwd });
    const threadId = started?.thread?.id;
    // The thread starts its MCP servers in the background: wait for papo to be ready.
    for (let i = 0; i < 200 && !ready.has('papo'); i++) await new Promise((r) => setTimeout(r, 100));
    const list = await request('mcpServerStatus/list', { threadId });
    return list?.data ?? [];
  } finally {
    child.stdin?.end();
    await stopGroup(child);
  }
}

/**
 * Codex's terminal UI in a tmux server of its own (its socket in the test's `folder`, so killing
 * that server ends only this test's Codex; the approach of tests/claude-code/helpers/claude.ts'
 * TmuxClaude), run with the setup's environment against its fake.
 */
export class TmuxCodex extends TmuxPane {
  constructor(
    private readonly setup: CodexSetup,
    cwd: string,
    folder: string,
  ) {
    super(setup.env, cwd, folder, 'codex');
  }

  /** Starts `codex args...` in a 200x50 terminal and waits for its prompt; `t` stops it and its tmux server. */
  async start(t: Hooks, args: string[] = []): Promise<void> {
    t.after(() => this.stop());
    this.open([this.setup.cli.bin, ...codexModelArgs(this.setup.fake), ...args]);
    await this.until(/Ask Codex to do anything/, 60_000);
  }

  /**
   * Types `text` and submits it. The Enter goes on its own a moment later: sent with the text, the
   * terminal UI takes both as one paste and keeps the text in its composer.
   */
  async prompt(text: string): Promise<void> {
    this.keys('-l', text);
    await new Promise((r) => setTimeout(r, 500));
    this.keys('Enter');
  }

  /**
   * Ends the tmux server, then waits (10 s at most, then SIGKILL) for the node wrapper in the pane
   * and the native Codex it started, so that nothing writes CODEX_HOME once the test removes it.
   * The papo mcp it started are left to `leftovers` (codexSetup's hooks), which name them.
   */
  async stop(): Promise<void> {
    const pane = this.panePid();
    const pids = Number.isInteger(pane) && pane > 0 ? [pane, ...childrenOf(pane)] : [];
    this.killServer();
    await untilGone(pids);
  }
}

/** The children of `pid` (Linux: /proc/<pid>/task/<pid>/children); none elsewhere. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
