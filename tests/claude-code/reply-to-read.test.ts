// `reply_to` marks read, with the real client: four messages wait unread for voce (three from
// colega's agent, one from colega's person with `papo say`, between the second and the third). In
// Claude Code's UI without channels and without its session messaging (CLAUDE_CODE_HARBOR_KITE=0:
// nothing pushed reaches the model, ADR 0118) the model sees them with
// `status` and `history`, which mark nothing, and answers the second agent message with `send` and
// `reply_to`. papo's next `status` and `inbox`, as the model receives them: that message and the
// earlier one from the same sender are read; the person's note (same name, sender_kind human: another
// sender) and the later agent message are not. Skipped, with the reason, without Claude Code or tmux.
// See docs/mcp.md, "Claude Code itself".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALREADY_PUSHED, instructions, statusCounts, UNTRUSTED_NOTICE } from '../../src/mcp/texts.js';
import { msgIdIn, runPapo, userEnv } from '../support/papo.js';
import { callText, statusUntil } from '../support/room.js';
import { type Json, startFakeAnthropic, systemTexts, toolResults, userTexts } from './fake-anthropic.js';
import {
  type ClaudeCode,
  claudeCode,
  loadTools,
  roomWithColleague,
  startUi,
  uiSkip,
} from './helpers/claude.js';

const cc = claudeCode();
const skip = uiSkip(cc);

const A1 = 'First: which currency codes does payment.confirmed use?';
const A2 = 'Second: and is confirmed_at in UTC?';
const H1 = 'From the person: no rush, the release is on Friday.';
const A3 = 'Third: do refunds get an event of their own?';
const REPLY = 'ISO 4217 codes (EUR, USD), and confirmed_at is always UTC (ISO 8601 with Z).';

test('interactive: send with reply_to marks that message and the sender’s earlier ones read, as the next status and inbox show the model', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);

  const fake = await startFakeAnthropic([
    loadTools('mcp__papo__status', 'mcp__papo__history', 'mcp__papo__send', 'mcp__papo__inbox'),
    { tools: [{ name: 'mcp__papo__status', input: {} }] },
    { tools: [{ name: 'mcp__papo__history', input: {} }] },
    (body: Json) => {
      // Answer the second question, by the id `history` showed next to it.
      const line = (toolResults(body).at(-1)?.text ?? '').split('\n').find((l) => l.endsWith(`: ${A2}`));
      const id = /\(msg ([0-9a-f]{10})\)/.exec(line ?? '')?.[1] ?? 'missing';
      return { tools: [{ name: 'mcp__papo__send', input: { message: REPLY, to: 'colega', reply_to: id } }] };
    },
    { tools: [{ name: 'mcp__papo__status', input: {} }] },
    { tools: [{ name: 'mcp__papo__inbox', input: {} }] },
    { text: 'Answered colega; two messages still open.' },
  ]);
  early.after(() => fake.close());
  const { ui } = await startUi(early, {
    cc: c,
    room,
    fake,
    channels: false,
    env: { CLAUDE_CODE_HARBOR_KITE: '0' },
  });
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  // Each is confirmed by voce's papo before the next goes: they wait there in this order.
  const send = async (message: string) =>
    msgIdIn(await callText(colega.client, 'send', { message, to: 'voce' }));
  const a1 = await send(A1);
  const a2 = await send(A2);
  const said = await runPapo(['say', '--to', 'voce', H1], { env: userEnv(room.members.colega.home) });
  assert.equal(said.code, 0, said.stderr);
  const h1 = /^delivered to voce \(msg ([0-9a-f]{10})\)$/m.exec(said.stdout)?.[1] as string;
  assert.ok(h1 !== undefined, said.stdout);
  const a3 = await send(A3);

  ui.keys('Check papo and answer what you can.', 'Enter');
  await ui.until(/Answered colega; two messages still open\./, 30_000);
  const answer = await colega.client.waitFor(
    (m) => m.method === 'notifications/claude/channel' && m.params?.meta?.from === 'voce',
    10_000,
    'the answer of voce',
  );
  assert.equal(answer.params.meta.reply_to, a2);

  const results = toolResults(fake.turnRequests().at(-1)?.body).map((r) => r.text);
  const [, before, history, sent, after, inbox] = results as string[];
  t.diagnostic(`status before the reply: ${JSON.stringify(before)}`);
  t.diagnostic(`history: ${JSON.stringify(history)}`);
  t.diagnostic(`status after: ${JSON.stringify(after)}`);
  t.diagnostic(`inbox after: ${JSON.stringify(inbox)}`);
  assert.ok(before?.includes(`\n${statusCounts(4, 0)}`), before);
  for (const [id, body] of [
    [a1, A1],
    [a2, A2],
    [h1, H1],
    [a3, A3],
  ])
    assert.ok(history?.includes(`(msg ${id}): ${body}`), `${id} not in history: ${history}`);
  assert.match(sent ?? '', /^Delivered to colega \(msg_id [0-9a-f]{10}\)\./);
  // The reply to A2 marked A2 and A1 read (same sender: colega, agent); H1 is colega's person.
  assert.ok(after?.includes(`\n${statusCounts(2, 0)}`), after);
  const headers = (inbox ?? '').split('\n').filter((l) => l.startsWith('[msg_id='));
  assert.ok(inbox?.startsWith(`${UNTRUSTED_NOTICE}\n\n`), inbox);
  // papo pushed each as it came as a channel event (Claude Code, without channels, dropped them:
  // pull only, ADR 0118), and nothing proved
  // that pushes reach the model: the headers say so (ADR 0066).
  assert.deepEqual(
    headers.map((h) => [
      /^\[msg_id=(\w+) from=(\S+ \(\w+\))/.exec(h)?.slice(1),
      h.endsWith(`]${ALREADY_PUSHED}`),
    ]),
    [
      [[h1, 'colega (human)'], true],
      [[a3, 'colega (agent)'], true],
    ],
  );
  assert.ok(inbox?.includes(`\n  ${H1}`) && inbox.includes(`\n  ${A3}`), inbox);
  for (const r of fake.turnRequests())
    assert.ok(
      !userTexts(r.body).some((x) => x.includes('<channel source="papo"')),
      'a push reached the model',
    );
  // A first request started by a typed prompt holds papo's instructions (one started by a push does
  // not: person-say.test.ts).
  const papoSection = `## papo\n${instructions({ name: 'voce', roomId: room.roomId }, 'default')}`;
  assert.ok(systemTexts(fake.turnRequests()[0]?.body).join('\n').includes(papoSection));
});
