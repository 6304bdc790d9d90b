// A person in the room, not an agent: colega's user runs `papo say` (the built binary, colega's
// PAPO_HOME, beside colega's running agent). In Claude Code's UI with channels, the idle model gets
// it as a <channel> user turn with sender_kind="human"; it answers with `send` and `reply_to`, and
// colega's agent gets the answer. Skipped, with the reason, without Claude Code or tmux. See
// docs/mcp.md, "Claude Code itself".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { instructions } from '../../src/mcp/texts.js';
import { runPapo, userEnv } from '../support/papo.js';
import { statusUntil } from '../support/room.js';
import { startFakeAnthropic, systemTexts, userTexts } from './fake-anthropic.js';
import {
  answerOf,
  answerPush,
  type ClaudeCode,
  channelTag,
  claudeCode,
  loadTools,
  recordedPushes,
  roomWithColleague,
  startUi,
  uiSkip,
} from './helpers/claude.js';

const cc = claudeCode();
const skip = uiSkip(cc);

const SAID = 'Please keep the v1 field names in the payment.confirmed webhook: our dashboards read them.';
const REPLY = 'Understood: payment.confirmed keeps id, amount_cents, currency and confirmed_at as they are.';

test('interactive: a person’s `papo say` reaches the idle model as a push with sender_kind="human"; the model answers it with reply_to', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);

  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__send'),
    answerPush(REPLY),
    { text: 'Answered the person.' },
  ]);
  early.after(() => fake.close());
  const { ui, log } = await startUi(early, { cc: c, room, fake, channels: true });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  // As colega's user would, in a terminal, while colega's agent runs.
  const started = Date.now();
  const said = await runPapo(['say', '--to', 'voce', SAID], { env: userEnv(room.members.colega.home) });
  t.diagnostic(`papo say took ${Date.now() - started} ms: ${said.stdout.trim()}`);
  assert.equal(said.code, 0, said.stderr);
  const saidId = /^delivered to voce \(msg ([0-9a-f]{10})\)$/m.exec(said.stdout)?.[1];
  assert.ok(saidId !== undefined, said.stdout);

  const tag = channelTag({ from: 'colega', msgId: saidId, senderKind: 'human', to: 'voce' }, SAID);
  const pushed = await fake.waitForRequest(
    (r) => r.kind === 'turn' && userTexts(r.body).includes(tag),
    30_000,
    'the model turn carrying the person’s push',
  );
  assert.equal(pushed.turn, 0, 'the push was not the first thing the model was asked');
  const answer = await answerOf(colega);
  assert.equal(answer.params.content, REPLY);
  assert.equal(answer.params.meta.reply_to, saidId);
  await ui.until(/← papo: Please keep the v1 field names/, 10_000);
  await ui.until(/Answered the person\./, 10_000);

  // papo pushed it once, as the person's: same name as colega's agent, another kind.
  assert.deepEqual(recordedPushes(log), [
    { content: SAID, meta: { from: 'colega', msg_id: saidId, sender_kind: 'human', to: 'voce' } },
  ]);
  // Measured on 2.1.332: a push that starts the session's first request comes without Claude Code's
  // system entry (environment, deferred tool names, "# MCP Server Instructions"): the model reads the
  // person's words before papo's instructions, which arrive with the next request.
  const turns = fake.turnRequests().map((r) => systemTexts(r.body).join('\n'));
  const papoSection = `## papo\n${instructions({ name: 'voce', roomId: room.roomId }, 'default')}`;
  t.diagnostic(`papo's instructions in each request: ${turns.map((s) => s.includes(papoSection))}`);
  assert.deepEqual(
    turns.map((s) => s.includes(papoSection)),
    [false, true, true],
  );
});
