// Two replicas sharing one real redis-server: one in this process, one a `papo signal` child
// that the test kills with SIGKILL to see its peers leave the other replica within the TTL.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type SignalServerHandle, startSignalServer } from '../../src/signal-server/server.js';
import { getText, hex32, TestClient } from './helpers.js';
import { startCliSignal, startRedis, stop } from './processes.js';

let redis: { url: string; child: ChildProcess };
let replicaA: { url: string; child: ChildProcess };
let replicaB: SignalServerHandle;
const clients: TestClient[] = [];

const env = () => ({
  PAPO_SIGNAL_REDIS: redis.url,
  PAPO_SIGNAL_REDIS_TTL: '1',
  PAPO_SIGNAL_REDIS_PREFIX: `test-${randomBytes(4).toString('hex')}:`,
  PAPO_SIGNAL_MAX_PEERS_PER_TOPIC: '3',
});

before(async () => {
  redis = await startRedis();
  const shared = env();
  replicaA = await startCliSignal(shared);
  replicaB = await startSignalServer({ host: '127.0.0.1', port: 0, env: shared });
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await replicaB?.close().catch(() => {});
  if (replicaA !== undefined) await stop(replicaA.child);
  if (redis !== undefined) await stop(redis.child);
});

async function on(url: string): Promise<TestClient> {
  const c = await TestClient.ready(url);
  clients.push(c);
  return c;
}

test('peers on different replicas see each other and exchange signals', async () => {
  const topic = hex32();
  const [px, py, pz] = [hex32(), hex32(), hex32()];
  const x = await on(replicaA.url);
  const y = await on(replicaB.url);
  const z = await on(replicaB.url);
  x.send({ t: 'join', topic, peer: px });
  assert.deepEqual(await x.next(), { t: 'peers', topic, peers: [] });
  y.send({ t: 'join', topic, peer: py });
  assert.deepEqual(await y.next(), { t: 'peers', topic, peers: [px] });
  assert.deepEqual(await x.next(), { t: 'joined', topic, peer: py });
  z.send({ t: 'join', topic, peer: pz });
  await z.next((m) => m.t === 'peers');
  await x.next((m) => m.t === 'joined');
  await y.next((m) => m.t === 'joined');

  x.send({ t: 'signal', topic, to: py, data: 'offer-x-to-y' });
  assert.deepEqual(await y.next(), { t: 'signal', topic, from: px, data: 'offer-x-to-y' });
  y.send({ t: 'signal', topic, to: px, data: 'answer-y-to-x' });
  assert.deepEqual(await x.next(), { t: 'signal', topic, from: py, data: 'answer-y-to-x' });
  x.send({ t: 'signal', topic, to: pz, data: 'sentinel' });
  assert.deepEqual(await z.next(), { t: 'signal', topic, from: px, data: 'sentinel' });
  assert.equal(z.received.length, 0, 'z got only what was addressed to it');

  x.send({ t: 'signal', topic, to: hex32(), data: 'nobody' });
  await x.error('unknown_peer');
  const extra = await on(replicaA.url);
  extra.send({ t: 'join', topic, peer: hex32() });
  await extra.error('room_full'); // three peers across both replicas, limit 3

  y.send({ t: 'leave', topic });
  assert.deepEqual(await x.next(), { t: 'left', topic, peer: py });
  assert.deepEqual(await z.next(), { t: 'left', topic, peer: py });
  x.send({ t: 'leave', topic });
  assert.deepEqual(await z.next(), { t: 'left', topic, peer: px });
  z.send({ t: 'leave', topic });
});

test("a socket's messages sent in one write are taken in order, each once the hub has finished the one before", async () => {
  // With Redis every join and leave is a round trip: a signal read right after its join must wait
  // for it, or it would be refused as not joined (and the one after the leave would pass).
  const topic = hex32();
  const [px, py] = [hex32(), hex32()];
  const y = await on(replicaB.url);
  y.send({ t: 'join', topic, peer: py });
  await y.next((m) => m.t === 'peers');
  const x = await on(replicaB.url);
  x.sendTogether([
    { t: 'join', topic, peer: px },
    { t: 'signal', topic, to: py, data: 'after-the-join' },
    { t: 'leave', topic },
    { t: 'signal', topic, to: py, data: 'after-the-leave' },
  ]);
  assert.deepEqual(await x.next(), { t: 'peers', topic, peers: [py] });
  const refused = await x.next();
  assert.equal(refused.t, 'error');
  assert.equal((refused as { code: string }).code, 'bad_request');
  assert.match((refused as { message: string }).message, /join the topic before signalling/);
  // y hears of the join and the leave through Redis's pub/sub, the signal straight from this
  // replica: the signal's place between them is not fixed, only that it came, once.
  assert.deepEqual(await y.next((m) => m.t === 'signal'), {
    t: 'signal',
    topic,
    from: px,
    data: 'after-the-join',
  });
  assert.deepEqual(await y.next(), { t: 'joined', topic, peer: px });
  assert.deepEqual(await y.next(), { t: 'left', topic, peer: px });
  assert.deepEqual(y.received, []);
  y.send({ t: 'leave', topic });
});

test('a peer id that reconnects on another replica takes its membership over', async () => {
  const topic = hex32();
  const [p, q] = [hex32(), hex32()];
  const old = await on(replicaA.url);
  const watcher = await on(replicaA.url);
  old.send({ t: 'join', topic, peer: p });
  await old.next();
  watcher.send({ t: 'join', topic, peer: q });
  await watcher.next();
  const fresh = await on(replicaB.url);
  fresh.send({ t: 'join', topic, peer: p });
  assert.deepEqual(await fresh.next(), { t: 'peers', topic, peers: [q] });
  assert.deepEqual(await old.next((m) => m.t === 'left'), { t: 'left', topic, peer: p });
  assert.deepEqual(await watcher.next((m) => m.t === 'joined' && m.peer === p), {
    t: 'joined',
    topic,
    peer: p,
  });
  watcher.send({ t: 'signal', topic, to: p, data: 'for-the-new-socket' });
  assert.deepEqual(await fresh.next(), { t: 'signal', topic, from: q, data: 'for-the-new-socket' });
  watcher.send({ t: 'leave', topic });
  assert.deepEqual(await fresh.next(), { t: 'left', topic, peer: q });
  fresh.send({ t: 'leave', topic });
});

test('killing a replica removes its peers from the others within the TTL', async () => {
  const topic = hex32();
  const [pk, ps] = [hex32(), hex32()];
  const doomed = await on(replicaA.url);
  const survivor = await on(replicaB.url);
  doomed.send({ t: 'join', topic, peer: pk });
  await doomed.next();
  survivor.send({ t: 'join', topic, peer: ps });
  assert.deepEqual(await survivor.next(), { t: 'peers', topic, peers: [pk] });
  assert.equal((await getText(replicaB.url, '/healthz')).status, 200);

  await stop(replicaA.child, 'SIGKILL');
  // TTL 1 s plus one sweep (TTL/3): the wait below is only a bound for a failing test.
  assert.deepEqual(await survivor.next((m) => m.t === 'left', 10_000), { t: 'left', topic, peer: pk });
  survivor.send({ t: 'signal', topic, to: pk, data: 'ghost?' });
  await survivor.error('unknown_peer');
});

test('an unreachable Redis makes the start fail instead of serving half a cluster', async () => {
  await assert.rejects(
    startSignalServer({ port: 0, env: { PAPO_SIGNAL_REDIS: 'redis://127.0.0.1:1' } }),
    /cannot reach Redis/,
  );
});
