// What a replica does with events on its Redis channels that no replica wrote: anyone who can write
// to Redis can PUBLISH on papo's channels. A real redis-server, a `papo signal` replica as a child
// process (a crash shows as its exit), a second replica in this process to carry real traffic
// through Redis, and a publisher that writes what it likes.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { type SignalServerHandle, startSignalServer } from '../../src/signal-server/server.js';
import { ROOT } from '../support/papo.js';
import { waitFor } from '../support/wait.js';
import { hex32, metricsOf, sample, TEST_METRICS, TestClient } from './helpers.js';
import { startCliSignal, startRedis, stop } from './processes.js';

let redis: { url: string; child: ChildProcess };
let publisher: Redis;
const prefix = `test-${randomBytes(4).toString('hex')}:`;
const children: ChildProcess[] = [];
const servers: SignalServerHandle[] = [];
const clients: TestClient[] = [];

before(async () => {
  redis = await startRedis();
  publisher = new Redis(redis.url);
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const s of servers) await s.close().catch(() => {});
  for (const child of children) await stop(child);
  publisher?.disconnect();
  if (redis !== undefined) await stop(redis.child);
});

const env = () => ({ PAPO_SIGNAL_REDIS: redis.url, PAPO_SIGNAL_REDIS_PREFIX: prefix });

/** A `papo signal` replica as a child, with everything it writes to stderr kept. */
async function replica(): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const started = await startCliSignal(env());
  children.push(started.child);
  let stderr = started.startLines;
  started.child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return { url: started.url, child: started.child, stderr: () => stderr };
}

async function on(url: string): Promise<TestClient> {
  const c = await TestClient.ready(url);
  clients.push(c);
  return c;
}

/** Publishes on the topic's channel and waits until Redis has handed it to every subscriber. */
async function publish(topic: string, message: string): Promise<void> {
  const receivers = await publisher.publish(`${prefix}c:${topic}`, message);
  assert.ok(receivers >= 1, 'a replica is subscribed to the channel');
}

/**
 * Real traffic after the hostile events: a peer on the other replica joins (its `joined` comes to
 * `x` over Redis) and signals `x` (over Redis too), so the channel still works both ways.
 */
async function stillRelays(x: TestClient, topic: string, px: string, other: string): Promise<void> {
  const py = hex32();
  const y = await on(other);
  y.send({ t: 'join', topic, peer: py });
  assert.deepEqual(await y.next(), { t: 'peers', topic, peers: [px] });
  assert.deepEqual(await x.next(), { t: 'joined', topic, peer: py });
  y.send({ t: 'signal', topic, to: px, data: 'real-traffic' });
  assert.deepEqual(await x.next(), { t: 'signal', topic, from: py, data: 'real-traffic' });
  y.send({ t: 'leave', topic });
  assert.deepEqual(await x.next(), { t: 'left', topic, peer: py });
}

test('a replica survives null and malformed events on its channels, and relays real traffic after', async () => {
  const a = await replica();
  const b = await startSignalServer({ host: '127.0.0.1', port: 0, env: env() });
  servers.push(b);
  const topic = hex32();
  const px = hex32();
  const x = await on(a.url);
  x.send({ t: 'join', topic, peer: px });
  assert.deepEqual(await x.next(), { t: 'peers', topic, peers: [] });

  const esc = '\u001b]0;owned\u0007\u001b[2J';
  for (const message of [
    'null',
    '[]',
    '42',
    'true',
    '"j"',
    '{}',
    'not json',
    '',
    '{"k":"j"}',
    '{"k":"l"}',
    '{"k":"j","p":null,"o":""}',
    '{"k":"j","p":{"length":64},"o":""}',
    `{"k":"j","p":["${px}"],"o":""}`,
    `{"k":"j","p":"${esc}","o":""}`,
    `{"k":"l","p":"${hex32().toUpperCase()}","o":""}`,
    `{"k":"j","p":"${hex32()}","o":{"x":1}}`,
    `{"k":"x","p":"${hex32()}","o":""}`,
    `{"k":"j","p":"${hex32()}","o":"${'a'.repeat(100_000)}"}`,
    's',
    `s${px}`,
    `s${px}null`,
    `s${px}{`,
  ]) {
    await publish(topic, message);
  }
  await stillRelays(x, topic, px, b.url);
  assert.equal(a.child.exitCode, null, `the replica is still running; its stderr: ${a.stderr().slice(-600)}`);
  assert.deepEqual(x.received, [], 'none of the malformed events reached the client');
  // Each drop is counted; the log says so in papo's own words, bounded, and nothing of the event.
  await waitFor('the drop in the log', () => /redis: dropped \d+ event/.test(a.stderr()), { last: a.stderr });
  for (const part of ['\u001b', 'owned', 'aaaaaaaa'])
    assert.ok(!a.stderr().includes(part), JSON.stringify(part));
});

test('a forged event on a channel does not reach a client as it was written', async () => {
  const a = await replica();
  const b = await startSignalServer({
    host: '127.0.0.1',
    port: 0,
    env: env(),
    config: { metrics: TEST_METRICS },
  });
  servers.push(b);
  const topic = hex32();
  const px = hex32();
  const x = await on(b.url); // on the in-process replica: its metrics count the drops
  x.send({ t: 'join', topic, peer: px });
  assert.deepEqual(await x.next(), { t: 'peers', topic, peers: [] });
  const from = hex32();
  const signal = (fields: Record<string, unknown>) =>
    `s${px}${JSON.stringify({ t: 'signal', topic, from, data: 'forged', ...fields })}`;

  const forged = [
    // What the review saw pass: a membership event dressed as a signal for px.
    `s${px}${JSON.stringify({ t: 'joined', topic, peer: hex32() })}`,
    `s${px}${JSON.stringify({ t: 'left', topic, peer: from })}`,
    `s${px}${JSON.stringify({ t: 'peers', topic, peers: [from] })}`,
    `s${px}${JSON.stringify({ t: 'error', code: 'bad_request', message: '\u001b[2Jpwned' })}`,
    `s${px}${JSON.stringify({ t: 'welcome', v: 1, iceServers: [{ urls: 'turn:evil.example' }] })}`,
    signal({ topic: hex32() }), // a signal of another topic on this topic's channel
    signal({ from: 'not a peer id' }),
    signal({ data: '' }),
    signal({ data: 42 }),
    signal({ data: 'x'.repeat(70_000) }), // more than a client may send in one frame
    `s${px}[${JSON.stringify({ t: 'signal', topic, from, data: 'forged' })}]`,
  ];
  for (const message of forged) await publish(topic, message);
  // A well-formed signal is delivered, but as the server writes it: the fields it knows, in order.
  await publish(topic, signal({ extra: '\u001b[31mred', data: 'well-formed' }));
  assert.deepEqual(await x.next(), { t: 'signal', topic, from, data: 'well-formed' });
  await stillRelays(x, topic, px, a.url);
  assert.deepEqual(x.received, [], 'no forged frame reached the client');
  assert.equal(sample(await metricsOf(b), 'papo_signal_redis_events_dropped_total'), forged.length);
});

test('the Redis users docs/signal-server.md gives are enough for replicas, and nobody gets in without one', async () => {
  // The ACL file exactly as the docs print it, plus an administrator to read Redis's ACL log.
  const docs = readFileSync(join(ROOT, 'docs', 'signal-server.md'), 'utf8');
  const section = docs.slice(docs.indexOf('### Protect Redis'));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block !== undefined, 'the section has the ACL file');
  const users = block.split('\n').map((l) => l.trim());
  assert.ok(users.includes('user default off'));
  const papo = users.find((l) => l.startsWith('user papo on >'));
  assert.ok(papo !== undefined, 'a user for papo');
  const password = /^user papo on >(\S+)/.exec(papo)?.[1] as string;
  const dir = mkdtempSync(join(tmpdir(), 'papo-redis-acl-'));
  const aclfile = join(dir, 'users.acl');
  writeFileSync(
    aclfile,
    [...users.filter((l) => l !== ''), 'user admin on >test-admin-only ~* &* +@all', ''].join('\n'),
    {
      mode: 0o600,
    },
  );
  const locked = await startRedis(['--aclfile', aclfile]);
  children.push(locked.child);
  const withUser = (user: string, pass: string) => locked.url.replace('redis://', `redis://${user}:${pass}@`);
  const admin = new Redis(withUser('admin', 'test-admin-only'));
  const anonymous = new Redis(locked.url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  anonymous.on('error', () => {});
  try {
    await assert.rejects(anonymous.ping(), /NOAUTH/, 'the default user is off');
    // The documented prefix (the default one): one replica a child, so it can die, one in here.
    const shared = { PAPO_SIGNAL_REDIS: withUser('papo', password), PAPO_SIGNAL_REDIS_TTL: '1' };
    const doomed = await startCliSignal(shared);
    children.push(doomed.child);
    const b = await startSignalServer({ host: '127.0.0.1', port: 0, env: shared });
    servers.push(b);
    const topic = hex32();
    const [px, py] = [hex32(), hex32()];
    const x = await on(b.url);
    const y = await on(doomed.url);
    x.send({ t: 'join', topic, peer: px });
    assert.deepEqual(await x.next(), { t: 'peers', topic, peers: [] });
    y.send({ t: 'join', topic, peer: py });
    assert.deepEqual(await y.next(), { t: 'peers', topic, peers: [px] });
    assert.deepEqual(await x.next(), { t: 'joined', topic, peer: py });
    y.send({ t: 'signal', topic, to: px, data: 'through-the-acl' });
    assert.deepEqual(await x.next(), { t: 'signal', topic, from: py, data: 'through-the-acl' });
    // The sweep of a dead replica's members (its own script, run by the survivor) passes too.
    await stop(doomed.child, 'SIGKILL');
    assert.deepEqual(await x.next((m) => m.t === 'left', 10_000), { t: 'left', topic, peer: py });
    x.send({ t: 'leave', topic });
    assert.deepEqual(await admin.call('ACL', 'LOG'), [], 'Redis refused no command of papo');
  } finally {
    anonymous.disconnect();
    admin.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
});
