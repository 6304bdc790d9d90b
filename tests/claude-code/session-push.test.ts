// Push with no flag (ADR 0118, issue 42): the real Claude Code at its pin, its terminal UI in tmux,
// started WITHOUT any channels flag, papo registered by `papo install`. Claude Code gives papo its
// session messaging socket (CLAUDE_CODE_MESSAGING_SOCKET/TOKEN), and papo writes a colleague's
// message there: it reaches the idle model once, in papo's frame with its msg_id, and the model's
// `send` with `reply_to` reaches the colleague. No channel event is written. With
// CLAUDE_CODE_HARBOR_KITE=0 Claude Code gives papo no socket, and `status` says pull only.
// Skipped, with the reason, without Claude Code or tmux. See docs/mcp.md, "Push".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALREADY_PUSHED, NO_UNREAD, pushedText } from '../../src/mcp/texts.js';
import { framedIdIn, occurrencesIn, stringsIn } from '../support/framed.js';
import { msgIdIn, runPapo, userEnv } from '../support/papo.js';
import { callText, statusUntil } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { type Json, startFakeAnthropic, timesShown, toolResults } from './fake-anthropic.js';
import {
  answerOf,
  answerPush,
  type ClaudeCode,
  claudeCode,
  loadTools,
  recordedLines,
  recordedPushes,
  roomWithColleague,
  startUi,
  uiSkip,
  untilSleeping,
} from './helpers/claude.js';
import { PLUGIN_TOOL_PREFIX, pluginUi } from './helpers/plugin.js';

const cc = claudeCode();
const skip = uiSkip(cc);

const ASK = 'Hi, notifications agent here. Which fields does the payment.confirmed webhook carry?';
const REPLY = 'payment.confirmed carries id, amount_cents, currency and confirmed_at (ISO 8601).';

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every string in the request's messages. */
const strings = (body: Json) => stringsIn(body?.messages);
/** How many times `needle` occurs in the request's messages. */
const occurrences = (body: Json, needle: string) => occurrencesIn(body?.messages, needle);
/** The msg_id in papo's frame, wherever the request carries it. */
const framedId = (body: Json) => framedIdIn(body?.messages);

test("interactive, no channels flag: a colleague's message reaches the idle model once through Claude Code's session messages, in papo's frame; the model's send with reply_to reaches the colleague", {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__send', 'mcp__papo__status', 'mcp__papo__inbox'),
    (body: Json) => ({
      tools: [{ name: 'mcp__papo__send', input: { message: REPLY, to: 'colega', reply_to: framedId(body) } }],
    }),
    { tools: [{ name: 'mcp__papo__status', input: {} }] },
    { tools: [{ name: 'mcp__papo__inbox', input: {} }] },
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const { ui, log } = await startUi(early, { cc: c, room, fake, channels: false });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const sent = Date.now();
  const frame = pushedText(
    { id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' },
    'claude-session',
  );
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
  const status = results.at(-2)?.text ?? '';
  assert.match(status, /^Push: Claude Code's session messages \(no channels flag\)/m);
  // The reply to an id only the push showed is ADR 0066's evidence on this route too: the message
  // is read, and `inbox` does not hand it again.
  assert.equal(results.at(-1)?.text, NO_UNREAD);
  assert.deepEqual(recordedPushes(log), [], 'papo also wrote channel events');
  // The person's side names the route too: papo status and papo doctor ask the running papo mcp.
  const voceEnv = userEnv(room.members.voce.home);
  const said = await runPapo(['status', '--timeout', '10'], { env: voceEnv, timeoutMs: 60_000 });
  assert.match(
    said.stdout,
    /^Push into your agent: Claude Code's session messages \(no channels flag\): room messages reach it without it calling wait\.$/m,
    said.stdout + said.stderr,
  );
  const doctor = await runPapo(['doctor', '--json'], { env: voceEnv, timeoutMs: 60_000 });
  const pushNow = (JSON.parse(doctor.stdout).checks as Json[]).find((c) => c.id === 'push-now');
  assert.deepEqual([pushNow?.status, pushNow?.data?.route], ['ok', 'claude-session'], doctor.stdout);
});

test('interactive, CLAUDE_CODE_HARBOR_KITE=0: Claude Code gives papo no socket, status says pull only, and wait still brings the message', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__status', 'mcp__papo__wait'),
    { tools: [{ name: 'mcp__papo__status', input: {} }] },
    { tools: [{ name: 'mcp__papo__wait', input: { timeout_seconds: 60, from: 'colega' } }] },
    { text: 'Checked.' },
  ]);
  early.after(() => fake.close());
  const { ui, log } = await startUi(early, {
    cc: c,
    room,
    fake,
    channels: false,
    env: { CLAUDE_CODE_HARBOR_KITE: '0' },
  });
  ui.keys('How is the room?', 'Enter');
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  await waitFor(
    'the model calling wait',
    () => recordedLines(log).some((l) => l.dir === 'in' && l.msg.params?.name === 'wait'),
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  await ui.until(/Checked\./, 60_000);
  const results = toolResults(fake.turnRequests().at(-1)?.body);
  assert.match(results.at(-1)?.text ?? '', new RegExp(`msg_id=${askId} from=colega`), 'wait brought it');
  const status = results.at(-2)?.text ?? '';
  assert.match(
    status,
    /^Push: pull only: call `wait` .*Claude Code's session messages: no messaging socket from the client/m,
  );
  // papo status says the same to the person, and papo doctor warns with what to do.
  const voceEnv = userEnv(room.members.voce.home);
  const said = await runPapo(['status', '--timeout', '10'], { env: voceEnv, timeoutMs: 60_000 });
  assert.match(
    said.stdout,
    /^Push into your agent: none; it reads room messages when it calls wait or inbox \(Claude Code's session messages \(no channels flag\): no messaging socket from the client/m,
    said.stdout + said.stderr,
  );
  const doctor = await runPapo(['doctor', '--json'], { env: voceEnv, timeoutMs: 60_000 });
  const pushNow = (JSON.parse(doctor.stdout).checks as Json[]).find((c) => c.id === 'push-now');
  assert.deepEqual([pushNow?.status, pushNow?.data?.route], ['warn', 'channel'], doctor.stdout);
});

test('interactive, no channels flag, the model busy in a tool call: the message reaches it right after the tool result, once, in papo’s frame', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeAnthropic([
    { tools: [{ name: 'Bash', input: { command: 'sleep 5', description: 'Run the slow test suite' } }] },
    loadTools('mcp__papo__send'),
    (body: Json) => ({
      tools: [{ name: 'mcp__papo__send', input: { message: REPLY, to: 'colega', reply_to: framedId(body) } }],
    }),
    { text: 'The suite passed; answered colega.' },
  ]);
  early.after(() => fake.close());
  const { ui, log } = await startUi(early, { cc: c, room, fake, channels: false, allow: ['Bash(sleep:*)'] });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  ui.keys('Run the slow test suite.', 'Enter');
  await untilSleeping(room.members.voce.home, 30_000);
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const delivered = Date.now();
  await ui.until(/The suite passed; answered colega\./, 30_000);

  const [first, afterCall] = fake.turnRequests();
  assert.ok(first !== undefined && afterCall !== undefined);
  t.diagnostic(
    `sent ${((delivered - first.at) / 1000).toFixed(1)} s into the 5 s call; the model got it ${((afterCall.at - delivered) / 1000).toFixed(1)} s later`,
  );
  assert.ok(delivered < afterCall.at);
  const frame = pushedText(
    { id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' },
    'claude-session',
  );
  // The request right after the call: Bash's result, then the message, once.
  assert.equal(toolResults(afterCall.body)[0]?.text, '(Bash completed with no output)');
  assert.equal(occurrences(afterCall.body, frame), 1);
  const messages: Json[] = afterCall.body.messages;
  const bashResult = messages.findIndex(
    (m: Json) => Array.isArray(m.content) && m.content.some((b: Json) => b.type === 'tool_result'),
  );
  const where = messages.findIndex((m) => strings({ messages: [m] }).some((s) => s.includes(frame)));
  t.diagnostic(
    `the message came as a ${messages[where]?.role} entry at ${where}, the tool result at ${bashResult}`,
  );
  assert.ok(where >= bashResult, 'the message came before the tool result');
  const answer = await answerOf(colega);
  assert.equal(answer.params.meta.reply_to, askId);
  const last = fake.turnRequests().at(-1)?.body;
  assert.equal(occurrences(last, frame), 1);
  assert.deepEqual(recordedPushes(log), []);
});

test('interactive, channels flag given: the message comes through the channel only, once, never through the session socket', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__send', 'mcp__papo__status'),
    answerPush(REPLY),
    { tools: [{ name: 'mcp__papo__status', input: {} }] },
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const { ui, log } = await startUi(early, { cc: c, room, fake, channels: true });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const answer = await answerOf(colega);
  assert.equal(answer.params.meta.reply_to, askId);
  await ui.until(/Answered colega\./, 30_000);
  // Give a second route the time to show up, then count.
  await new Promise((r) => setTimeout(r, 2000));
  const last = fake.turnRequests().at(-1)?.body;
  assert.deepEqual(timesShown(last, askId), { pushes: 1, results: 0 });
  assert.equal(occurrences(last, '[papo room message from colega'), 0, 'the session socket carried it too');
  assert.deepEqual(
    recordedPushes(log).map((p) => p.meta.msg_id),
    [askId],
  );
  assert.match(
    toolResults(last).at(-1)?.text ?? '',
    /^Push: channels \(<channel source="papo"> events\)\.$/m,
  );
  t.diagnostic('through the channel once; nothing through the session socket');
});

test('interactive, no channels flag, review on: a held message never reaches the model; once the person approves it, it does, once, in papo’s frame', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);
  const voceEnv = userEnv(room.members.voce.home);
  const on = await runPapo(['review', 'on'], { env: voceEnv });
  assert.equal(on.code, 0, on.stderr);
  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__send'),
    (body: Json) => ({
      tools: [{ name: 'mcp__papo__send', input: { message: REPLY, to: 'colega', reply_to: framedId(body) } }],
    }),
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const { ui, log } = await startUi(early, { cc: c, room, fake, channels: false });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  // Held: five seconds in which an idle session would have woken 0.2-0.5 s after a push.
  await new Promise((r) => setTimeout(r, 5000));
  assert.deepEqual(
    fake.requests.filter((r) => occurrences(r.body, askId) > 0 || JSON.stringify(r.body).includes(ASK)),
    [],
    'the held message reached the model',
  );
  const approved = await runPapo(['review', 'approve', askId], { env: voceEnv });
  assert.equal(approved.code, 0, approved.stderr);
  const approvedAt = Date.now();
  const frame = pushedText(
    { id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' },
    'claude-session',
  );
  const pushed = await fake.waitForRequest(
    (r) => r.kind === 'turn' && occurrences(r.body, frame) > 0,
    30_000,
    'the model turn carrying the approved message',
  );
  t.diagnostic(
    `the approved message reached the model ${((pushed.at - approvedAt) / 1000).toFixed(2)} s after papo review approve returned`,
  );
  const answer = await answerOf(colega);
  assert.equal(answer.params.meta.reply_to, askId);
  await ui.until(/Answered colega\./, 30_000);
  assert.equal(occurrences(fake.turnRequests().at(-1)?.body, frame), 1);
  assert.deepEqual(recordedPushes(log), []);
});

test('interactive, through the plugin, no channels flag: the message reaches the idle model once in papo’s frame; the answer through the plugin’s send reaches the colleague', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);
  const send = `${PLUGIN_TOOL_PREFIX}send`;
  const fake = await startFakeAnthropic([
    loadTools(send),
    (body: Json) => ({
      tools: [{ name: send, input: { message: REPLY, to: 'colega', reply_to: framedId(body) } }],
    }),
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const ui = await pluginUi(early, {
    cc: c,
    room,
    fake,
    args: ['--permission-mode', 'default', '--allowedTools', 'mcp__plugin_papo_papo'],
  });
  await ui.until(/manual mode on/, 30_000);
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const sent = Date.now();
  const frame = pushedText(
    { id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' },
    'claude-session',
  );
  const pushed = await fake.waitForRequest(
    (r) => r.kind === 'turn' && occurrences(r.body, frame) > 0,
    30_000,
    "the model turn carrying papo's frame",
  );
  t.diagnostic(
    `the message reached the idle model ${((pushed.at - sent) / 1000).toFixed(2)} s after the send`,
  );
  assert.equal(pushed.turn, 0);
  const answer = await answerOf(colega);
  assert.equal(answer.params.meta.reply_to, askId);
  await ui.until(/Answered colega\./, 30_000);
  assert.equal(occurrences(fake.turnRequests().at(-1)?.body, frame), 1);
});

test("interactive, no channels flag, Claude Code set to refuse session messages (crossSessionInbound): the message does not reach the model, Claude Code's receipt makes papo fall back and say why, and inbox hands it", {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__inbox'),
    { tools: [{ name: 'mcp__papo__inbox', input: {} }] },
    { text: 'Read the inbox.' },
  ]);
  early.after(() => fake.close());
  const { ui } = await startUi(early, {
    cc: c,
    room,
    fake,
    channels: false,
    settings: { crossSessionInbound: 'refuse' },
  });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  await new Promise((r) => setTimeout(r, 4000));
  assert.deepEqual(
    fake.requests.filter((r) => JSON.stringify(r.body).includes(askId)),
    [],
    'the refused message reached the model',
  );
  // Claude Code's receipt (refused) reached papo: the person is told, and why.
  const voceEnv = userEnv(room.members.voce.home);
  const said = await runPapo(['status', '--timeout', '10'], { env: voceEnv, timeoutMs: 60_000 });
  assert.match(
    said.stdout,
    /^Push into your agent: none; it reads room messages when it calls wait or inbox \(Claude Code's session messages \(no channels flag\): failed: Claude Code refuses messages from other sessions/m,
    said.stdout + said.stderr,
  );
  ui.keys('Anything new from the room?', 'Enter');
  await ui.until(/Read the inbox\./, 30_000);
  const inbox = toolResults(fake.turnRequests().at(-1)?.body).at(-1)?.text ?? '';
  // Handed to the fallback (channel events, which Claude Code drops without the flag): marked so.
  assert.match(
    inbox,
    new RegExp(`^\\[msg_id=${askId} from=colega \\(agent\\) .*\\]${literal(ALREADY_PUSHED)}$`, 'm'),
  );
  t.diagnostic('refused by Claude Code, said by its receipt, handed by inbox');
});

test('interactive, DISABLE_TELEMETRY=1 (which turns channels off): the session push still reaches the model, once', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeAnthropic([{ text: 'Seen.' }]);
  early.after(() => fake.close());
  await startUi(early, { cc: c, room, fake, channels: false, env: { DISABLE_TELEMETRY: '1' } });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const frame = pushedText(
    { id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' },
    'claude-session',
  );
  const pushed = await fake.waitForRequest(
    (r) => r.kind === 'turn' && occurrences(r.body, frame) > 0,
    30_000,
    "the model turn carrying papo's frame",
  );
  assert.equal(occurrences(pushed.body, frame), 1);
  t.diagnostic('DISABLE_TELEMETRY=1: pushed through the session socket');
});
