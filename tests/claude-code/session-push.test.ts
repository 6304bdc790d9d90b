// Push with no flag (ADR 0118, issue 42): the real Claude Code at its pin, its terminal UI in tmux,
// started WITHOUT any channels flag, papo registered by `papo install`. Claude Code gives papo its
// session messaging socket (CLAUDE_CODE_MESSAGING_SOCKET/TOKEN), and papo writes a colleague's
// message there: it reaches the idle model once, in papo's frame with its msg_id, and the model's
// `send` with `reply_to` reaches the colleague. No channel event is written. With
// CLAUDE_CODE_HARBOR_KITE=0 Claude Code gives papo no socket, and `status` says pull only.
// Skipped, with the reason, without Claude Code or tmux. See docs/mcp.md, "Push".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pushedText } from '../../src/mcp/texts.js';
import { msgIdIn } from '../support/papo.js';
import { callText, statusUntil } from '../support/room.js';
import { type Json, startFakeAnthropic, toolResults } from './fake-anthropic.js';
import {
  answerOf,
  type ClaudeCode,
  claudeCode,
  claudeSetup,
  loadTools,
  papoInstall,
  recordedPushes,
  recorderCommand,
  roomWithColleague,
  startUi,
  TmuxClaude,
  uiSkip,
} from './helpers/claude.js';

const cc = claudeCode();
const skip = uiSkip(cc);

const ASK = 'Hi, notifications agent here. Which fields does the payment.confirmed webhook carry?';
const REPLY = 'payment.confirmed carries id, amount_cents, currency and confirmed_at (ISO 8601).';

/** Every string in the request's messages (text blocks, tool results, system entries). */
function strings(body: Json): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(body?.messages ?? []);
  return out;
}

/** How many times `needle` occurs in the request's messages. */
function occurrences(body: Json, needle: string): number {
  return strings(body).reduce((n, s) => n + s.split(needle).length - 1, 0);
}

/** The msg_id in papo's frame, in whatever Claude Code wrapped it in. */
function framedId(body: Json): string {
  for (const s of strings(body)) {
    const m = /\[papo room message from colega \(another person's agent\), msg_id=([0-9a-f]{10})/.exec(s);
    if (m !== null) return m[1] as string;
  }
  return 'missing';
}

test("interactive, no channels flag: a colleague's message reaches the idle model once through Claude Code's session messages, in papo's frame; the model's send with reply_to reaches the colleague", {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__send', 'mcp__papo__status'),
    (body: Json) => ({
      tools: [{ name: 'mcp__papo__send', input: { message: REPLY, to: 'colega', reply_to: framedId(body) } }],
    }),
    { tools: [{ name: 'mcp__papo__status', input: {} }] },
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const { ui, log } = await startUi(early, { cc: c, room, fake, channels: false });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const sent = Date.now();
  const frame = pushedText({ id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' });
  const pushed = await fake.waitForRequest(
    (r) => r.kind === 'turn' && occurrences(r.body, frame) > 0,
    30_000,
    "the model turn carrying papo's frame",
  );
  const after = (pushed.at - sent) / 1000;
  t.diagnostic(
    `the message reached the idle model ${after.toFixed(2)} s after the colleague's send returned`,
  );
  const carrier = strings(pushed.body).find((s) => s.includes(frame)) ?? '';
  t.diagnostic(`what the model read: ${JSON.stringify(carrier)}`);
  assert.equal(pushed.turn, 0, 'the push was not the first thing the model was asked');
  assert.ok(after < 5, `the idle session woke ${after} s later`);
  // Claude Code 2.1.332's own words around papo's text (the day they change, this says so).
  assert.ok(
    carrier.startsWith(
      `Another Claude session sent a message:\n${frame}\n\nThis came from another Claude session`,
    ),
    'Claude Code wraps the text differently now',
  );
  assert.equal(occurrences(pushed.body, frame), 1, 'the message reached the model more than once');
  assert.equal(occurrences(pushed.body, `msg_id=${askId}`), 1);

  const answer = await answerOf(colega);
  assert.equal(answer.params.content, REPLY);
  assert.equal(answer.params.meta.reply_to, askId);
  await ui.until(/Answered colega\./, 30_000);

  // The whole conversation: the message once (the push), never in a tool result; status named the route.
  const last = fake.turnRequests().at(-1)?.body;
  assert.equal(occurrences(last, frame), 1);
  const results = toolResults(last);
  assert.ok(!results.some((r) => r.text.includes(`msg_id=${askId} `)), 'a tool result handed it again');
  const status = results.at(-1)?.text ?? '';
  assert.match(status, /^Push: Claude Code's session messages \(no channels flag\)/m);
  assert.deepEqual(recordedPushes(log), [], 'papo also wrote channel events');
});

test('interactive, CLAUDE_CODE_HARBOR_KITE=0: Claude Code gives papo no socket, and status says pull only', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room } = await roomWithColleague(t);
  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__status'),
    { tools: [{ name: 'mcp__papo__status', input: {} }] },
    { text: 'Checked.' },
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
  await papoInstall(project, setup.env, {
    PAPO_INSTALL_COMMAND: recorderCommand(`${room.root}/papo-stdio.jsonl`),
  });
  const ui = new TmuxClaude({ ...setup.env, CLAUDE_CODE_HARBOR_KITE: '0' }, project, room.root);
  ui.start(early, ['--permission-mode', 'default', '--allowedTools', 'mcp__papo']);
  await ui.until(/manual mode on/, 30_000);
  ui.keys('How is the room?', 'Enter');
  await ui.until(/Checked\./, 30_000);
  const status = toolResults(fake.turnRequests().at(-1)?.body).at(-1)?.text ?? '';
  assert.match(
    status,
    /^Push: pull only: call `wait` .*Claude Code's session messages: no messaging socket from the client/m,
  );
});
