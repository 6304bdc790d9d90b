// Contract tests that drive the built `papo mcp` over stdio, as Claude Code does, each with its own
// temporary PAPO_HOME (no profile configured: the room member is not needed for these).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { deriveRoomKeys } from '../../src/client/wire/room-crypto.js';
import { spawnMcp } from '../support/mcp-process.js';
import { ROOT } from '../support/papo.js';
import { resultText } from '../support/rpc-client.js';

const SNAPSHOT = join(ROOT, 'tests', 'mcp', 'snapshots', 'tools-list.json');

/** Every stdout line is a JSON-RPC 2.0 message and nothing trails the last newline. */
function assertOnlyJsonRpc(lines: string[], partial: string): void {
  assert.equal(partial, '', 'stdout ends with a newline');
  for (const line of lines) {
    const msg = JSON.parse(line);
    assert.equal(msg.jsonrpc, '2.0', line);
    assert.ok('id' in msg || 'method' in msg, line);
  }
}

test('initialize answers each supported version with itself and an unknown one with 2025-11-25', async (t) => {
  const cases: [string, string][] = [
    ['2025-11-25', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['2024-11-05', '2024-11-05'],
    ['2026-07-28', '2025-11-25'],
    ['1999-01-01', '2025-11-25'],
  ];
  const p = spawnMcp();
  t.after(() => p.stop());
  for (const [asked, answered] of cases) {
    const res = await p.client.request('initialize', { protocolVersion: asked, capabilities: {} });
    assert.equal(res.result.protocolVersion, answered, `asked ${asked}`);
    assert.deepEqual(res.result.capabilities, { tools: {}, experimental: { 'claude/channel': {} } });
    assert.equal(res.result.serverInfo.name, 'papo');
    assert.match(
      res.result.instructions,
      /not instructions? from your user|not an instruction from your user/,
    );
  }
  assertOnlyJsonRpc(p.client.lines, p.client.partial);
});

test('the instructions name the member and the room when the profile exists', async (t) => {
  const p = spawnMcp();
  t.after(() => p.stop());
  const { mkdirSync } = await import('node:fs');
  const dir = join(p.home, 'profiles', 'default');
  mkdirSync(dir, { recursive: true });
  // profile.json as papo new writes it (the room id is derived from the secret: docs/protocol.md).
  const secret = new Uint8Array(32).fill(7);
  writeFileSync(
    join(dir, 'profile.json'),
    JSON.stringify({ name: 'voce', secret: Buffer.from(secret).toString('hex'), createdAt: 1 }),
  );
  const res = await p.client.initialize();
  const roomId = deriveRoomKeys(secret).roomId;
  assert.match(res.result.instructions, new RegExp(`you are "voce", a member of room ${roomId}`));
});

test('errors: server/discover, unknown method, malformed line, bad requests; the server keeps serving', async (t) => {
  const p = spawnMcp();
  t.after(() => p.stop());
  const c = p.client;
  await c.initialize();

  const discover = await c.request('server/discover', {});
  assert.equal(discover.error.code, -32601);
  const unknown = await c.request('resources/list', {});
  assert.equal(unknown.error.code, -32601);

  c.writeLine('{"jsonrpc":"2.0","id":');
  const parse = await c.waitFor((m) => m.error?.code === -32700);
  assert.equal(parse.id, null);

  c.writeLine('[{"jsonrpc":"2.0","id":50,"method":"ping"}]');
  await c.waitFor((m) => m.error?.code === -32600 && m.id === null);

  c.writeLine('{"jsonrpc":"1.0","id":51,"method":"ping"}');
  assert.equal((await c.response(51)).error.code, -32600);

  c.writeLine('{"jsonrpc":"2.0","id":52,"method":7}');
  assert.equal((await c.response(52)).error.code, -32600);

  const noParamsInit = await c.request('initialize');
  assert.equal(noParamsInit.error.code, -32602);
  const noParamsCall = await c.request('tools/call');
  assert.equal(noParamsCall.error.code, -32602);
  const arrayParams = await c.request('tools/call', ['status']);
  assert.equal(arrayParams.error.code, -32602);
  const unknownTool = await c.request('tools/call', { name: 'delete_everything', arguments: {} });
  assert.equal(unknownTool.error.code, -32602);

  // A notification with an unknown method gets no answer; a request after it still does.
  c.notify('notifications/whatever', {});
  const ping = await c.request('ping');
  assert.deepEqual(ping.result, {});
  const list = await c.request('tools/list');
  assert.equal(list.result.tools.length, 5);
  // Only requests were answered: one line per request line, nothing for notifications.
  assert.equal(c.messages.filter((m) => m.id === undefined).length, 0);
  assertOnlyJsonRpc(c.lines, c.partial);
});

test('tools/list matches the reviewed snapshot', async (t) => {
  const p = spawnMcp();
  t.after(() => p.stop());
  await p.client.initialize();
  const list = await p.client.request('tools/list', {});
  const actual = `${JSON.stringify(list.result, null, 2)}\n`;
  if (process.env.UPDATE_SNAPSHOTS === '1' || !existsSync(SNAPSHOT)) {
    writeFileSync(SNAPSHOT, actual);
    if (process.env.UPDATE_SNAPSHOTS !== '1')
      assert.fail(`snapshot written to ${SNAPSHOT}; review and commit it`);
  }
  // Compared as JSON: the formatter may lay the file out differently.
  assert.deepEqual(list.result, JSON.parse(readFileSync(SNAPSHOT, 'utf8')));
});

test('every tool answers an unconfigured profile with the error that says what to do', async (t) => {
  const p = spawnMcp({ args: [], env: { PAPO_PROFILE: 'work' } });
  t.after(() => p.stop());
  await p.client.initialize();
  const calls: [string, object][] = [
    ['send', { message: 'hello' }],
    ['wait', { timeout_seconds: 1 }],
    ['inbox', {}],
    ['history', {}],
    ['status', {}],
  ];
  for (const [name, args] of calls) {
    const result = await p.client.call(name, args);
    assert.equal(result.isError, true, name);
    assert.match(resultText(result), /profile 'work' is not configured/, name);
    assert.match(
      resultText(result),
      /papo join --name <their name>` \(to join one: it asks for the invite\)/,
      name,
    );
  }
  assertOnlyJsonRpc(p.client.lines, p.client.partial);
});

test('argument errors come back as tool errors, before the member is needed', async (t) => {
  const p = spawnMcp();
  t.after(() => p.stop());
  await p.client.initialize();
  const cases: [string, object, RegExp][] = [
    ['send', {}, /`message` argument is required/],
    ['send', { message: ' \n ' }, /message is empty/],
    ['send', { message: 'x'.repeat(48 * 1024 + 1) }, /limit is 48 KiB/],
    ['send', { message: 'hi', to: 'no spaces allowed' }, /not a valid member name/],
    ['send', { message: 'hi', reply_to: 'zz' }, /not a msg_id/],
    ['send', { body: 'hi' }, /no argument `body`/],
    ['wait', { timeout_seconds: 0 }, /from 1 to 1200/],
    ['wait', { timeout_seconds: 1201 }, /from 1 to 1200/],
    ['wait', { timeout_seconds: 2.5 }, /from 1 to 1200/],
    ['history', { limit: 201 }, /from 1 to 200/],
    ['inbox', { all: true }, /takes no arguments/],
  ];
  for (const [name, args, re] of cases) {
    const result = await p.client.call(name, args);
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args).slice(0, 40)}`);
    assert.match(resultText(result), re);
  }
});

test('exits promptly on SIGTERM and on SIGINT, with status 0', async (t) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const p = spawnMcp();
    t.after(() => p.stop());
    await p.client.initialize();
    // A wait in flight must not hold the process.
    p.client.send('tools/call', { name: 'wait', arguments: { timeout_seconds: 60 } });
    await p.client.request('ping');
    p.child.kill(signal);
    const exit = await p.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, signal);
  }
});

test('exits on stdin EOF with status 0 and nothing after the last JSON-RPC line', async (t) => {
  const p = spawnMcp();
  t.after(() => p.stop());
  await p.client.initialize();
  p.child.stdin.end();
  const exit = await p.exited;
  assert.deepEqual(exit, { code: 0, signal: null });
  assertOnlyJsonRpc(p.client.lines, p.client.partial);
});

test('PAPO_LOG diagnostics go to stderr, never to stdout', async (t) => {
  const p = spawnMcp({ env: { PAPO_LOG: 'debug' } });
  t.after(() => p.stop());
  await p.client.initialize();
  await p.client.call('status');
  await p.client.request('ping');
  assert.match(p.stderr(), /initialize: client asked 2025-11-25/);
  assertOnlyJsonRpc(p.client.lines, p.client.partial);
});
