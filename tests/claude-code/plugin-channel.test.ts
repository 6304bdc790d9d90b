// The push through the plugin (ADR 0101), in the real Claude Code's terminal UI: started in tmux
// with `--dangerously-load-development-channels plugin:papo@papo`, as papo tells a person who
// installed the plugin, a colleague's message reaches the idle model as a <channel> user turn, and
// the model's answer (through mcp__plugin_papo_papo__send) reaches the colleague. Skipped, with the
// reason, without Claude Code or tmux.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { msgIdIn } from '../support/papo.js';
import { callText, statusUntil } from '../support/room.js';
import { type Json, startFakeAnthropic, systemTexts, userTexts } from './fake-anthropic.js';
import {
  answerOf,
  type ClaudeCode,
  channelTag,
  claudeCode,
  loadTools,
  roomWithColleague,
  uiSkip,
} from './helpers/claude.js';
import { PLUGIN_TOOL_PREFIX, pluginUi } from './helpers/plugin.js';

const cc = claudeCode();
const skip = uiSkip(cc);

const ASK = 'Hi, notifications agent here. Is confirmed_at always in UTC?';
const REPLY = 'Yes: confirmed_at is RFC 3339 in UTC, with a Z.';

test('interactive, through the plugin: a pushed message reaches the idle model as a <channel> user turn; its send reaches the colleague', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room, colega } = await roomWithColleague(t);

  const send = `${PLUGIN_TOOL_PREFIX}send`;
  const fake = await startFakeAnthropic([
    loadTools(send),
    (body: Json) => {
      const pushed = userTexts(body).find((x) => x.startsWith('<channel ')) ?? '';
      const id = /msg_id="([0-9a-f]{10})"/.exec(pushed)?.[1] ?? 'missing';
      return { tools: [{ name: send, input: { message: REPLY, to: 'colega', reply_to: id } }] };
    },
    { text: 'Answered colega.' },
  ]);
  early.after(() => fake.close());
  const ui = await pluginUi(early, {
    cc: c,
    room,
    fake,
    args: [
      '--dangerously-load-development-channels',
      'plugin:papo@papo',
      '--permission-mode',
      'default',
      '--allowedTools',
      'mcp__plugin_papo_papo',
    ],
  });

  await ui.until(/I am using this for local development/, 30_000);
  ui.keys('Enter');
  await ui.until(/Channels \(experimental\) messages from plugin:papo@papo/, 30_000);
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);

  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  // Claude Code names the source after the plugin's server (plugin:<plugin>:<server>), not "papo".
  const tag = channelTag({ from: 'colega', msgId: askId, senderKind: 'agent', to: 'voce' }, ASK).replace(
    '<channel source="papo"',
    '<channel source="plugin:papo:papo"',
  );
  const pushedTurn = await fake.waitForRequest(
    (r) => r.kind === 'turn' && userTexts(r.body).includes(tag),
    30_000,
    'the model turn carrying the push',
  );
  assert.equal(pushedTurn.turn, 0, 'the push was not the first thing the model was asked');
  const answer = await answerOf(colega);
  assert.equal(answer.params.content, REPLY);
  assert.equal(answer.params.meta.reply_to, askId);
  await ui.until(/Answered colega\./, 20_000);
  // papo's instructions tell the model what such an event looks like, this source included. They
  // come with the request after the push: measured on 2.1.332, a push that starts the session's
  // first request comes without Claude Code's system entry (as in person-say.test.ts).
  const later = fake.turnRequests().filter((r) => (r.turn ?? 0) > 0);
  assert.ok(later.length > 0, 'a request after the push');
  assert.ok(
    later.every((r) => systemTexts(r.body).some((s) => s.includes('<channel source="plugin:papo:papo">'))),
    'the instructions name the source the plugin’s pushes carry',
  );
});
