// The push, in the real client: Claude Code's terminal UI (channels are ignored in `claude -p`) runs
// in tmux with `--dangerously-load-development-channels server:papo`, as papo tells its users to
// start it. A colleague's message reaches the idle model as a <channel source="papo"> user turn,
// and the model's `send` reaches the colleague. Skipped, with the reason, without Claude Code or
// tmux. See docs/mcp.md, "Claude Code itself".
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { callText, makeRoom, msgIdIn, startAgent, statusUntil } from '../mcp/helpers/room.js';
import { type Json, startFakeAnthropic, toolResults, userTexts } from './fake-anthropic.js';
import {
  type ClaudeCode,
  claudeCode,
  claudeSetup,
  hasTmux,
  papoInstall,
  recordedLines,
  recorderCommand,
  stopFirst,
  TmuxClaude,
} from './helpers/claude.js';

const cc = claudeCode();
const skip = 'skip' in cc ? cc.skip : hasTmux() ? false : 'tmux is not installed (apt-get install tmux)';

const ASK = 'Hi, notifications agent here. Which fields does the payment.confirmed webhook carry?';
const REPLY = 'payment.confirmed carries id, amount_cents, currency and confirmed_at (ISO 8601).';
const AGAIN = 'Thanks. Is confirmed_at always in UTC?';

/** The user turn Claude Code makes of papo's push (the model reads exactly this). */
function channelTurn(msgId: string, body: string): string {
  return `<channel source="papo" from="colega" msg_id="${msgId}" sender_kind="agent" to="voce">\n${body}\n</channel>`;
}

test('interactive: a pushed message reaches the idle model as a <channel> user turn, once; its send reaches the colleague', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const colega = startAgent(room, room.colega);
  await colega.client.initialize();

  const fake = await startFakeAnthropic([
    { tools: [{ name: 'ToolSearch', input: { query: 'select:mcp__papo__send', max_results: 1 } }] },
    (body: Json) => {
      // Answer the message the channel turn carried.
      const pushed = userTexts(body).find((x) => x.startsWith('<channel source="papo"')) ?? '';
      const id = /msg_id="([0-9a-f]{10})"/.exec(pushed)?.[1] ?? 'missing';
      return { tools: [{ name: 'mcp__papo__send', input: { message: REPLY, to: 'colega', reply_to: id } }] };
    },
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const project = room.voce.project;
  const setup = await claudeSetup(early, { cc: c, root: room.root, project, papoHome: room.voce.home, fake });
  const log = join(room.root, 'papo-stdio.jsonl');
  papoInstall(project, setup.env, { PAPO_INSTALL_COMMAND: recorderCommand(log) });

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
  const answer = await colega.client.waitFor(
    (m) => m.method === 'notifications/claude/channel' && m.params?.meta?.from === 'voce',
    30_000,
    'the answer of voce',
  );
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
  // papo wrote one notification per message; Claude Code wrote nothing back for them.
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
