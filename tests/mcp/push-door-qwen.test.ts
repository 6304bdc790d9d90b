// Qwen Code's door (src/mcp/push-doors/qwen-session.ts, ADR 0118 "Amended: Qwen Code") with the
// server in-process on injected streams and an in-memory member, against a real unix socket server
// that stands where Qwen Code's session inbox is and answers as its Cross-Session Protocol does: a
// receipt on a connection of its own to the frame's `from`, its auth line the frame's `replyToken`.
// What papo writes (the auth line first, then one `user` frame with papo's framing, priority next),
// that a message takes one route only, and that a refused or held receipt, no receipt at all, or an
// inbox gone hands over to channel events, said on stderr and in `status`. The same route with the
// real Qwen Code: tests/clients/qwen-push.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { pushedText, QWEN_NO_SOCKET } from '../../src/mcp/texts.js';
import { channelPushes, servePush } from '../support/push-server.js';
import { type Json, resultText } from '../support/rpc-client.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'c'.repeat(64);
const SESSION = '6fe8f19f-9b38-4927-8c3d-1b3db3078540';

/**
 * A unix socket server that keeps every line each connection wrote (one array per connection) and,
 * when `verdict` is set, answers a `user` frame that came after the right token with that receipt.
 */
async function fakeQwenInbox(
  t: TestContext,
  verdict: string | undefined,
): Promise<{ path: string; server: Server; connections: Json[][]; receipts: Json[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'papo-qwen-inbox-'));
  const path = join(dir, 'inbox.sock');
  const connections: Json[][] = [];
  const receipts: Json[] = [];
  const server = createServer((socket) => {
    const lines: Json[] = [];
    connections.push(lines);
    let buf = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buf += chunk;
    });
    socket.on('end', () => {
      for (const l of buf.split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      socket.end();
      const [auth, frame] = lines;
      if (verdict === undefined || auth?.token !== TOKEN || frame?.type !== 'user') return;
      const receipt = {
        msgV: 1,
        msgId: 'r-1',
        type: 'control',
        action: 'delivery_status',
        status: verdict,
        origMsgId: frame.msgId,
        from: path,
        reason: 'words for a person',
      };
      receipts.push(receipt);
      const back = createConnection({ path: frame.from });
      back.on('error', () => {});
      back.end(
        `${JSON.stringify({ msgV: 1, type: 'auth', token: frame.replyToken })}\n${JSON.stringify(receipt)}\n`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  t.after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { path, server, connections, receipts };
}

const serve = servePush;

/** The environment Qwen Code 0.24.4's TUI gives its MCP children (measured), the inbox `path`. */
const qwenTui = (path: string): NodeJS.ProcessEnv => ({
  QWEN_CODE_MESSAGING_SOCKET: path,
  QWEN_CODE_MESSAGING_TOKEN: TOKEN,
  QWEN_CODE_SESSION_ID: SESSION,
  QWEN_CODE_CLI: '/opt/qwen/node_modules/@qwen-code/qwen-code/cli-entry.js',
});

/** Waits for `check` (up to 3000 ms), failing with `what`. */
const until = (check: () => boolean, what: string, ms = 3000) =>
  waitFor(what, check, { timeoutMs: ms, intervalMs: 10 });

test("Qwen Code's session inbox: the auth line, then one `user` frame with papo's frame, priority next, receipts to papo's socket; delivered: no channel event", async (t) => {
  const inbox = await fakeQwenInbox(t, 'delivered');
  const { member, client, stderr } = serve(t, qwenTui(inbox.path));
  await client.initialize();
  assert.match(resultText(await client.call('status')), /^Push: Qwen Code's session messages: /m);
  const msg = member.receive('colega', 'the schema moved to v2', { to: 'voce' });
  await until(() => inbox.receipts.length === 1, 'the receipt');
  assert.equal(inbox.connections.length, 1);
  const [auth, frame] = inbox.connections[0] as [Json, Json];
  assert.deepEqual(auth, { msgV: 1, type: 'auth', token: TOKEN });
  // papo's own socket and token for the receipts: a fresh token, never the child token.
  assert.match(frame.from, /\/papo-qwen-[^/]+\/receipts\.sock$/);
  assert.match(frame.replyToken, /^[0-9a-f]{64}$/);
  assert.notEqual(frame.replyToken, TOKEN);
  assert.deepEqual(frame, {
    msgV: 1,
    msgId: `papo-${msg.id}`,
    type: 'user',
    from: frame.from,
    replyToken: frame.replyToken,
    fromName: 'papo',
    priority: 'next',
    message: { role: 'user', content: pushedText(msg, 'qwen-session') },
  });
  await client.request('ping');
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(channelPushes(client), [], 'the message also went out as a channel event');
  assert.match(resultText(await client.call('status')), /^Push: Qwen Code's session messages: /m);
  assert.match(
    resultText(await client.call('inbox')),
    new RegExp(`msg_id=${msg.id} .*\\] \\(also pushed into this conversation as a papo room message`),
  );
  assert.doesNotMatch(stderr(), /WARN/);
  assert.doesNotMatch(stderr(), new RegExp(`${TOKEN}|${frame.replyToken}`));
  // The next message: its own connection, one route.
  const next = member.receive('colega', 'and a second one');
  await until(() => inbox.receipts.length === 2, 'the second receipt');
  assert.equal(inbox.connections.length, 2);
  assert.equal(inbox.connections[1]?.[1]?.msgId, `papo-${next.id}`);
  assert.deepEqual(channelPushes(client), []);
});

for (const [verdict, said] of [
  ['refused', /Qwen Code refused it \(agents\.crossSessionInbound is refuse in its settings/],
  ['held', /Qwen Code held it for review \(agents\.crossSessionInbound is hold in its settings/],
] as const) {
  test(`a \`${verdict}\` receipt: the message goes out as a channel event instead, said on stderr and in status, never twice`, async (t) => {
    const inbox = await fakeQwenInbox(t, verdict);
    const { member, client, stderr } = serve(t, qwenTui(inbox.path));
    await client.initialize();
    await client.call('status');
    const msg = member.receive('colega', 'not taken');
    await until(() => channelPushes(client).length > 0, 'the fallback');
    assert.deepEqual(channelPushes(client), [msg.id]);
    assert.equal(inbox.connections.length, 1);
    assert.match(stderr(), /WARN papo::mcp push through qwen-session failed \(Qwen Code /);
    assert.match(stderr(), said);
    const status = resultText(await client.call('status'));
    assert.match(
      status,
      /^Push: pull only: call `wait` when you expect a message \(Qwen Code's session messages: failed \(/m,
    );
    assert.match(status, said);
    // The next one goes the fallback's way at once: one route per message.
    const next = member.receive('colega', 'and again');
    await until(() => channelPushes(client).length > 1, 'the second push');
    assert.deepEqual(channelPushes(client), [msg.id, next.id]);
    assert.equal(inbox.connections.length, 1);
    assert.match(resultText(await client.call('inbox')), /\(also pushed as a <channel> event/);
  });
}

test('no receipt (a wrong token is dropped silently): after 5 s the message goes out as a channel event, said', async (t) => {
  const inbox = await fakeQwenInbox(t, undefined);
  const { member, client, stderr } = serve(t, qwenTui(inbox.path));
  await client.initialize();
  await client.call('status');
  const msg = member.receive('colega', 'into the void');
  await until(() => channelPushes(client).length > 0, 'the fallback', 8000);
  assert.deepEqual(channelPushes(client), [msg.id]);
  assert.match(
    stderr(),
    /WARN papo::mcp push through qwen-session failed \(no receipt from Qwen Code within 5000 ms\)/,
  );
  assert.match(
    resultText(await client.call('status')),
    /Qwen Code's session messages: failed \(no receipt from Qwen Code within 5000 ms\)\)\.$/m,
  );
});

test('the inbox gone: the message goes out as a channel event instead, said on stderr and in status', async (t) => {
  const inbox = await fakeQwenInbox(t, 'delivered');
  const { member, client, stderr } = serve(t, qwenTui(inbox.path));
  await client.initialize();
  await client.call('status');
  await new Promise<void>((resolve) => inbox.server.close(() => resolve()));
  const msg = member.receive('colega', 'nobody listens there');
  await until(() => channelPushes(client).length > 0, 'the fallback');
  assert.deepEqual(channelPushes(client), [msg.id]);
  assert.match(
    stderr(),
    /WARN papo::mcp push through qwen-session failed \(Qwen Code's session inbox is gone \(ENOENT\)\)/,
  );
  assert.doesNotMatch(stderr(), new RegExp(TOKEN));
  assert.match(
    resultText(await client.call('status')),
    /Qwen Code's session messages: failed \(Qwen Code's session inbox is gone \(ENOENT\)\)\)\.$/m,
  );
});

test('a `wait` in flight takes its message: nothing on the inbox', async (t) => {
  const inbox = await fakeQwenInbox(t, 'delivered');
  const { member, client } = serve(t, qwenTui(inbox.path));
  await client.initialize();
  await client.call('status');
  const id = client.send('tools/call', { name: 'wait', arguments: { timeout_seconds: 30 } });
  await client.request('ping');
  const msg = member.receive('colega', 'for the wait');
  assert.match(resultText((await client.response(id)).result), new RegExp(`msg_id=${msg.id} from=colega`));
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(inbox.connections, []);
});

test('`qwen -p` (Qwen Code gives no inbox, its session id yes): pull only, said with the settings, channel events as before', async (t) => {
  const { member, client } = serve(t, {
    QWEN_CODE_SESSION_ID: SESSION,
    QWEN_CODE_CLI: '/opt/qwen/node_modules/@qwen-code/qwen-code/cli-entry.js',
  });
  await client.initialize();
  const status = resultText(await client.call('status'));
  assert.ok(
    status.includes(
      `Push: pull only: call \`wait\` when you expect a message (Qwen Code's session messages: ${QWEN_NO_SOCKET}).`,
    ),
    status,
  );
  const msg = member.receive('colega', 'as before');
  await client.request('ping');
  assert.deepEqual(channelPushes(client), [msg.id]);
});

test('Qwen Code started from a Claude Code shell: the nearest client’s door, Qwen Code’s, carries the pushes', async (t) => {
  const inbox = await fakeQwenInbox(t, 'delivered');
  const claudeSocket = await fakeQwenInbox(t, undefined);
  const { member, client } = serve(
    t,
    {
      ...qwenTui(inbox.path),
      // What Claude Code's shell passed down to the qwen started in it.
      CLAUDECODE: '1',
      CLAUDE_CODE_MESSAGING_SOCKET: claudeSocket.path,
      CLAUDE_CODE_MESSAGING_TOKEN: 'd'.repeat(64),
    },
    [
      ['node', '/opt/qwen/node_modules/@qwen-code/qwen-code/cli-entry.js'],
      ['/bin/bash'],
      ['/opt/claude-code/bin/claude'],
    ],
  );
  await client.initialize();
  assert.match(resultText(await client.call('status')), /^Push: Qwen Code's session messages: /m);
  member.receive('colega', 'to the inner session');
  await until(() => inbox.receipts.length === 1, 'the receipt');
  assert.deepEqual(claudeSocket.connections, []);
});

test('under `qwen -p` known by its command line alone: pull only, said', async (t) => {
  const { client } = serve(t, {}, [
    ['node', '/opt/qwen/node_modules/@qwen-code/qwen-code/cli-entry.js', '-p', 'hi'],
  ]);
  await client.initialize();
  assert.ok(
    resultText(await client.call('status')).includes(`(Qwen Code's session messages: ${QWEN_NO_SOCKET}).`),
  );
});
