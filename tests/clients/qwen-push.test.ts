// Push with no flag into Qwen Code (ADR 0118, "Amended: Qwen Code"; issue 42): the real Qwen Code at
// its pin, its terminal UI in tmux, papo registered by `papo install --client qwen` alone. Qwen
// Code's TUI gives papo its session inbox (QWEN_CODE_MESSAGING_SOCKET/TOKEN, its Cross-Session
// Protocol), and papo writes a colleague's message there: it reaches the idle model once, in papo's
// frame with its msg_id, inside Qwen Code's <cross_session_message … origin="own-process">; the
// model's `send` with `reply_to` (through tool_call: Qwen Code 0.24 defers MCP tools) reaches the
// colleague, and `status` names the route, as `papo status` and `papo doctor` do. With the person's agents.crossSessionInbound set to
// refuse or hold, Qwen Code's receipt says so: the message never reaches the model, and `status`
// says why. `qwen -p` binds no inbox: `status` says pull only, and why.
// Skipped, with the reason, without Qwen Code, Node 22 or tmux. See docs/mcp.md, "Push".
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { pushedText, QWEN_NO_SOCKET } from '../../src/mcp/texts.js';
import { answerOf, hasTmux, roomWithColleague } from '../claude-code/helpers/claude.js';
import type { AgentCli } from '../support/agent-cli.js';
import { processesWithEnv, stopFirst } from '../support/client-run.js';
import { framedIdIn, occurrencesIn, stringsIn } from '../support/framed.js';
import { memberEnv, msgIdIn, runPapo } from '../support/papo.js';
import { callText, makeRoom, statusUntil } from '../support/room.js';
import { type Json, startFakeChatCompletions, type ToolCall, toolResults } from './fake-chat-completions.js';
import { qwenCli, qwenTurn, qwenUi } from './helpers/qwen.js';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** Why these tests skip (Node before 22, which Qwen Code 0.24 needs; no Qwen Code; no tmux), or false. */
function skipWhy(): string | false {
  if (NODE_MAJOR < 22) return `Qwen Code 0.24 needs Node 22 or later; this is Node ${process.versions.node}`;
  if (!hasTmux()) return 'tmux is not installed (apt-get install tmux)';
  const found = qwenCli();
  return 'skip' in found ? found.skip : false;
}

const skip = skipWhy();

const ASK = 'Hi, notifications agent here. Which fields does the payment.confirmed webhook carry?';
const REPLY = 'payment.confirmed carries id, amount_cents, currency and confirmed_at (ISO 8601).';

/** A call of a deferred tool as Qwen Code 0.24 has the model make it: through tool_call. */
function bridged(name: string, args: Json): ToolCall {
  return { name: 'tool_call', args: { name, arguments: args } };
}

/** Every string in the request's messages. */
const strings = (body: Json) => stringsIn(body?.messages);
/** How many times `needle` occurs in the request's messages. */
const occurrences = (body: Json, needle: string) => occurrencesIn(body?.messages, needle);
/** The msg_id in papo's frame, wherever the request carries it. */
const framedId = (body: Json) => framedIdIn(body?.messages);

test("TUI, no flag: a colleague's message reaches the idle model once through Qwen Code's session messages, in papo's frame; the model's send with reply_to reaches the colleague; status names the route", {
  skip,
}, async (t) => {
  const cli = qwenCli() as AgentCli;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeChatCompletions([
    { tools: [{ name: 'tool_search', args: { query: 'select:mcp__papo__send,mcp__papo__status' } }] },
    (body: Json) => ({
      tools: [bridged('mcp__papo__send', { message: REPLY, to: 'colega', reply_to: framedId(body) })],
    }),
    { tools: [bridged('mcp__papo__status', {})] },
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const { ui } = await qwenUi(early, {
    cli,
    root: room.root,
    project: room.members.voce.project,
    papoHome: room.members.voce.home,
    fake,
  });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  // The person's side names the route too: papo status and papo doctor ask the running papo mcp.
  const personEnv = { ...memberEnv(), PAPO_HOME: room.members.voce.home };
  const said = await runPapo(['status', '--timeout', '10'], { env: personEnv, timeoutMs: 60_000 });
  assert.match(
    said.stdout,
    /^Push into your agent: Qwen Code's session messages: room messages reach it without it calling wait\.$/m,
    said.stdout + said.stderr,
  );
  const doctor = await runPapo(['doctor', '--json'], { env: personEnv, timeoutMs: 60_000 });
  const pushNow = (JSON.parse(doctor.stdout).checks as Json[]).find((c) => c.id === 'push-now');
  assert.deepEqual([pushNow?.status, pushNow?.data?.route], ['ok', 'qwen-session'], doctor.stdout);

  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const sent = Date.now();
  const frame = pushedText(
    { id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' },
    'qwen-session',
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
  assert.ok(after < 10, `the idle session woke ${after} s later`);
  // Qwen Code 0.24.4's own envelope around papo's text: a process the session started, named papo,
  // its `from` papo's receipt socket (the day it changes, this says so).
  assert.match(
    carrier,
    /^<cross_session_message from="[^"]*\/papo-qwen-[^"/]+\/receipts\.sock" name="papo" origin="own-process">\n/,
  );
  assert.ok(carrier.includes(`origin="own-process">\n${frame}\n</cross_session_message>`), carrier);
  assert.equal(occurrences(pushed.body, frame), 1, 'the message reached the model more than once');
  assert.equal(occurrences(pushed.body, `msg_id=${askId}`), 1);
  // What the person sees in the terminal: Qwen Code's line for it, naming papo.
  const seen = await ui.until(/Message from a process this session started \(papo\)/, 10_000);
  t.diagnostic(
    `the person saw: ${seen
      .split('\n')
      .find((l) => l.includes('(papo)'))
      ?.trim()}`,
  );

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
  assert.match(status, /^Push: Qwen Code's session messages: room messages arrive in this conversation/m);
});

/** The model's slow command (Qwen Code turns a foreground `sleep` away): five seconds of node. */
const SLOW = "node -e 'setTimeout(() => {}, 5000)'";

/** Waits until the slow command runs in Qwen Code's shell (a process of voce's environment). */
async function untilSlowRuns(home: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const pid of processesWithEnv('PAPO_HOME', home)) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('setTimeout(() => {}, 5000)')) return;
      } catch {}
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the model’s slow command never ran');
}

test('TUI, the model busy in a shell command: the message waits for the end of the turn, then reaches the model once, in papo’s frame; the answer reaches the colleague', {
  skip,
}, async (t) => {
  const cli = qwenCli() as AgentCli;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeChatCompletions([
    {
      tools: [{ name: 'run_shell_command', args: { command: SLOW, description: 'Run the slow test suite' } }],
    },
    { text: 'The suite passed.' },
    { tools: [{ name: 'tool_search', args: { query: 'select:mcp__papo__send' } }] },
    (body: Json) => ({
      tools: [bridged('mcp__papo__send', { message: REPLY, to: 'colega', reply_to: framedId(body) })],
    }),
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const { ui } = await qwenUi(early, {
    cli,
    root: room.root,
    project: room.members.voce.project,
    papoHome: room.members.voce.home,
    fake,
    approvalMode: 'yolo',
  });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  ui.keys('Run the slow test suite.');
  ui.keys('Enter');
  await untilSlowRuns(room.members.voce.home, 30_000);
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const sentAt = Date.now();
  const frame = pushedText(
    { id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' },
    'qwen-session',
  );
  const pushed = await fake.waitForRequest(
    (r) => r.kind === 'turn' && occurrences(r.body, frame) > 0,
    30_000,
    "the model turn carrying papo's frame",
  );
  const turns = fake.turnRequests();
  const afterCall = turns[1];
  assert.ok(afterCall !== undefined);
  t.diagnostic(
    `sent ${((sentAt - (turns[0]?.at ?? 0)) / 1000).toFixed(1)} s into the turn; the model got it ${((pushed.at - sentAt) / 1000).toFixed(1)} s later, after the turn's end`,
  );
  // The request with the command's result does not carry it; the one after the turn's last answer does.
  assert.equal(occurrences(afterCall.body, frame), 0, 'the message came in the middle of the turn');
  assert.equal(pushed.turn, 2, `the message reached the model with scripted turn ${pushed.turn}`);
  assert.ok(
    strings(pushed.body).includes('The suite passed.'),
    'the message reached the model before the turn ended',
  );
  assert.equal(occurrences(pushed.body, frame), 1);
  const answer = await answerOf(colega);
  assert.equal(answer.params.meta.reply_to, askId);
  await ui.until(/Answered colega\./, 30_000);
  assert.equal(occurrences(fake.turnRequests().at(-1)?.body, frame), 1);
});

for (const [policy, said] of [
  ['refuse', /Qwen Code refused it \(agents\.crossSessionInbound is refuse/],
  ['hold', /Qwen Code held it for review \(agents\.crossSessionInbound is hold/],
] as const) {
  test(`TUI, the person's agents.crossSessionInbound is ${policy}: Qwen Code's receipt says so, the message never reaches the model, and status says why`, {
    skip,
  }, async (t) => {
    const cli = qwenCli() as AgentCli;
    const { early, room, colega } = await roomWithColleague(t);
    const fake = await startFakeChatCompletions([
      { tools: [{ name: 'tool_search', args: { query: 'select:mcp__papo__status' } }] },
      { tools: [bridged('mcp__papo__status', {})] },
      { text: 'Checked.' },
    ]);
    early.after(() => fake.close());
    const { ui } = await qwenUi(early, {
      cli,
      root: room.root,
      project: room.members.voce.project,
      papoHome: room.members.voce.home,
      fake,
      settings: { agents: { crossSessionInbound: policy } },
    });
    await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
    const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
    await new Promise((r) => setTimeout(r, 4000));
    assert.deepEqual(
      fake.requests.filter((r) => JSON.stringify(r.body).includes(askId)),
      [],
      `the message reached the model (${policy})`,
    );
    ui.keys('How is the room?');
    ui.keys('Enter');
    await ui.until(/Checked\./, 30_000);
    const status = toolResults(fake.turnRequests().at(-1)?.body).at(-1)?.text ?? '';
    assert.match(
      status,
      /^Push: pull only: call `wait` when you expect a message \(Qwen Code's session messages: failed \(/m,
    );
    assert.match(status, said);
    t.diagnostic(`status said: ${status.split('\n').find((l) => l.startsWith('Push:'))}`);
  });
}

test('headless, qwen -p: Qwen Code binds no inbox, and status says pull only, with why', {
  skip,
}, async (t) => {
  const cli = qwenCli() as AgentCli;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const fake = await startFakeChatCompletions([
    { tools: [{ name: 'tool_search', args: { query: 'select:mcp__papo__status' } }] },
    { tools: [bridged('mcp__papo__status', {})] },
    { text: 'Checked.' },
  ]);
  early.after(() => fake.close());
  const run = await qwenTurn(early, {
    cli,
    root: room.root,
    project: room.members.voce.project,
    papoHome: room.members.voce.home,
    fake,
    prompt: 'How is the room?',
  });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const status = toolResults(fake.turnRequests().at(-1)?.body).at(-1)?.text ?? '';
  assert.ok(
    status.includes(
      `Push: pull only: call \`wait\` when you expect a message (Qwen Code's session messages: ${QWEN_NO_SOCKET}).`,
    ),
    status,
  );
});
