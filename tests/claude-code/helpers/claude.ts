// A real Claude Code for the tests in tests/claude-code/: the pinned version installed by
// scripts/agent-cli.mjs, run in a HOME of the test's own, against the scripted fake Messages API
// (fake-anthropic.ts), with every other connection kept on this machine. Everything it starts is
// stopped when the test ends.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AgentCli, agentCli } from '../../support/agent-cli.js';
import {
  clientSandbox,
  type Hooks,
  papoInstallWith,
  processesWithEnv,
  stopFirst,
} from '../../support/client-run.js';
import type { McpProcess } from '../../support/mcp-process.js';
import { PAPO_BIN } from '../../support/papo.js';
import { makeRoom, type Room, startAgent } from '../../support/room.js';
import { TmuxPane, untilGone } from '../../support/tmux-pane.js';
import { FAKE_API_KEY, type FakeAnthropic, type Json, userTexts } from '../fake-anthropic.js';

export type ClaudeCode = AgentCli;

/**
 * The pinned Claude Code, installed into its cache when it is not there yet (about 20 s and 400 MB
 * the first time), or `{ skip }` with one line saying why the tests cannot run.
 */
export function claudeCode(): ClaudeCode | { skip: string } {
  return agentCli('claude');
}

/** Is tmux there (the interactive tests drive Claude Code's terminal UI through it)? */
export function hasTmux(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

/**
 * What Claude Code's ~/.claude.json starts with, so that its UI goes straight to the prompt. Each
 * of the four marked fields was measured (2.1.332): without it the UI stops at, in turn, the
 * theme/welcome screens, "Do you want to use this API key?" (answered No by default; the list holds
 * the key's last 20 characters), the folder trust dialog, or "Channels are not currently available"
 * (tengu_harbor is the server-side feature behind channels; no feature service is reachable here,
 * so its cached value is what counts). The key is a placeholder, never a real one.
 */
export function seedClaudeJson(home: string, project: string, version: string): void {
  const state = {
    hasCompletedOnboarding: true, // measured
    lastOnboardingVersion: version,
    numStartups: 1,
    theme: 'dark',
    customApiKeyResponses: { approved: [FAKE_API_KEY.slice(-20)], rejected: [] }, // measured
    cachedGrowthBookFeatures: { tengu_harbor: true }, // measured
    projects: {
      // hasTrustDialogAccepted: measured
      [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] },
    },
  };
  writeFileSync(join(home, '.claude.json'), `${JSON.stringify(state, null, 2)}\n`);
}

export interface ClaudeSetup {
  /** HOME of Claude Code (its ~/.claude.json and ~/.claude/). */
  home: string;
  env: NodeJS.ProcessEnv;
  /** Where Claude Code tried to go past the machine (all refused). */
  connects: string[];
}

/**
 * A HOME for Claude Code under `root` and the environment to run it in: the model is the fake,
 * PAPO_HOME is the member's, other HTTPS goes to a proxy that refuses it. Channels stay possible:
 * DISABLE_TELEMETRY, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC and DO_NOT_TRACK each turn them off,
 * so none is set (docs/mcp.md, "Claude Code itself").
 */
export async function claudeSetup(
  t: Hooks,
  opts: { cc: ClaudeCode; root: string; project: string; papoHome: string; fake: FakeAnthropic },
): Promise<ClaudeSetup> {
  const home = join(opts.root, 'claude-home');
  mkdirSync(home, { recursive: true });
  seedClaudeJson(home, opts.project, opts.cc.version);
  // After Claude Code is stopped (hooks registered later run first, see stopFirst): its MCP servers.
  const sandbox = await clientSandbox(t, { binDir: opts.cc.binDir, home, papoHome: opts.papoHome });
  return { home, env: claudeEnv(sandbox.env, opts.fake), connects: sandbox.refused };
}

/** Claude Code's environment in a sandbox: its terminal, the fake model, no update, no official marketplace. */
export function claudeEnv(sandbox: NodeJS.ProcessEnv, fake: FakeAnthropic): NodeJS.ProcessEnv {
  return {
    ...sandbox,
    TERM: 'xterm-256color',
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: FAKE_API_KEY,
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

/** The recorder's compiled script (helpers/record-stdio.ts). */
const RECORDER = fileURLToPath(new URL('./record-stdio.js', import.meta.url));

/** PAPO_INSTALL_COMMAND that registers papo behind the stdio recorder, logging to `log`. */
export function recorderCommand(log: string): string {
  return [process.execPath, RECORDER, log, PAPO_BIN].map((w) => `'${w}'`).join(' ');
}

/** The JSON-RPC messages the recorder logged, in order, by direction. */
export function recordedLines(log: string): { dir: 'in' | 'out'; msg: Json }[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const { dir, line } = JSON.parse(l);
      let msg: Json;
      try {
        msg = JSON.parse(line);
      } catch {
        msg = { __raw: line };
      }
      return { dir, msg };
    });
}

/** Runs `papo install` (no --client: Claude Code is the default) in `project`, as the user would. */
export function papoInstall(
  project: string,
  env: NodeJS.ProcessEnv,
  extra: Record<string, string> = {},
): Promise<string> {
  return papoInstallWith([], project, env, extra);
}

/** The stream-json events of a `claude -p --output-format stream-json` run. */
export function streamEvents(stdout: string): Json[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

/**
 * Claude Code's terminal UI in a tmux server of its own: its socket is in the test's folder, so
 * killing that server ends only this test's Claude Code, and nothing is left in /tmp/tmux-*.
 */
export class TmuxClaude extends TmuxPane {
  constructor(env: NodeJS.ProcessEnv, cwd: string, folder: string) {
    super(env, cwd, folder, 'claude');
  }

  /** Starts `claude args...` in a 200x50 terminal; `t` stops it and its tmux server. */
  start(t: Hooks, args: string[]): void {
    t.after(() => this.stop());
    this.open(['claude', ...args]);
  }

  /**
   * Ends the tmux server, then waits (10 s at most, then SIGKILL) for Claude Code's own process:
   * hung up, it goes on writing its home for a moment, and a folder removed under it fails
   * (ENOTEMPTY, seen in CI). Its children (papo mcp) are left to `leftovers`, which names them.
   */
  async stop(): Promise<void> {
    const pid = this.panePid();
    this.killServer();
    if (Number.isInteger(pid) && pid > 0) await untilGone([pid]);
  }
}

/**
 * Claude Code's UI in tmux for voce of `room`, with papo registered by `papo install` behind the
 * stdio recorder (logging to `<room>/papo-stdio.jsonl`), papo's tools and `allow` allowed, in the
 * default permission mode (not auto mode, whose classifier asks the model about each tool call).
 * With `channels`, started as papo tells its users to (`--dangerously-load-development-channels
 * server:papo`, the warning answered with Enter); resolves once the prompt is ready. `env` is added
 * to Claude Code's environment (CLAUDE_CODE_HARBOR_KITE=0: no session messaging socket for papo, so
 * nothing is pushed without channels, ADR 0118).
 */
export async function startUi(
  early: Hooks,
  opts: {
    cc: ClaudeCode;
    room: Room;
    fake: FakeAnthropic;
    channels: boolean;
    allow?: string[];
    env?: Record<string, string>;
    /** The person's ~/.claude/settings.json (e.g. `crossSessionInbound`). */
    settings?: Json;
  },
): Promise<{ ui: TmuxClaude; log: string; setup: ClaudeSetup }> {
  const { room } = opts;
  const project = room.members.voce.project;
  const setup = await claudeSetup(early, {
    cc: opts.cc,
    root: room.root,
    project,
    papoHome: room.members.voce.home,
    fake: opts.fake,
  });
  if (opts.settings !== undefined) {
    mkdirSync(join(setup.home, '.claude'), { recursive: true });
    writeFileSync(join(setup.home, '.claude', 'settings.json'), `${JSON.stringify(opts.settings)}\n`);
  }
  const log = join(room.root, 'papo-stdio.jsonl');
  await papoInstall(project, setup.env, { PAPO_INSTALL_COMMAND: recorderCommand(log) });
  const ui = new TmuxClaude({ ...setup.env, ...opts.env }, project, room.root);
  const permissions = ['--permission-mode', 'default', '--allowedTools', 'mcp__papo', ...(opts.allow ?? [])];
  if (opts.channels) {
    ui.start(early, ['--dangerously-load-development-channels', 'server:papo', ...permissions]);
    await ui.until(/I am using this for local development/, 30_000);
    ui.keys('Enter');
    await ui.until(/Channels \(experimental\) messages from server:papo/, 30_000);
  } else {
    ui.start(early, permissions);
    await ui.until(/manual mode on/, 30_000);
  }
  return { ui, log, setup };
}

/** The channel notifications papo wrote to Claude Code (their params), from the recorder's log. */
export function recordedPushes(log: string): Json[] {
  return recordedLines(log)
    .filter((l) => l.dir === 'out' && l.msg.method === 'notifications/claude/channel')
    .map((l) => l.msg.params);
}

/**
 * The `<channel>` tag Claude Code (2.1.332) makes of one papo push: papo's meta as attributes, in
 * the order papo writes them (channelParams: from, msg_id, sender_kind, then reply_to and to when
 * present; measured with `to`), the body on lines of its own.
 */
export function channelTag(
  meta: { from: string; msgId: string; senderKind: 'agent' | 'human'; replyTo?: string; to?: string },
  body: string,
): string {
  const attrs = [
    `from="${meta.from}"`,
    `msg_id="${meta.msgId}"`,
    `sender_kind="${meta.senderKind}"`,
    ...(meta.replyTo === undefined ? [] : [`reply_to="${meta.replyTo}"`]),
    ...(meta.to === undefined ? [] : [`to="${meta.to}"`]),
  ];
  return `<channel source="papo" ${attrs.join(' ')}>\n${body}\n</channel>`;
}

/** Why a test of the interactive UI skips (no Claude Code, or no tmux), or false when it can run. */
export function uiSkip(cc: ClaudeCode | { skip: string }): string | false {
  return 'skip' in cc ? cc.skip : hasTmux() ? false : 'tmux is not installed (apt-get install tmux)';
}

/**
 * A room whose colleague (colega) is a plain `papo mcp` driven over stdio, initialized. `early`
 * runs its hooks before the room's folder is removed (stopFirst).
 */
export async function roomWithColleague(t: Hooks): Promise<{ early: Hooks; room: Room; colega: McpProcess }> {
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const colega = startAgent(room, room.members.colega);
  await colega.client.initialize();
  return { early, room, colega };
}

/** A scripted model turn: answers the message its pushed <channel> turn carried, with send and reply_to. */
export function answerPush(reply: string, to = 'colega'): (body: Json) => Json {
  return (body: Json) => {
    const pushed = userTexts(body).find((x) => x.startsWith('<channel source="papo"')) ?? '';
    const id = /msg_id="([0-9a-f]{10})"/.exec(pushed)?.[1] ?? 'missing';
    return { tools: [{ name: 'mcp__papo__send', input: { message: reply, to, reply_to: id } }] };
  };
}

/** The push at the colleague of what `from` (voce's model) answered. */
export function answerOf(colega: McpProcess, from = 'voce'): Promise<Json> {
  return colega.client.waitFor(
    (m) => m.method === 'notifications/claude/channel' && m.params?.meta?.from === from,
    30_000,
    `the answer of ${from}`,
  );
}

/**
 * The scripted model turn that loads papo's tools: Claude Code defers MCP tools, and the model
 * gets their schemas by calling ToolSearch with `select:` and the full names (mcp__papo__send...).
 */
export function loadTools(...names: string[]): Json {
  return {
    tools: [{ name: 'ToolSearch', input: { query: `select:${names.join(',')}`, max_results: names.length } }],
  };
}

/** Waits until `sleep 5` runs in Claude Code's Bash tool (a process of voce's environment). */
export async function untilSleeping(home: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const pid of processesWithEnv('PAPO_HOME', home)) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'latin1') === 'sleep\u00005\u0000') return;
      } catch {}
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the model’s `sleep 5` never ran');
}
