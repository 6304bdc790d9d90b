// `wait` and Claude Code's background rule (ADR 0067): in the interactive session, a tool call still
// running after 2 minutes is moved to the background; the model is told so at once, in a tool
// result of Claude Code's own, and papo's result reaches it later as a <task-notification>. papo's
// wait is not cancelled: it keeps running until a message arrives or its time is up.
//
// The first test runs in CI with the rule's threshold lowered by CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS
// (8 s): a wait shorter than it stays in the foreground, a longer one is moved, and the message
// that arrives afterwards reaches the model. The two others need the real 2 minutes and run only
// with PAPO_LONG_TESTS=1 (about 7 minutes; run by hand when the pinned Claude Code changes, see
// docs/mcp.md): a `wait` with the default timeout returns papo's own result in the foreground, a
// 150 s wait is moved after 120 s, and `claude -p` keeps a 150 s wait in the foreground.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { LIMITS, noNewMessages, UNTRUSTED_NOTICE } from '../../src/mcp/texts.js';
import { runClient } from '../support/client-run.js';
import type { McpProcess } from '../support/mcp-process.js';
import { msgIdIn } from '../support/papo.js';
import { callText, type Room, statusUntil } from '../support/room.js';
import {
  type FakeAnthropic,
  type Json,
  type RecordedRequest,
  startFakeAnthropic,
  toolResults,
  userTexts,
} from './fake-anthropic.js';
import {
  type ClaudeCode,
  claudeCode,
  claudeSetup,
  hasTmux,
  loadTools,
  papoInstall,
  recordedLines,
  recorderCommand,
  roomWithColleague,
  TmuxClaude,
} from './helpers/claude.js';

const cc = claudeCode();
const noClaude = 'skip' in cc ? cc.skip : false;
const skip = noClaude || (hasTmux() ? false : 'tmux is not installed (apt-get install tmux)');
const long =
  process.env.PAPO_LONG_TESTS === '1' ? false : 'needs 2 minutes of Claude Code: PAPO_LONG_TESTS=1';

const ANSWER = 'payment.confirmed carries id, amount_cents, currency and confirmed_at.';
const MOVED_NOTE = 'Waiting for colega in the background.';
const GOT_IT = 'Got the answer from colega.';

/** Claude Code's tool result for a call it moved to the background (2.1.332, interactive). */
function movedText(seconds: number): RegExp {
  return new RegExp(
    `^MCP tool "papo/wait" is still running after ${seconds}s\\. It was moved to the background as task (\\w+) and keeps running; you'll receive a notification with the result when it completes\\. You can keep working in the meantime\\. To stop it, use TaskStop with task_id "\\1"\\. Note: it does not survive exiting this session\\.$`,
  );
}

interface Scenario {
  /** CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS; Claude Code's own default (120 s) when absent. */
  thresholdMs?: number;
  /** The arguments of the first wait, which must end in the foreground with nobody writing. */
  shortWait: Json;
  /** What that wait waits, in seconds. */
  shortSeconds: number;
  /** The second wait's timeout: longer than the threshold. */
  longSeconds: number;
  /** Seconds after the move at which colega writes. */
  writeAfterMove: number;
}

/** A room, a Claude Code UI in tmux with papo behind the stdio recorder, the scripted model. */
async function backgroundScenario(t: TestContext, s: Scenario): Promise<void> {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);

  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__wait'),
    { tools: [{ name: 'mcp__papo__wait', input: s.shortWait }] },
    { tools: [{ name: 'mcp__papo__wait', input: { timeout_seconds: s.longSeconds, from: 'colega' } }] },
    { text: MOVED_NOTE },
    { text: GOT_IT },
  ]);
  early.after(() => fake.close());
  const { ui, log } = await startUi(early, c, room, colega, fake, s.thresholdMs);

  ui.keys('Agree the webhook fields with colega over papo.', 'Enter');
  const shortDone = await fake.waitForRequest(turn(2), (s.shortSeconds + 30) * 1000, 'the first wait');
  // Shorter than the threshold: papo's own result, as the tool result of the call.
  const short = toolResults(shortDone.body).at(-1);
  assert.equal(short?.text, noNewMessages(s.shortSeconds, ['colega']));
  assert.equal(short?.isError, false);

  const waitStart = shortDone.at;
  const threshold = (s.thresholdMs ?? LIMITS.claudeCodeBackgroundSeconds * 1000) / 1000;
  const moved = await fake.waitForRequest(turn(3), (threshold + 30) * 1000, 'the moved wait');
  const movedAfter = (moved.at - waitStart) / 1000;
  t.diagnostic(`the ${s.longSeconds} s wait was moved to the background after ${movedAfter.toFixed(1)} s`);
  assert.ok(movedAfter >= threshold - 0.5 && movedAfter < threshold + 5, `moved after ${movedAfter} s`);
  const note = toolResults(moved.body).at(-1);
  const task = movedText(threshold).exec(note?.text ?? '')?.[1];
  assert.ok(task !== undefined, `not Claude Code's background note: ${note?.text}`);
  await ui.until(/1 MCP task still running/, 10_000);

  await new Promise((r) => setTimeout(r, s.writeAfterMove * 1000));
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ANSWER, to: 'voce' }));
  // The model's turn had ended: the notification starts a new one, carrying papo's result.
  const notified = await fake.waitForRequest(turn(4), 30_000, 'the task notification');
  const notice = userTexts(notified.body).find((x) => x.includes('<task-notification>')) ?? '';
  assert.ok(
    notice.includes(
      `<task-notification>\n<task-id>${task}</task-id>\n<status>completed</status>\n<summary>MCP task ${task} (papo/wait) completed.</summary>\n<result>\n${UNTRUSTED_NOTICE}\n\n[msg_id=${askId} from=colega (agent) at `,
    ),
    notice,
  );
  assert.ok(notice.includes(` to=voce]\n  ${ANSWER}\n</result>\n</task-notification>`), notice);
  assert.ok(notice.includes('This is an automated background-task event, NOT a message from the user.'));
  await ui.until(/MCP task \w+ \(papo\/wait\) completed\./, 10_000);

  // papo's side: the call was never cancelled, and papo answered it with the message.
  const lines = recordedLines(log);
  assert.deepEqual(
    lines.filter((l) => l.dir === 'in' && l.msg.method === 'notifications/cancelled'),
    [],
    'Claude Code cancelled the wait',
  );
  const calls = lines.filter((l) => l.dir === 'in' && l.msg.method === 'tools/call');
  const longCall = calls.find((l) => l.msg.params.arguments.timeout_seconds === s.longSeconds);
  const answered = lines.find((l) => l.dir === 'out' && l.msg.id === longCall?.msg.id);
  assert.ok(answered?.msg.result.content[0].text.includes(`[msg_id=${askId} from=colega (agent)`));
  t.diagnostic(`requests to the model: ${fake.turnRequests().length} turns`);
}

/** Matches the main-loop request that took the scripted turn `n`. */
function turn(n: number): (r: RecordedRequest) => boolean {
  return (r) => r.kind === 'turn' && r.turn === n;
}

/** Claude Code's UI (no channels: only the wait carries the message), papo online for colega. */
async function startUi(
  early: { after: (fn: () => Promise<void> | void) => void },
  c: ClaudeCode,
  room: Room,
  colega: McpProcess,
  fake: FakeAnthropic,
  thresholdMs: number | undefined,
): Promise<{ ui: TmuxClaude; log: string }> {
  const project = room.members.voce.project;
  const setup = await claudeSetup(early, {
    cc: c,
    root: room.root,
    project,
    papoHome: room.members.voce.home,
    fake,
  });
  if (thresholdMs !== undefined) setup.env.CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS = String(thresholdMs);
  const log = join(room.root, 'papo-stdio.jsonl');
  await papoInstall(project, setup.env, { PAPO_INSTALL_COMMAND: recorderCommand(log) });
  const ui = new TmuxClaude(setup.env, project, room.root);
  ui.start(early, ['--permission-mode', 'default', '--allowedTools', 'mcp__papo']);
  await ui.until(/manual mode on/, 30_000);
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  return { ui, log };
}

test('interactive, threshold lowered to 8 s: a shorter wait stays in the foreground; a longer one is moved, not cancelled, and its message comes as a task notification', {
  skip,
  timeout: 150_000,
}, async (t) => {
  await backgroundScenario(t, {
    thresholdMs: 8000,
    shortWait: { timeout_seconds: 3 },
    shortSeconds: 3,
    longSeconds: 60,
    writeAfterMove: 2,
  });
});

test('interactive, the real 2 minutes: a wait with the default timeout returns in the foreground; a 150 s wait is moved after 120 s', {
  skip: skip || long,
  timeout: 420_000,
}, async (t) => {
  await backgroundScenario(t, {
    shortWait: {},
    shortSeconds: LIMITS.waitDefaultSeconds,
    longSeconds: 150,
    writeAfterMove: 10,
  });
});

test('claude -p: no background rule; a 150 s wait answered after 130 s is its tool result', {
  skip: noClaude || long,
  timeout: 300_000,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__wait'),
    { tools: [{ name: 'mcp__papo__wait', input: { timeout_seconds: 150, from: 'colega' } }] },
    { text: GOT_IT },
  ]);
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await claudeSetup(early, {
    cc: c,
    root: room.root,
    project,
    papoHome: room.members.voce.home,
    fake,
  });
  await papoInstall(project, setup.env);
  const run = runClient(
    early,
    'claude',
    ['-p', 'Agree the webhook fields with colega over papo.', '--allowedTools', 'mcp__papo'],
    { cwd: project, env: setup.env, timeoutMs: 240_000 },
  );
  const waiting = await fake.waitForRequest(turn(1), 60_000, 'the wait');
  await new Promise((r) => setTimeout(r, Math.max(0, waiting.at + 130_000 - Date.now())));
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ANSWER, to: 'voce' }));
  const result = await run;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), GOT_IT);
  const answered = await fake.waitForRequest(turn(2), 1000, 'the wait result');
  t.diagnostic(`the wait ended ${((answered.at - waiting.at) / 1000).toFixed(1)} s after it was called`);
  const waited = toolResults(answered.body).at(-1);
  assert.ok(
    waited?.text.startsWith(`${UNTRUSTED_NOTICE}\n\n[msg_id=${askId} from=colega (agent)`),
    waited?.text,
  );
});
