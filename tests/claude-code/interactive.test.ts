// The push, in the real client: Claude Code's terminal UI (channels are ignored in `claude -p`) runs
// in tmux with `--dangerously-load-development-channels server:papo`, as papo tells its users to
// start it. A colleague's message reaches the idle model as a <channel source="papo"> user turn,
// and the model's `send` reaches the colleague. Its `reply_to` proves to papo that pushes reach the
// model (ADR 0066): a second push is not handed again by `inbox`, and a message that arrives while
// `wait` is in flight comes in the wait's result, not pushed: each message reaches the model once.
// Skipped, with the reason, without Claude Code or tmux. See docs/mcp.md, "Claude Code itself".
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { msgIdIn } from '../support/papo.js';
import { callText, statusUntil } from '../support/room.js';
import { startFakeAnthropic, timesShown, toolResults, userTexts } from './fake-anthropic.js';
import {
  answerOf,
  answerPush,
  type ClaudeCode,
  claudeCode,
  claudeSetup,
  loadTools,
  papoInstall,
  recordedLines,
  recorderCommand,
  roomWithColleague,
  TmuxClaude,
  uiSkip,
} from './helpers/claude.js';

const cc = claudeCode();
const skip = uiSkip(cc);

const ASK = 'Hi, notifications agent here. Which fields does the payment.confirmed webhook carry?';
const REPLY = 'payment.confirmed carries id, amount_cents, currency and confirmed_at (ISO 8601).';
const AGAIN = 'Thanks. Is confirmed_at always in UTC?';
const THIRD = 'And is amount_cents ever negative (refunds)?';

/** The user turn Claude Code makes of papo's push (the model reads exactly this). */
function channelTurn(msgId: string, body: string): string {
  return `<channel source="papo" from="colega" msg_id="${msgId}" sender_kind="agent" to="voce">\n${body}\n</channel>`;
}

test('interactive: a pushed message reaches the idle model as a <channel> user turn; its send reaches the colleague; each message reaches the model once', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);

  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__send', 'mcp__papo__inbox', 'mcp__papo__wait'),
    answerPush(REPLY),
    { text: 'Answered colega.' },
    // The second push: the model checks its inbox, then waits for more (colega writes meanwhile).
    { tools: [{ name: 'mcp__papo__inbox', input: {} }] },
    { tools: [{ name: 'mcp__papo__wait', input: { timeout_seconds: 30 } }] },
    { text: 'Read colega.' },
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
  const log = join(room.root, 'papo-stdio.jsonl');
  await papoInstall(project, setup.env, { PAPO_INSTALL_COMMAND: recorderCommand(log) });

  const ui = new TmuxClaude(setup.env, project, room.root);
  // As papo install tells the user, with papo's tools allowed and without auto mode (whose
  // permission classifier asks the model about each tool call).
  ui.start(early, [
    '--dangerously-load-development-channels',
    'server:papo',
    '--permission-mode',
    'default',
    '--allowedTools',
    'mcp__papo',
  ]);
  await ui.until(/I am using this for local development/, 30_000);
  ui.keys('Enter');
  await ui.until(/Channels \(experimental\) messages from server:papo/, 30_000);
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const pushedTurn = await fake.waitForRequest(
    (r) => r.kind === 'turn' && userTexts(r.body).includes(channelTurn(askId, ASK)),
    30_000,
    'the model turn carrying the push',
  );
  assert.equal(pushedTurn.turn, 0, 'the push was not the first thing the model was asked');
  const answer = await answerOf(colega);
  assert.equal(answer.params.content, REPLY);
  assert.equal(answer.params.meta.reply_to, askId);
  await ui.until(/← papo: Hi, notifications agent here/, 10_000);
  await ui.until(/Answered colega\./, 10_000);

  // A second message, once the model is idle again: how often does each push reach the model?
  const againId = msgIdIn(await callText(colega.client, 'send', { message: AGAIN, to: 'voce' }));
  const later = await fake.waitForRequest(
    (r) => r.kind === 'turn' && userTexts(r.body).includes(channelTurn(againId, AGAIN)),
    30_000,
    'the model turn carrying the second push',
  );
  const texts = userTexts(later.body);
  assert.equal(texts.filter((x) => x.includes(`msg_id="${askId}"`)).length, 1, 'the first push, once');
  assert.equal(texts.filter((x) => x.includes(`msg_id="${againId}"`)).length, 1, 'the second push, once');
  assert.equal(toolResults(later.body).filter((r) => r.text.includes(askId)).length, 0);

  // The model calls `inbox`, then `wait`; colega writes a third message while the wait is in flight.
  const waitCall = async () => {
    for (let i = 0; i < 120; i++) {
      if (recordedLines(log).some((l) => l.dir === 'in' && l.msg.params?.name === 'wait')) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error('the model never called wait');
  };
  await waitCall();
  const thirdId = msgIdIn(await callText(colega.client, 'send', { message: THIRD, to: 'voce' }));
  await ui.until(/Read colega\./, 30_000);
  // Anything pushed during the wait reaches the model after it: give it the time to.
  await new Promise((r) => setTimeout(r, 3_000));
  const last = fake.turnRequests().at(-1)?.body;
  // How many times each message reached the model: as a push, and as a wait/inbox result (ADR 0066).
  const counts = Object.fromEntries(
    [
      ['ask', askId],
      ['again', againId],
      ['third', thirdId],
    ].map(([k, id]) => [k, timesShown(last, id as string)]),
  );
  t.diagnostic(`times each message reached the model: ${JSON.stringify(counts)}`);
  // The reply to the first push (an id no tool showed) proved that pushes reach this model: the
  // second is not handed again by `inbox`, and the third, which arrived during `wait`, came in the
  // wait's result and was not pushed. Each message once.
  assert.deepEqual(counts, {
    ask: { pushes: 1, results: 0 },
    again: { pushes: 1, results: 0 },
    third: { pushes: 0, results: 1 },
  });
  assert.ok(
    toolResults(last).some((r) => r.text === 'No unread messages.'),
    'inbox found nothing it had not pushed',
  );
  // papo wrote one notification per pushed message; Claude Code wrote nothing back for them.
  const out = recordedLines(log).filter(
    (l) => l.dir === 'out' && l.msg.method === 'notifications/claude/channel',
  );
  assert.deepEqual(
    out.map((l) => l.msg.params.meta.msg_id),
    [askId, againId],
  );
  const initialize = recordedLines(log).find((l) => l.dir === 'in' && l.msg.method === 'initialize');
  t.diagnostic(`initialize from the UI: ${JSON.stringify(initialize?.msg.params)}`);
  t.diagnostic(`model requests: ${fake.turnRequests().length} turns, ${fake.requests.length} in all`);
});
