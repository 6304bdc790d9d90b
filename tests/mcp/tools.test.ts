// The tools, the push and cancellation, with the server run in-process on injected streams and an
// in-memory RoomMember (tests/support/memory-member.ts); the same scenarios run end to end between
// two real `papo mcp` processes in e2e-exchange.test.ts.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { PapoError } from '../../src/client/errors.js';
import type { RoomMember } from '../../src/client/member-api.js';
import { startMcpServer } from '../../src/mcp/server.js';
import { ALREADY_PUSHED, STATUS_NOTICE, UNTRUSTED_NOTICE } from '../../src/mcp/texts.js';
import { MemoryMember } from '../support/memory-member.js';
import { type Json, RpcClient, resultText } from '../support/rpc-client.js';

function serve(
  t: TestContext,
  opts: { member?: MemoryMember; open?: () => Promise<RoomMember>; env?: NodeJS.ProcessEnv } = {},
) {
  const member = opts.member ?? new MemoryMember();
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = startMcpServer({
    profile: 'default',
    serverVersion: 'test',
    openMember: opts.open ?? (async () => member),
    describe: () => ({ name: member.name, roomId: member.roomId }),
    stdin,
    stdout,
    stderr: new PassThrough(),
    env: opts.env ?? {},
    // No ancestors: the route is chosen from `env` alone, whatever runs the tests.
    ancestors: () => [],
    progressIntervalMs: 40,
  });
  const client = new RpcClient(stdin, stdout);
  t.after(async () => {
    await server.shutdown(50);
    stdin.end();
  });
  return { member, client, server };
}

/** The mark after the header of a message that was pushed too (ADR 0066), as a regular expression. */
const PUSHED = ALREADY_PUSHED.replace(/[()<>]/g, '\\$&');

const online = (name: string, about = 'notificacoes') => ({
  name,
  node: 'c'.repeat(64),
  kind: 'agent' as const,
  about,
  online: true,
  path: 'direct' as const,
});

test('send: delivered, with to and reply_to passed on and the replied messages marked read', async (t) => {
  const { member, client } = serve(t);
  member.peers = [online('colega')];
  member.ackBy = 'colega';
  await client.initialize();
  const first = member.receive('colega', 'proposal one');
  const second = member.receive('colega', 'proposal two');
  const later = member.receive('colega', 'after');
  const result = await client.call('send', { message: '  agreed  ', to: 'colega', reply_to: second.id });
  assert.equal(result.isError, undefined);
  const id = member.sent.length === 1 ? (member.log.at(-2) as Json).msg.id : '';
  assert.equal(
    resultText(result),
    `Delivered to colega (msg_id ${id}). If you need their answer to continue, call \`wait\`.`,
  );
  assert.deepEqual(member.sent[0], {
    input: { body: 'agreed', to: 'colega', replyTo: second.id },
    ackTimeoutMs: 8000,
  });
  assert.deepEqual(
    member.unread().map((m) => m.id),
    [later.id],
  );
  assert.ok(!member.unread().some((m) => m.id === first.id));
});

test('send: not acknowledged says it is queued and who is online', async (t) => {
  const { member, client } = serve(t);
  await client.initialize();
  const none = resultText(await client.call('send', { message: 'hello' }));
  assert.match(
    none,
    /^Not acknowledged yet \(msg_id [0-9a-f]{10}\)\. It is queued .* No peer is online right now\.$/,
  );
  member.peers = [online('colega')];
  const unknown = resultText(await client.call('send', { message: 'hello', to: 'colgea' }));
  assert.match(unknown, /colgea is not online right now\. No member named "colgea" has been seen/);
});

test('send: a credential is refused, named, not echoed, and nothing is sent', async (t) => {
  const { member, client } = serve(t);
  await client.initialize();
  const token = ['gh', 'p_', 'Ab3'.repeat(12)].join('');
  const result = await client.call('send', { message: `use ${token} to push` });
  assert.equal(result.isError, true);
  assert.match(resultText(result), /looks like a GitHub token/);
  assert.ok(!resultText(result).includes(token));
  assert.equal(member.sent.length, 0);
});

test('send: more than PAPO_MAX_SENDS_PER_10MIN sends is refused with the loop warning', async (t) => {
  const { member, client } = serve(t, { env: { PAPO_MAX_SENDS_PER_10MIN: '2' } });
  await client.initialize();
  await client.call('send', { message: 'one' });
  await client.call('send', { message: 'two' });
  const third = await client.call('send', { message: 'three' });
  assert.equal(third.isError, true);
  assert.match(resultText(third), /more than 2 messages in 10 minutes\. The agents are probably in a loop/);
  assert.match(resultText(third), /tell your user/);
  assert.equal(member.sent.length, 2);
});

test('wait: returns unread messages at once with the notice, and consumes them', async (t) => {
  const { member, client } = serve(t);
  await client.initialize();
  const m = member.receive('colega', 'the answer', { reply_to: '3f9a1c07b2' });
  const text = resultText(await client.call('wait', { timeout_seconds: 5 }));
  assert.equal(text.split('\n')[0], UNTRUSTED_NOTICE);
  assert.match(
    text,
    new RegExp(
      `\\[msg_id=${m.id} from=colega \\(agent\\) at [0-9-]+ [0-9:]+ reply_to=3f9a1c07b2\\]${PUSHED}\\n  the answer$`,
    ),
  );
  assert.equal(member.unread().length, 0);
});

test('wait: blocks until a message from the chosen member arrives, with progress notifications', async (t) => {
  const { member, client } = serve(t);
  await client.initialize();
  const id = client.send('tools/call', {
    name: 'wait',
    arguments: { timeout_seconds: 30, from: 'colega' },
    _meta: { progressToken: 'tok-1' },
  });
  const p1 = await client.waitFor((m) => m.method === 'notifications/progress');
  const p2 = await client.waitFor((m) => m.method === 'notifications/progress' && m !== p1);
  assert.equal(p1.params.progressToken, 'tok-1');
  assert.equal(p1.params.total, 30);
  assert.ok(p2.params.progress > p1.params.progress);
  assert.match(p1.params.message, /^Waiting for messages \(\d+s of 30s\)\.$/);
  member.receive('ana', 'not for this wait', { kind: 'human' });
  const wanted = member.receive('colega', 'here it is');
  const res = await client.response(id);
  assert.match(resultText(res.result), new RegExp(`msg_id=${wanted.id} from=colega`));
  assert.doesNotMatch(resultText(res.result), /not for this wait/);
  assert.deepEqual(
    member.unread().map((m) => m.from),
    ['ana'],
  );
});

test('wait: the timeout text names who is online', async (t) => {
  const { member, client } = serve(t);
  member.peers = [online('colega'), { ...online('ana'), online: false }];
  await client.initialize();
  const text = resultText(await client.call('wait', { timeout_seconds: 1 }));
  assert.equal(
    text,
    'No new messages after 1s. Online: colega. Call `wait` again to keep listening, or tell your user.',
  );
});

test('wait: a cancelled call gets no response and consumes nothing', async (t) => {
  const { member, client } = serve(t);
  await client.initialize();
  const id = client.send('tools/call', { name: 'wait', arguments: { timeout_seconds: 30 } });
  await client.request('ping');
  client.notify('notifications/cancelled', { requestId: id, reason: 'user pressed Esc' });
  await client.request('ping');
  member.receive('colega', 'arrives after the cancel');
  await client.request('ping');
  assert.equal(client.messages.filter((m) => m.id === id).length, 0, 'no response for the cancelled request');
  assert.equal(member.unread().length, 1);
  const inbox = resultText(await client.call('inbox'));
  assert.match(inbox, /arrives after the cancel/);
  assert.equal(member.unread().length, 0);
});

test('inbox: "No unread messages." when empty; otherwise all unread, consumed', async (t) => {
  const { member, client } = serve(t);
  await client.initialize();
  assert.equal(resultText(await client.call('inbox')), 'No unread messages.');
  member.receive('colega', 'a');
  member.receive('ana', 'b', { kind: 'human', to: 'voce' });
  const text = resultText(await client.call('inbox'));
  assert.match(
    text,
    new RegExp(
      `from=colega \\(agent\\) at [^\\]]+\\]${PUSHED}\\n {2}a\\n\\n\\[msg_id=[0-9a-f]+ from=ana \\(human\\) at [^\\]]+ to=voce\\]${PUSHED}\\n {2}b$`,
    ),
  );
  assert.equal(member.unread().length, 0);
});

test('inbox: what does not fit stays unread and is counted', async (t) => {
  const { member, client } = serve(t);
  await client.initialize();
  for (let i = 0; i < 12; i++) member.receive('colega', `${i} ${'w'.repeat(9000)}`);
  const text = resultText(await client.call('inbox'));
  assert.ok(text.length <= 40_000);
  const left = member.unread().length;
  assert.ok(left > 0);
  assert.match(text, new RegExp(`${left} more unread messages did not fit`));
});

test('push: nothing before notifications/initialized; then earlier unread and each new one, once, unread', async (t) => {
  const { member, client } = serve(t);
  const earlier = member.receive('colega', 'from an earlier session');
  await client.request('initialize', { protocolVersion: '2025-06-18', capabilities: {} });
  await client.call('status'); // the member is open now
  assert.equal(client.messages.filter((m) => m.method === 'notifications/claude/channel').length, 0);
  client.notify('notifications/initialized');
  const first = await client.waitFor((m) => m.method === 'notifications/claude/channel');
  assert.deepEqual(first.params, {
    content: 'from an earlier session',
    meta: { from: 'colega', msg_id: earlier.id, sender_kind: 'agent' },
  });
  const live = member.receive('colega', 'live one', { reply_to: '3f9a1c07b2', to: 'voce' });
  const second = await client.waitFor(
    (m) => m.method === 'notifications/claude/channel' && m.params.meta.msg_id === live.id,
  );
  assert.deepEqual(second.params.meta, {
    from: 'colega',
    msg_id: live.id,
    sender_kind: 'agent',
    reply_to: '3f9a1c07b2',
    to: 'voce',
  });
  for (const key of Object.keys(second.params.meta)) assert.match(key, /^[A-Za-z0-9_]+$/);
  member.emit('message', live); // the same event twice is pushed once
  await client.request('ping');
  assert.equal(client.messages.filter((m) => m.method === 'notifications/claude/channel').length, 2);
  assert.equal(member.unread().length, 2, 'a push marks nothing read');
});

test('push and a wait in flight: what it waits for is not pushed; what it leaves unread is pushed when it ends', async (t) => {
  const { member, client } = serve(t);
  await client.initialize();
  await client.call('status'); // the member is open, the pump runs
  const pushes = () =>
    client.messages
      .filter((m) => m.method === 'notifications/claude/channel')
      .map((m) => m.params.meta.msg_id);
  const id = client.send('tools/call', { name: 'wait', arguments: { timeout_seconds: 30, from: 'colega' } });
  await client.request('ping');
  const other = member.receive('ana', 'not what the wait wants', { kind: 'human' });
  const wanted = member.receive('colega', 'for the wait');
  assert.match(resultText((await client.response(id)).result), new RegExp(`msg_id=${wanted.id} from=colega`));
  await client.request('ping');
  assert.deepEqual(pushes(), [other.id]);
  // Two arrive for the next wait at once; the second does not fit in its result (ADR 0042): the
  // wait leaves it unread and says so, and it is pushed when the wait ends.
  const id2 = client.send('tools/call', { name: 'wait', arguments: { timeout_seconds: 30, from: 'colega' } });
  await client.request('ping');
  const big = member.receive('colega', `first ${'w'.repeat(30_000)}`);
  const left = member.receive('colega', `second ${'w'.repeat(30_000)}`);
  const text = resultText((await client.response(id2)).result);
  assert.match(text, new RegExp(`msg_id=${big.id} from=colega`));
  assert.match(text, /1 more unread message did not fit/);
  await client.request('ping');
  assert.deepEqual(pushes(), [other.id, left.id]);
  assert.deepEqual(
    member.unread().map((m) => m.id),
    [other.id, left.id],
  );
});

test('push: a reply to an id only a push showed is the evidence; from then a push marks read', async (t) => {
  const { member, client } = serve(t);
  member.ackBy = 'colega';
  await client.initialize();
  await client.call('status');
  const shown = member.receive('colega', 'shown by inbox');
  assert.match(resultText(await client.call('inbox')), new RegExp(`msg_id=${shown.id}.*${PUSHED}`));
  await client.call('send', { message: 'ok', reply_to: shown.id });
  const mentioned = member.receive('colega', 'the next one');
  // Its id appears in a body a tool showed (a member may announce ids): no evidence either.
  member.receive('ana', `see ${mentioned.id.toUpperCase()}`, { kind: 'human' });
  await client.call('inbox');
  await client.call('send', { message: 'ok', reply_to: mentioned.id });
  const pushedOnly = member.receive('colega', 'only pushed');
  const alsoUnread = member.receive('ana', 'pushed, still unread', { kind: 'human' });
  assert.equal(member.unread().length, 2);
  await client.call('send', { message: 'answer', reply_to: pushedOnly.id });
  assert.deepEqual(member.unread(), [], 'the pushed ones still unread are read');
  const after = member.receive('colega', 'after the evidence');
  await client.request('ping');
  assert.ok(
    client.messages.some((m) => m.params?.meta?.msg_id === after.id),
    'still pushed',
  );
  assert.deepEqual(member.unread(), [], 'a push now marks read');
  assert.equal(resultText(await client.call('inbox')), 'No unread messages.');
  assert.ok(alsoUnread.id !== after.id);
});

test('history: papo log lines, with the notice when others wrote some of them', async (t) => {
  const { member, client } = serve(t);
  member.ackBy = 'colega';
  await client.initialize();
  await client.call('send', { message: 'proposal' });
  member.receive('colega', 'reply', { to: 'voce' });
  const text = resultText(await client.call('history', { limit: 3 }));
  const lines = text.split('\n');
  assert.match(lines[0] as string, /were written by other members/);
  assert.match(lines[1] as string, /^\[[0-9-]+ [0-9:]+\] voce -> room \(msg [0-9a-f]{10}\): proposal$/);
  assert.match(lines[2] as string, /^\[[0-9-]+ [0-9:]+\] delivered [0-9a-f]{10} to colega$/);
  assert.match(
    lines[3] as string,
    /^\[[0-9-]+ [0-9:]+\] colega \(agent\) -> voce \(msg [0-9a-f]{10}\): reply$/,
  );
});

test('status: the book text plus the link path', async (t) => {
  const { member, client } = serve(t);
  member.peers = [online('colega'), { ...online('ana', ''), kind: 'human', online: false }];
  member.queued = [];
  member.receive('colega', 'unread one');
  await client.initialize();
  assert.equal(
    resultText(await client.call('status')),
    [
      STATUS_NOTICE,
      'You are "voce" in room 7a2e64ec (endpoint 3b2c41d0a9).',
      'Peers:',
      '- ana (human): offline',
      '- colega (agent): online, working on: notificacoes, link: direct',
      'Unread: 1. Queued for delivery: 0.',
      "Push: pull only: call `wait` when you expect a message (channel events reach you only if Claude Code runs with papo's channel; no door into this client was found: Claude Code 2.1.332 or later (not --bare, CLAUDE_CODE_HARBOR_KITE not 0), Qwen Code 0.24 or later in its TUI and Codex CLI 0.171 or later in its TUI have one).",
    ].join('\n'),
  );
});

test('status and send tell the agent about the network: the warnings, the restarts, PAPO_RELAY', async (t) => {
  const { member, client } = serve(t, { env: { PAPO_RELAY: 'https://relay.example.test' } });
  member.peers = [{ ...online('colega'), online: false }];
  member.health = {
    signalUrl: 'wss://signal.example.test',
    signal: {
      joined: false,
      everJoined: true,
      peers: [],
      problem: { code: 'unauthorized', detail: 'a valid token is required', since: 0 },
      dropped: {},
    },
    transport: {
      state: 'running',
      restarts: 1,
      lastRestart: { at: Date.now() - 5000, why: 'was ended by SIGKILL' },
      failing: false,
      stallSeconds: 5,
    },
  };
  await client.initialize();
  const status = resultText(await client.call('status'));
  const [notice, ...lines] = status.split('\n');
  assert.equal(notice, STATUS_NOTICE);
  assert.equal(lines[0], 'You are "voce" in room 7a2e64ec (endpoint 3b2c41d0a9).');
  assert.match(
    lines[1] as string,
    /^WARNING: the signal server wss:\/\/signal\.example\.test refused papo: it requires a valid token\./,
  );
  assert.deepEqual(lines.slice(2, 5), [
    'Peers:',
    '- colega (agent): offline, working on: notificacoes',
    'Unread: 0. Queued for delivery: 0.',
  ]);
  assert.match(
    lines[5] as string,
    /^Network process: started again once by papo, the last time \d+s ago because it was ended by SIGKILL; /,
  );
  assert.match(lines[6] as string, /^Push: pull only: /);
  assert.match(lines[7] as string, /^Note: PAPO_RELAY is set, but this papo does not use it/);
  // send: nobody confirmed, and the reason is the network.
  const sent = resultText(await client.call('send', { message: 'anyone?' }));
  assert.match(
    sent,
    /^Not acknowledged yet \(msg_id [0-9a-f]{10}\)\. .* No peer is online right now\.\nWARNING: the signal server wss:\/\/signal\.example\.test refused papo/,
  );
  // Delivered: no warning (the network works well enough).
  member.ackBy = 'colega';
  member.health = { ...member.health, signal: { joined: true, everJoined: true, peers: [], dropped: {} } };
  assert.match(
    resultText(await client.call('send', { message: 'now?' })),
    /^Delivered to colega \(msg_id [0-9a-f]{10}\)\. If you need their answer to continue, call `wait`\.$/,
  );
});

test('wait: a `from` that is an object with its own toString is an argument error (fuzz, issue 13)', async (t) => {
  // Found by the fuzz target "tool arguments": String() threw on {"toString": []}, so the call
  // failed as "not ready" with an error in the log instead of an argument error the model can fix.
  const { client } = serve(t);
  await client.initialize();
  for (const from of [{ toString: [] }, { valueOf: 1, toString: 'x' }, [1, 2]]) {
    const result = await client.call('wait', { timeout_seconds: 1, from });
    assert.equal(result.isError, true);
    assert.match(resultText(result), /is not a valid member name/);
  }
});

test('a profile locked by another server: the server stays up and every tool says what to do', async (t) => {
  const { client } = serve(t, {
    open: async () => {
      throw new PapoError('profile_locked', 'locked');
    },
  });
  await client.initialize();
  for (const name of ['status', 'inbox']) {
    const result = await client.call(name);
    assert.equal(result.isError, true);
    assert.match(resultText(result), /another papo server is already running with this profile/);
  }
  assert.deepEqual((await client.request('ping')).result, {});
});

test('shutdown cancels calls in flight (no response) and closes the member', async (t) => {
  const { member, client, server } = serve(t);
  await client.initialize();
  const id = client.send('tools/call', { name: 'wait', arguments: { timeout_seconds: 30 } });
  await client.request('ping');
  await server.shutdown(50);
  assert.equal(member.closed, true);
  member.receive('colega', 'too late');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(client.messages.filter((m) => m.id === id).length, 0);
});

test('wait: a cancel that arrives while the messages are being marked read gets no result, and the messages are unread again', async (t) => {
  // A slow disk (injected: consume takes 100 ms) and a cancel in the middle of it: the client has
  // stopped listening for this call (MCP "Cancellation"), so what it marked read goes back.
  const member = new MemoryMember();
  const consume = member.consume.bind(member);
  member.consume = async (ids) => {
    await new Promise((r) => setTimeout(r, 100));
    await consume(ids);
  };
  const { client } = serve(t, { member });
  await client.initialize();
  member.receive('colega', 'read while cancelled');
  const id = client.send('tools/call', { name: 'inbox', arguments: {} });
  await new Promise((r) => setTimeout(r, 30));
  client.notify('notifications/cancelled', { requestId: id, reason: 'user pressed Esc' });
  await new Promise((r) => setTimeout(r, 150));
  await client.request('ping');
  assert.equal(client.messages.filter((m) => m.id === id).length, 0, 'no result for the cancelled call');
  assert.deepEqual(
    member.unread().map((m) => m.body),
    ['read while cancelled'],
    'unread again',
  );
  assert.match(resultText(await client.call('inbox')), /read while cancelled/);
});

test('wait and send: member names compare without regard to case', async (t) => {
  const { member, client } = serve(t);
  member.peers = [online('colega')];
  member.ackBy = 'colega';
  await client.initialize();
  member.receive('colega', 'from the lower-case name');
  const waited = resultText(await client.call('wait', { timeout_seconds: 1, from: 'Colega' }));
  assert.match(waited, /from the lower-case name/);
  const sent = resultText(await client.call('send', { message: 'hi', to: 'COLEGA' }));
  assert.doesNotMatch(sent, /No member named/);
});
