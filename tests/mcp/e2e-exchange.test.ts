// End to end: two `papo mcp` processes in two homes, joined to one room made with the built
// binary, talking over WebRTC through the embedded signal server — driven over stdio exactly as
// Claude Code drives them. One conversation, step by step: presence, send, push (only after
// notifications/initialized), reply_to and read marking, wait (message, timeout, from, progress,
// cancellation), inbox, history against `papo log`, status.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PROGRESS_INTERVAL_MS, progressIntervalFromEnv } from '../../src/mcp/server.js';
import { ALREADY_PUSHED, HISTORY_NOTICE, UNTRUSTED_NOTICE } from '../../src/mcp/texts.js';
import { spawnMcp } from '../support/mcp-process.js';
import { msgIdIn, papoOk, userEnv } from '../support/papo.js';
import {
  callText,
  channelPushes,
  makeRoom,
  pushOf,
  startAgent,
  statusUntil,
  toolUntil,
} from '../support/room.js';
import { resultText } from '../support/rpc-client.js';

const HEADER_TIME = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d';
/** The mark after the header of a message that was pushed too (ADR 0066), as a regular expression. */
const PUSHED = ALREADY_PUSHED.replace(/[()<>]/g, '\\$&');

function delivered(text: string, to: string): string {
  const id = msgIdIn(text);
  assert.equal(
    text,
    `Delivered to ${to} (msg_id ${id}). If you need their answer to continue, call \`wait\`.`,
  );
  return id;
}

test('PAPO_TEST_PROGRESS_MS shortens the progress interval; anything else keeps the book’s 15 s', () => {
  assert.equal(PROGRESS_INTERVAL_MS, 15_000);
  assert.equal(progressIntervalFromEnv({}), 15_000);
  assert.equal(progressIntervalFromEnv({ PAPO_TEST_PROGRESS_MS: '200' }), 200);
  for (const bad of ['', 'abc', '-5', '1.5', '10']) {
    assert.equal(progressIntervalFromEnv({ PAPO_TEST_PROGRESS_MS: bad }), 15_000, bad);
  }
});

test('two agents in two homes: send, push, reply_to, wait, inbox, history, status', async (t) => {
  const room = await makeRoom(t);
  // voce's progress interval is shortened so a short `wait` shows progress (see tool-server.ts).
  const a = startAgent(room, room.members.voce, { PAPO_TEST_PROGRESS_MS: '200' });
  const b = startAgent(room, room.members.colega);
  await a.client.initialize();
  // colega answers initialize but has not sent notifications/initialized yet: no push may come.
  const init = await b.client.request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'e2e', version: '0' },
  });
  assert.match(init.result.instructions, new RegExp(`"colega", a member of room ${room.roomId}`));

  let first = '';
  await t.test('status: each sees the other online over a direct link, with its project folder', async () => {
    const seenByA = await statusUntil(a.client, /colega \(agent\): online/);
    assert.match(
      seenByA,
      new RegExp(`^You are "voce" in room ${room.roomId} \\(endpoint [0-9a-f]{10}\\)\\.$`, 'm'),
    );
    assert.match(seenByA, /^- colega \(agent\): online, working on: notifications, link: direct$/m);
    assert.match(seenByA, /^Unread: 0\. Queued for delivery: 0\.$/m);
    const seenByB = await statusUntil(b.client, /voce \(agent\): online/);
    assert.match(seenByB, /^- voce \(agent\): online, working on: payments-api, link: direct$/m);
  });

  await t.test('send is delivered; the push waits for notifications/initialized', async () => {
    const body = 'Hi, payments-api agent here. We will fire the payment.confirmed webhook to you.';
    first = delivered(await callText(a.client, 'send', { message: `  ${body}\n` }), 'colega');
    // Stored on colega's side before the ack, so status already counts it...
    assert.match(await callText(b.client, 'status'), /^Unread: 1\. Queued for delivery: 0\.$/m);
    // ...and had the pump been running, the push would have been written before that response.
    assert.deepEqual(channelPushes(b.client), []);
    b.client.notify('notifications/initialized');
    const push = await pushOf(b.client, first);
    assert.deepEqual(push, {
      content: body,
      meta: { from: 'voce', msg_id: first, sender_kind: 'agent' },
    });
  });

  let reply = '';
  await t.test('reply_to: meta carries it, and the replied message and earlier ones are read', async () => {
    const second = delivered(
      await callText(a.client, 'send', { message: 'Second: retry policy?' }),
      'colega',
    );
    const third = delivered(
      await callText(a.client, 'send', { message: 'Third: who owns the URL?' }),
      'colega',
    );
    await pushOf(b.client, second);
    await pushOf(b.client, third);
    // A push marks nothing read.
    assert.match(await callText(b.client, 'status'), /^Unread: 3\./m);
    // colega reads the conversation first: a reply to an id `history` showed is no evidence that
    // pushes reach its agent (ADR 0066), so what stays unread stays so.
    assert.match(await callText(b.client, 'history'), new RegExp(`\\(msg ${second}\\)`));
    const body = 'Retry is fine; we answer 202 once queued.';
    reply = delivered(await callText(b.client, 'send', { message: body, reply_to: second }), 'voce');
    assert.deepEqual(await pushOf(a.client, reply), {
      content: body,
      meta: { from: 'colega', msg_id: reply, sender_kind: 'agent', reply_to: second },
    });
    // `first` and `second` are read; `third`, after the replied one, is not.
    assert.match(await callText(b.client, 'status'), /^Unread: 1\./m);
    const inbox = (await callText(b.client, 'inbox')).split('\n');
    assert.equal(inbox[0], UNTRUSTED_NOTICE);
    assert.equal(inbox[1], '');
    assert.match(
      inbox[2] ?? '',
      new RegExp(`^\\[msg_id=${third} from=voce \\(agent\\) at ${HEADER_TIME}\\]${PUSHED}$`),
    );
    // The body, indented by two spaces (ADR 0059).
    assert.deepEqual(inbox.slice(3), ['  Third: who owns the URL?']);
    assert.equal(await callText(b.client, 'inbox'), 'No unread messages.');
  });

  await t.test(
    'wait returns the reply at once: the notice line first, the book header marked as pushed, the body',
    async () => {
      const lines = (await callText(a.client, 'wait', { timeout_seconds: 5 })).split('\n');
      assert.equal(lines[0], UNTRUSTED_NOTICE);
      assert.equal(lines[1], '');
      assert.match(
        lines[2] ?? '',
        new RegExp(
          `^\\[msg_id=${reply} from=colega \\(agent\\) at ${HEADER_TIME} reply_to=[0-9a-f]{10}\\]${PUSHED}$`,
        ),
      );
      assert.deepEqual(lines.slice(3), ['  Retry is fine; we answer 202 once queued.']);
    },
  );

  await t.test('wait times out with the exact text naming who is online', async () => {
    assert.equal(
      await callText(a.client, 'wait', { timeout_seconds: 1 }),
      'No new messages after 1s. Online: colega. Call `wait` again to keep listening, or tell your user.',
    );
  });

  await t.test('wait with from: only that member’s messages', async () => {
    const q = delivered(await callText(b.client, 'send', { message: 'A question from colega.' }), 'voce');
    await pushOf(a.client, q);
    assert.equal(
      await callText(a.client, 'wait', { timeout_seconds: 1, from: 'someone-else' }),
      'No new messages from someone-else after 1s. Online: colega. Call `wait` again to keep listening, or tell your user.',
    );
    const got = await callText(a.client, 'wait', { timeout_seconds: 5, from: 'colega' });
    assert.match(
      got,
      new RegExp(
        `^\\[msg_id=${q} from=colega \\(agent\\) at ${HEADER_TIME}\\]${PUSHED}\\n {2}A question from colega\\.$`,
        'm',
      ),
    );
  });

  await t.test('wait with a progressToken sends increasing progress, then answers', async () => {
    const before = a.client.messages.length;
    const text = await callText(a.client, 'wait', { timeout_seconds: 2 }, { progressToken: 'tok-e2e' });
    assert.match(text, /^No new messages after 2s\. Online: colega\./);
    const progress = a.client.messages
      .slice(before)
      .filter((m) => m.method === 'notifications/progress')
      .map((m) => m.params);
    assert.ok(progress.length >= 1, 'at least one progress notification');
    let last = 0;
    for (const p of progress) {
      assert.equal(p.progressToken, 'tok-e2e');
      assert.equal(p.total, 2);
      assert.ok(p.progress > last, 'progress increases');
      last = p.progress;
      assert.match(p.message, /^Waiting for messages \(\d+s of 2s\)\.$/);
    }
  });

  await t.test(
    'a cancelled wait gets no response, consumes nothing, and the server keeps serving',
    async () => {
      const id = 'wait-to-cancel';
      a.client.send('tools/call', { name: 'wait', arguments: { timeout_seconds: 60 } }, id);
      a.client.notify('notifications/cancelled', { requestId: id, reason: 'user pressed Esc' });
      assert.deepEqual((await a.client.request('ping')).result, {});
      const late = delivered(await callText(b.client, 'send', { message: 'After the cancel.' }), 'voce');
      await pushOf(a.client, late);
      const inbox = await callText(a.client, 'inbox');
      assert.match(inbox, new RegExp(`\\[msg_id=${late} from=colega`));
      assert.equal(
        a.client.messages.filter((m) => m.id === id).length,
        0,
        'no response for the cancelled request',
      );
    },
  );

  await t.test(
    'a cancellation that crosses the result: the messages that result marked read are unread again',
    async () => {
      // A wait in flight takes the message (it is not pushed: ADR 0066) and marks it read...
      const id = 'wait-crossed';
      a.client.send('tools/call', { name: 'wait', arguments: { timeout_seconds: 30 } }, id);
      assert.deepEqual((await a.client.request('ping')).result, {});
      const crossed = delivered(
        await callText(b.client, 'send', { message: 'Crossed on the wire.' }),
        'voce',
      );
      const answer = await a.client.response(id, 20_000);
      assert.match(answer.result.content[0].text, new RegExp(`\\[msg_id=${crossed} from=colega`));
      // ...and the client's cancellation of the same call was already on its way: the client drops
      // that result (MCP "Cancellation"), so nothing it held may count as read.
      a.client.notify('notifications/cancelled', { requestId: id, reason: 'user pressed Esc' });
      assert.deepEqual((await a.client.request('ping')).result, {});
      const again = await toolUntil(a.client, 'inbox', new RegExp(`\\[msg_id=${crossed} from=colega`), 5000);
      assert.match(again, /Crossed on the wire\./);
      // Once taken for good, it is not handed a third time.
      assert.equal(await callText(a.client, 'inbox'), 'No unread messages.');
    },
  );

  await t.test('history holds exactly the lines `papo log` prints', async () => {
    const history = await callText(a.client, 'history', { limit: 50 });
    const log = await papoOk(['log', '-n', '50'], { env: userEnv(room.members.voce.home) });
    assert.equal(history, `${HISTORY_NOTICE}\n${log.trimEnd()}`);
    assert.match(
      log,
      new RegExp(`^\\[${HEADER_TIME}\\] voce -> room \\(msg ${first}\\): Hi, payments-api`, 'm'),
    );
    assert.match(log, new RegExp(`^\\[${HEADER_TIME}\\] delivered ${first} to colega$`, 'm'));
    assert.match(
      log,
      new RegExp(
        `^\\[${HEADER_TIME}\\] colega \\(agent\\) -> voce \\(msg ${reply}, reply to [0-9a-f]{10}\\): Retry`,
        'm',
      ),
    );
  });

  await t.test('status at the end: nothing unread, nothing queued', async () => {
    const text = await callText(a.client, 'status');
    assert.match(text, /^- colega \(agent\): online, working on: notifications, link: direct$/m);
    assert.match(text, /^Unread: 0\. Queued for delivery: 0\.$/m);
  });

  // Every byte either server wrote on stdout is a JSON-RPC message.
  for (const p of [a, b]) {
    assert.equal(p.client.partial, '');
    for (const line of p.client.lines) assert.equal(JSON.parse(line).jsonrpc, '2.0');
  }
});

test('nothing is announced that the person did not choose: no --about and no about in the profile, no "working on", whatever folder the agent runs in (issue 45)', async (t) => {
  const room = await makeRoom(t);
  // Claude Code gives its servers the project's root: a folder name the person never told the
  // room (the plugin starts papo mcp in every project) must not reach it.
  const root = join(room.members.voce.project, '..', 'acme-acquires-globex-2027');
  mkdirSync(join(root, 'src'), { recursive: true });
  const a = spawnMcp({
    home: room.members.voce.home,
    cwd: join(root, 'src'),
    env: { LANG: 'C', CLAUDE_PROJECT_DIR: root },
  });
  room.agents.push(a);
  const b = startAgent(room, room.members.colega);
  await Promise.all([a.client.initialize(), b.client.initialize()]);
  const seenByB = await statusUntil(b.client, /voce \(agent\): online/);
  assert.match(seenByB, /^- voce \(agent\): online, link: direct$/m);
  assert.doesNotMatch(seenByB, /acme|globex|src/);
  // What the person chose (--about here) is announced.
  const seenByA = await statusUntil(a.client, /colega \(agent\): online/);
  assert.match(seenByA, /^- colega \(agent\): online, working on: notifications, link: direct$/m);
});

test('status asked the moment papo mcp starts waits for the room to show itself: a colleague already online is listed, not "none known yet"', async (t) => {
  const room = await makeRoom(t);
  const b = startAgent(room, room.members.colega);
  await b.client.initialize();
  // colega is up (its own status answers; it hosts the room's loopback signal server).
  await callText(b.client, 'status');
  const a = startAgent(room, room.members.voce);
  await a.client.initialize();
  // As Claude Code does: status right after initialize, before any link had time to form.
  const started = Date.now();
  const first = await callText(a.client, 'status');
  t.diagnostic(`first status answered in ${Date.now() - started} ms`);
  assert.match(first, /^- colega \(agent\): online, working on: notifications/m);
  assert.doesNotMatch(first, /none known yet/);
});

test('an argument a client adds to every call (Gemini CLI’s wait_for_previous) is ignored; one a model makes up is still refused (ADR 0069)', async (t) => {
  const room = await makeRoom(t);
  const a = startAgent(room, room.members.voce);
  const b = startAgent(room, room.members.colega);
  await Promise.all([a.client.initialize(), b.client.initialize()]);
  await statusUntil(a.client, /colega \(agent\): online/);
  const own = { wait_for_previous: true };
  assert.match(await callText(a.client, 'status', own), /^- colega \(agent\): online/m);
  const id = msgIdIn(await callText(a.client, 'send', { message: 'Which currency codes?', ...own }));
  assert.match(
    await callText(b.client, 'wait', { timeout_seconds: 10, from: 'voce', ...own }),
    /Which currency codes\?/,
  );
  assert.equal(await callText(b.client, 'inbox', { wait_for_previous: false }), 'No unread messages.');
  assert.match(await callText(b.client, 'history', { limit: 5, ...own }), new RegExp(`\\(msg ${id}\\)`));
  // A name the model made up still gets the helpful refusal.
  const madeUp = await b.client.call('wait', { timeout: 10 });
  assert.equal(madeUp.isError, true);
  assert.match(
    resultText(madeUp),
    /^`wait` has no argument `timeout`\. Its arguments are: `timeout_seconds`, `from`\.$/,
  );
});
