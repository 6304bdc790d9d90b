// The push routes (src/mcp/push-route.ts, ADR 0118) with the server in-process on injected streams
// and an in-memory member, against a real unix socket server that stands where Claude Code's
// session messaging socket is: what papo writes on it (the auth line first, then one `user` frame,
// priority `next`), that a message takes one route only, and that a socket gone hands over to
// channel events, said on stderr and in `status`. The same route with the real Claude Code:
// tests/claude-code/session-push.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { channelsAskedFor, choosePushRoute } from '../../src/mcp/push-route.js';
import { pushedText } from '../../src/mcp/texts.js';
import { channelPushes, servePush } from '../support/push-server.js';
import { type Json, resultText } from '../support/rpc-client.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'f'.repeat(64);

/** A unix socket server that keeps every line each connection wrote, one array per connection. */
async function fakeInbox(t: TestContext): Promise<{ path: string; server: Server; connections: Json[][] }> {
  const dir = mkdtempSync(join(tmpdir(), 'papo-inbox-'));
  const path = join(dir, 'inbox.sock');
  const connections: Json[][] = [];
  const server = createServer((socket) => {
    const lines: Json[] = [];
    connections.push(lines);
    let buf = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buf += chunk;
      for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
        lines.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
    });
    socket.on('end', () => socket.end());
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  t.after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { path, server, connections };
}

const serve = servePush;

/** Waits for `check` (up to 3000 ms), failing with `what`. */
const until = (check: () => boolean, what: string, ms = 3000) =>
  waitFor(what, check, { timeoutMs: ms, intervalMs: 10 });

test("Claude Code's session socket: the auth line, then one `user` frame with papo's frame, priority next; no channel event", async (t) => {
  const inbox = await fakeInbox(t);
  const { member, client, stderr } = serve(t, {
    CLAUDE_CODE_MESSAGING_SOCKET: inbox.path,
    CLAUDE_CODE_MESSAGING_TOKEN: TOKEN,
  });
  await client.initialize();
  assert.match(
    resultText(await client.call('status')),
    /^Push: Claude Code's session messages \(no channels flag\)/m,
  );
  const msg = member.receive('colega', 'the schema moved to v2', { to: 'voce' });
  await until(() => inbox.connections.some((c) => c.length === 2), 'the frame on the socket');
  assert.equal(inbox.connections.length, 1);
  const [auth, frame] = inbox.connections[0] as Json[];
  assert.deepEqual(auth, { type: 'auth', token: TOKEN });
  // A UUID (Claude Code keeps only those, and names it in a receipt), and papo's receipt socket
  // beside Claude Code's.
  assert.match(frame.msg_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(frame.from, new RegExp(`^uds:${dirname(inbox.path)}/papo-${process.pid}-[0-9a-f]{8}\\.sock$`));
  assert.deepEqual(
    { ...frame, msg_id: 'uuid', from: 'uds' },
    {
      type: 'user',
      message: { role: 'user', content: pushedText(msg, 'claude-session') },
      msg_id: 'uuid',
      priority: 'next',
      from: 'uds',
    },
  );
  await client.request('ping');
  assert.deepEqual(channelPushes(client), [], 'the message also went out as a channel event');
  // Unproven (ADR 0066): the message stays unread, and `inbox` marks it in this route's words.
  assert.match(
    resultText(await client.call('inbox')),
    new RegExp(`msg_id=${msg.id} .*\\] \\(also pushed into this conversation as a papo room message`),
  );
  assert.doesNotMatch(stderr(), new RegExp(TOKEN));
});

test('a `wait` in flight takes its message: nothing on the socket', async (t) => {
  const inbox = await fakeInbox(t);
  const { member, client } = serve(t, {
    CLAUDE_CODE_MESSAGING_SOCKET: inbox.path,
    CLAUDE_CODE_MESSAGING_TOKEN: TOKEN,
  });
  await client.initialize();
  await client.call('status');
  const id = client.send('tools/call', { name: 'wait', arguments: { timeout_seconds: 30 } });
  await client.request('ping');
  const msg = member.receive('colega', 'for the wait');
  assert.match(resultText((await client.response(id)).result), new RegExp(`msg_id=${msg.id} from=colega`));
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(inbox.connections, []);
});

test('the socket gone: the message goes out as a channel event instead, said on stderr and in status, never twice', async (t) => {
  const inbox = await fakeInbox(t);
  const { member, client, stderr } = serve(t, {
    CLAUDE_CODE_MESSAGING_SOCKET: inbox.path,
    CLAUDE_CODE_MESSAGING_TOKEN: TOKEN,
  });
  await client.initialize();
  await client.call('status');
  await new Promise<void>((resolve) => inbox.server.close(() => resolve()));
  const msg = member.receive('colega', 'nobody listens there');
  await until(() => channelPushes(client).length > 0, 'the fallback');
  assert.deepEqual(channelPushes(client), [msg.id]);
  assert.deepEqual(inbox.connections, []);
  assert.match(
    stderr(),
    /WARN papo::mcp push through claude-session failed \(Claude Code's messaging socket is gone \(ENOENT\)\)/,
  );
  assert.doesNotMatch(stderr(), new RegExp(TOKEN));
  assert.match(
    resultText(await client.call('status')),
    /^Push: pull only: call `wait` .*Claude Code's session messages: failed \(Claude Code's messaging socket is gone \(ENOENT\)\)\)\.$/m,
  );
  // The next one goes the same way, at once: one route per message.
  const next = member.receive('colega', 'and again');
  await until(() => channelPushes(client).length > 1, 'the second push');
  assert.deepEqual(channelPushes(client), [msg.id, next.id]);
  assert.match(resultText(await client.call('inbox')), /\(also pushed as a <channel> event/);
});

test('channels asked for on the command line: the channel only, never the socket', async (t) => {
  const inbox = await fakeInbox(t);
  const { member, client } = serve(
    t,
    { CLAUDE_CODE_MESSAGING_SOCKET: inbox.path, CLAUDE_CODE_MESSAGING_TOKEN: TOKEN },
    [
      ['node', 'record-stdio.js'],
      ['claude', '--dangerously-load-development-channels', 'server:papo'],
    ],
  );
  await client.initialize();
  assert.match(
    resultText(await client.call('status')),
    /^Push: channels \(<channel source="papo"> events\)\.$/m,
  );
  const msg = member.receive('colega', 'through the channel');
  await client.request('ping');
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(channelPushes(client), [msg.id]);
  assert.deepEqual(inbox.connections, []);
});

test('Claude Code gave no socket (CLAUDE_CODE_HARBOR_KITE=0, --bare): pull only, channel events as before', async (t) => {
  const { member, client } = serve(t, {}, [['/opt/claude-code/bin/claude.exe']]);
  await client.initialize();
  assert.match(
    resultText(await client.call('status')),
    /^Push: pull only: call `wait` .*Claude Code's session messages: no messaging socket from the client/m,
  );
  const msg = member.receive('colega', 'as before');
  await client.request('ping');
  assert.deepEqual(channelPushes(client), [msg.id]);
});

test('a receipt from Claude Code that refuses the message (crossSessionInbound refuse) falls back to channel events for it and the next ones, said on stderr and in status', async (t) => {
  const inbox = await fakeInbox(t);
  const { member, client, stderr } = serve(t, {
    CLAUDE_CODE_MESSAGING_SOCKET: inbox.path,
    CLAUDE_CODE_MESSAGING_TOKEN: TOKEN,
  });
  await client.initialize();
  await client.call('status');
  const msg = member.receive('colega', 'refused by the session', { to: 'voce' });
  await until(() => inbox.connections.some((c) => c.length === 2), 'the frame on the socket');
  const frame = (inbox.connections[0] as Json[])[1] as Json;
  // Claude Code answers as 2.1.332 does: one line on a connection to the frame's `from`.
  await new Promise<void>((resolve, reject) => {
    const s = createConnection((frame.from as string).slice('uds:'.length), () =>
      s.end(
        `${JSON.stringify({ type: 'control', action: 'peer_message_status', status: 'expired', status_detail: 'refused', reason: 'not accepting', from: `uds:${inbox.path}`, msgV: 1, orig_msg_id: frame.msg_id })}\n`,
      ),
    );
    s.on('close', () => resolve());
    s.on('error', reject);
  });
  await until(() => channelPushes(client).includes(msg.id), 'the refused message as a channel event');
  assert.match(
    stderr(),
    /push through claude-session failed \(Claude Code refuses messages from other sessions/,
  );
  assert.match(
    resultText(await client.call('status')),
    /^Push: pull only: call `wait` .*Claude Code's session messages: failed \(Claude Code refuses messages from other sessions \(its crossSessionInbound setting, or a policy, is refuse\)\)\)\.$/m,
  );
  // The next message goes through the fallback only; inbox hands the refused one without the
  // session's mark (it did not reach the model through the session).
  const next = member.receive('colega', 'after the refusal', { to: 'voce' });
  await until(() => channelPushes(client).includes(next.id), 'the next one as a channel event');
  assert.equal(inbox.connections.length, 1);
  assert.doesNotMatch(resultText(await client.call('inbox')), /also pushed into this conversation/);
});

test('PAPO_PUSH=pull keeps the door shut: nothing on the socket, pull only, and why', async (t) => {
  const inbox = await fakeInbox(t);
  const { member, client } = serve(t, {
    CLAUDE_CODE_MESSAGING_SOCKET: inbox.path,
    CLAUDE_CODE_MESSAGING_TOKEN: TOKEN,
    PAPO_PUSH: 'pull',
  });
  await client.initialize();
  assert.match(
    resultText(await client.call('status')),
    /^Push: pull only: call `wait` .*Claude Code's session messages: off by PAPO_PUSH=pull\)\.$/m,
  );
  const msg = member.receive('colega', 'kept for wait');
  await client.request('ping');
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(inbox.connections, []);
  assert.deepEqual(channelPushes(client), [msg.id]);
});

test('no client papo knows a door of: pull only, and the clients that have one said', async (t) => {
  const { member, client } = serve(t, {}, [['node', 'some-other-client.js']]);
  await client.initialize();
  assert.match(
    resultText(await client.call('status')),
    /^Push: pull only: call `wait` .*no door into this client was found: Claude Code/m,
  );
  const msg = member.receive('colega', 'as before');
  await client.request('ping');
  assert.deepEqual(channelPushes(client), [msg.id]);
});

test("the nearest client's door: Codex started from Claude Code's shell keeps Claude Code's variables, and the door is Codex's", () => {
  const env = { CLAUDE_CODE_MESSAGING_SOCKET: '/tmp/not-used.sock', CLAUDE_CODE_MESSAGING_TOKEN: TOKEN };
  const notify = () => {};
  const codexUnderClaude = [
    { pid: 3000, args: ['/opt/codex/vendor/x86_64-unknown-linux-musl/codex/codex'] },
    { pid: 2999, args: ['node', '/opt/codex/bin/codex.js'] },
    { pid: 2000, args: ['bash', '-c', 'codex'] },
    { pid: 1999, args: ['/opt/claude-code/bin/claude.exe'] },
  ];
  assert.equal(choosePushRoute(env, notify, () => codexUnderClaude).route.kind, 'codex-queue');
  // Claude Code itself nearest: its socket.
  assert.equal(choosePushRoute(env, notify, () => codexUnderClaude.slice(3)).route.kind, 'claude-session');
  // No ancestor known (not Linux): the doors in their order.
  assert.equal(choosePushRoute(env, notify, () => []).route.kind, 'claude-session');
  // CLAUDECODE=1 passed down to Codex: Codex's open door, not Claude Code's closed one.
  const under = choosePushRoute({ CLAUDECODE: '1' }, notify, () => codexUnderClaude);
  assert.deepEqual([under.route.kind, under.door], ['codex-queue', 'codex-queue']);
});

test('channelsAskedFor: the flags and the forms Claude Code takes', () => {
  const asked = (...args: string[]) => channelsAskedFor([args]);
  assert.equal(asked('claude', '--dangerously-load-development-channels', 'server:papo'), true);
  assert.equal(
    asked('claude', '--dangerously-load-development-channels', 'server:other', 'plugin:papo@papo'),
    true,
  );
  assert.equal(asked('claude', '--channels=plugin:papo@papo'), true);
  assert.equal(asked('claude', '--channels', 'server:other', '--permission-mode', 'server:papo'), false);
  assert.equal(asked('claude', '--permission-mode', 'default'), false);
  assert.equal(asked('claude', 'server:papo'), false);
});
