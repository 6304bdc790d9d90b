// Push with no flag into Codex (ADR 0118 "Amended: Codex CLI", issue 42): the real Codex CLI at its
// pin, its terminal UI in tmux as a person runs it, papo registered by `papo install --client
// codex` only, the model the scripted fake Responses API. After the person's first prompt (in
// which the model calls papo's `status`, which names the route, as `papo status` and `papo doctor`
// do), a colleague's message is queued by papo with `codex queue` into that thread: the terminal UI
// takes it as a turn of its own, so it reaches the model once, in papo's frame with its msg_id,
// and the model's `send` with `reply_to` reaches the colleague. Also: a message before the first
// prompt, and one during a turn. Skipped, with the reason, without Codex or tmux. The door in-process:
// tests/mcp/push-door-codex.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pushedText } from '../../src/mcp/texts.js';
import { answerOf, hasTmux, roomWithColleague } from '../claude-code/helpers/claude.js';
import type { AgentCli } from '../support/agent-cli.js';
import { leftovers, papoInstallFor } from '../support/client-run.js';
import { framedIdIn, occurrencesIn, stringsIn } from '../support/framed.js';
import { memberEnv, msgIdIn, runPapo } from '../support/papo.js';
import { callText, statusUntil } from '../support/room.js';
import { functionOutputs, type Json, papoCall, startFakeOpenAI } from './fake-openai.js';
import { codexCli, codexSetup, TmuxCodex } from './helpers/codex.js';
import { ASK, REPLY } from './helpers/exchange.js';

const found = codexCli();
const skip =
  'skip' in found ? found.skip : hasTmux() ? false : 'tmux is not installed (apt-get install tmux)';
const cli = found as AgentCli;

const FIRST_PROMPT = 'We are building the payment webhook; the notifications agent may ask about it.';

/** Every string in the request's input. */
const strings = (body: Json) => stringsIn(body?.input);
/** How many times `needle` occurs in the request's input. */
const occurrences = (body: Json, needle: string) => occurrencesIn(body?.input, needle);
/** The msg_id in papo's frame, wherever the request carries it. */
const framedId = (body: Json) => framedIdIn(body?.input);

test("terminal UI, no flag: a colleague's message is queued into Codex's thread with codex queue, reaches the model once in papo's frame, and the model's send with reply_to reaches the colleague", {
  skip,
}, async (t) => {
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeOpenAI([
    { tools: [papoCall('status')] },
    { text: 'Ready for the notifications agent.' },
    (body: Json) => ({
      tools: [papoCall('send', { message: REPLY, to: 'colega', reply_to: framedId(body) })],
    }),
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await codexSetup(early, { cli, root: room.root, fake, papoHome: room.members.voce.home });
  await papoInstallFor('codex', project, setup.env);
  const ui = new TmuxCodex(setup, project, room.root);
  await ui.start(early);

  // The person's first prompt: Codex opens the thread's rollout, where papo finds the thread.
  await ui.prompt(FIRST_PROMPT);
  await ui.until(/Ready for the notifications agent\./, 60_000);
  const status = functionOutputs(fake.turnRequests()[1]?.body).find((o) => o.name === 'status')?.text ?? '';
  assert.match(status, /^Push: Codex's queued turns \(codex queue\): room messages arrive/m, status);
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  // The person's side names it too: papo status and papo doctor ask the running papo mcp.
  const personEnv = { ...memberEnv(), PAPO_HOME: room.members.voce.home };
  const said = await runPapo(['status', '--timeout', '10'], { env: personEnv, timeoutMs: 60_000 });
  assert.match(
    said.stdout,
    /^Push into your agent: Codex's queued turns \(codex queue\): room messages reach it without it calling wait\.$/m,
    said.stdout + said.stderr,
  );
  const doctor = await runPapo(['doctor', '--json'], { env: personEnv, timeoutMs: 60_000 });
  const pushNow = (JSON.parse(doctor.stdout).checks as Json[]).find((c) => c.id === 'push-now');
  assert.deepEqual([pushNow?.status, pushNow?.data?.route], ['ok', 'codex-queue'], doctor.stdout);

  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const sent = Date.now();
  const frame = pushedText(
    { id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' },
    'codex-queue',
  );
  const pushed = await fake.waitForRequest(
    (r) => r.kind === 'turn' && occurrences(r.body, frame) > 0,
    60_000,
    "the model turn carrying papo's frame",
  );
  const after = (pushed.at - sent) / 1000;
  t.diagnostic(
    `the queued turn reached the idle model ${after.toFixed(2)} s after the colleague's send returned`,
  );
  const carrier = strings(pushed.body).find((s) => s.includes(frame)) ?? '';
  t.diagnostic(`what the model read: ${JSON.stringify(carrier)}`);
  assert.equal(pushed.turn, 2, 'the queued turn was not the model’s third');
  // Codex 0.171.0 puts nothing of its own around a queued message: the person's turn is papo's text.
  assert.equal(carrier, frame, 'Codex wraps a queued message now');
  assert.equal(occurrences(pushed.body, frame), 1, 'the message reached the model more than once');
  assert.equal(occurrences(pushed.body, `msg_id=${askId}`), 1);

  const answer = await answerOf(colega);
  assert.equal(answer.params.content, REPLY);
  assert.equal(answer.params.meta.reply_to, askId);
  await ui.until(/Answered colega\./, 30_000);
  const last = fake.turnRequests().at(-1)?.body;
  assert.equal(occurrences(last, frame), 1, 'the message reached the model again');
  assert.equal(fake.turnRequests().length, 4, `model turns: ${fake.turnRequests().length}`);
  t.diagnostic(`Codex ${cli.version}; refused outside connections: ${setup.connects.join(', ') || 'none'}`);

  await ui.stop();
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived Codex');
});

test("terminal UI, a colleague's message before the person's first prompt: papo queues it once the thread has its first turn, and it comes after that turn", {
  skip,
}, async (t) => {
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeOpenAI([
    { text: 'Noted.' },
    (body: Json) => ({
      tools: [papoCall('send', { message: REPLY, to: 'colega', reply_to: framedId(body) })],
    }),
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await codexSetup(early, { cli, root: room.root, fake, papoHome: room.members.voce.home });
  await papoInstallFor('codex', project, setup.env);
  const ui = new TmuxCodex(setup, project, room.root);
  await ui.start(early);
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  // Codex has no rollout before the first turn, and `codex queue` refuses such a thread: papo waits.
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const frame = pushedText(
    { id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' },
    'codex-queue',
  );
  await new Promise((r) => setTimeout(r, 3000));
  assert.deepEqual(fake.turnRequests(), [], 'the model was asked something before the person’s prompt');
  await ui.prompt(FIRST_PROMPT);
  const pushed = await fake.waitForRequest(
    (r) => r.kind === 'turn' && occurrences(r.body, frame) > 0,
    60_000,
    "the model turn carrying papo's frame",
  );
  assert.equal(pushed.turn, 1, 'the queued turn was not the one after the person’s');
  assert.equal(occurrences(fake.turnRequests()[0]?.body, frame), 0);
  assert.equal(occurrences(pushed.body, frame), 1, 'the message reached the model more than once');

  const answer = await answerOf(colega);
  assert.equal(answer.params.meta.reply_to, askId);
  await ui.until(/Answered colega\./, 30_000);
  assert.equal(
    occurrences(fake.turnRequests().at(-1)?.body, frame),
    1,
    'the message reached the model again',
  );

  await ui.stop();
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived Codex');
});

test("terminal UI, busy: a message that arrives during a turn (papo's wait for someone else) is queued at once and taken after that turn", {
  skip,
}, async (t) => {
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeOpenAI([
    { tools: [papoCall('wait', { timeout_seconds: 10, from: 'ana' })] },
    { text: 'Nothing from ana yet.' },
    (body: Json) => ({
      tools: [papoCall('send', { message: REPLY, to: 'colega', reply_to: framedId(body) })],
    }),
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await codexSetup(early, { cli, root: room.root, fake, papoHome: room.members.voce.home });
  await papoInstallFor('codex', project, setup.env);
  const ui = new TmuxCodex(setup, project, room.root);
  await ui.start(early);
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  await ui.prompt(FIRST_PROMPT);
  await fake.waitForRequest((r) => r.kind === 'turn' && r.turn === 0, 60_000, 'the first turn');
  // The model's wait (for ana, not colega) is in flight: colega's message is not the wait's to take.
  await new Promise((r) => setTimeout(r, 2000));
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const sent = Date.now();
  const frame = pushedText(
    { id: askId, from: 'colega', kind: 'agent', body: ASK, to: 'voce' },
    'codex-queue',
  );
  const pushed = await fake.waitForRequest(
    (r) => r.kind === 'turn' && occurrences(r.body, frame) > 0,
    60_000,
    "the model turn carrying papo's frame",
  );
  const waitEnded = fake.turnRequests()[1]?.at ?? Number.NaN;
  t.diagnostic(
    `sent ${((waitEnded - sent) / 1000).toFixed(2)} s before the wait ended; the queued turn came ${((pushed.at - waitEnded) / 1000).toFixed(2)} s after it`,
  );
  assert.equal(pushed.turn, 2, 'the queued turn was not the one after the busy turn');
  assert.equal(occurrences(fake.turnRequests()[1]?.body, frame), 0, 'the message came inside the busy turn');
  assert.equal(occurrences(pushed.body, frame), 1);

  const answer = await answerOf(colega);
  assert.equal(answer.params.meta.reply_to, askId);
  await ui.until(/Answered colega\./, 30_000);
  await ui.stop();
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived Codex');
});
