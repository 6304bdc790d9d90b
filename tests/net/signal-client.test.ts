import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import { isPapoError } from '../../src/client/errors.js';
import { SignalClient, signalSocketUrl } from '../../src/client/net/signal-client.js';
import { sealSignal } from '../../src/client/net/signal-seal.js';
import { deriveRoomKeys, generateSecret } from '../../src/client/wire/room-crypto.js';
import { startSignalServer } from '../../src/signal-server/server.js';
import { waitFor } from '../support/wait.js';
import { nodeId, once } from './helpers.js';

test('signal URLs map to the v1 WebSocket endpoint', () => {
  assert.equal(signalSocketUrl('http://127.0.0.1:7451'), 'ws://127.0.0.1:7451/v1/ws');
  assert.equal(signalSocketUrl('https://signal.example.com'), 'wss://signal.example.com/v1/ws');
  assert.equal(signalSocketUrl('wss://h.example.com/papo/'), 'wss://h.example.com/papo/v1/ws');
  assert.equal(signalSocketUrl('ws://h.example.com/v1/ws'), 'ws://h.example.com/v1/ws');
  assert.equal(signalSocketUrl('ws://h.example.com?region=eu'), 'ws://h.example.com/v1/ws?region=eu');
  for (const bad of ['ftp://h.example.com', 'not a url']) {
    assert.throws(
      () => signalSocketUrl(bad),
      (err) => isPapoError(err, 'invalid_signal_url'),
    );
  }
});

// A hand-written server that speaks v1 badly on purpose: bad input cannot come from the real
// signal server, so this is the one place a stand-in is used (to inject failures).
test('bad server input is counted and ignored; a lost connection is redialled and re-joined', async (t) => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  t.after(() => {
    // ws leaves open connections alone on close(); end them so the server can stop at once.
    for (const ws of wss.clients) ws.terminate();
    return new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  await once(wss, 'listening');
  const port = (wss.address() as AddressInfo).port;
  const keys = deriveRoomKeys(generateSecret());
  const me = nodeId();
  const peer = nodeId();
  const joins: unknown[] = [];
  const auth: (string | undefined)[] = [];
  const paths: (string | undefined)[] = [];
  wss.on('connection', (ws, req) => {
    auth.push(req.headers.authorization);
    paths.push(req.url);
    ws.send(Buffer.from([1, 2, 3]), { binary: true });
    ws.send('not json');
    ws.send('{"t":"welcome","v":1,"iceServers":"nope"}');
    ws.send('{"t":"surprise"}');
    ws.send(JSON.stringify({ t: 'welcome', v: 1, iceServers: [{ urls: 'stun:stun.example.net' }] }));
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString());
      if (msg.t !== 'join') return;
      joins.push(msg);
      ws.send(JSON.stringify({ t: 'peers', topic: 'f'.repeat(64), peers: [peer] })); // other topic
      ws.send(JSON.stringify({ t: 'peers', topic: keys.topic, peers: [peer, 'NOT-AN-ID', 42, me] }));
      ws.send(JSON.stringify({ t: 'signal', topic: keys.topic, from: peer, data: '%%%' }));
      ws.send(JSON.stringify({ t: 'signal', topic: keys.topic, from: 'x', data: '' }));
      const blob = sealSignal(keys.signalKey, peer, me, { k: 'knock' });
      ws.send(JSON.stringify({ t: 'signal', topic: keys.topic, from: peer, data: blob }));
      ws.send(JSON.stringify({ t: 'signal', topic: keys.topic, from: peer, data: blob })); // replay
      ws.send(JSON.stringify({ t: 'error', code: 'rate_limited', message: 'slow down' }));
    });
  });

  const client = new SignalClient({
    url: `http://127.0.0.1:${port}`,
    topic: keys.topic,
    localId: me,
    signalKey: keys.signalKey,
    token: 'test-token',
    backoffMs: [50],
    random: () => 0, // the exact steps, no jitter
  });
  t.after(() => client.close());
  const signals: unknown[] = [];
  client.on('signal', (from, payload) => signals.push([from, payload]));
  const errors: unknown[] = [];
  client.on('server-error', (e) => errors.push(e));
  const peers = once<[string[]]>(client, 'peers');
  client.start();
  assert.deepEqual(await peers, [[peer]]);
  assert.equal(client.joined, true);
  assert.deepEqual(client.iceServers, [{ urls: ['stun:stun.example.net'] }]);
  await waitFor('the error message', () => errors.length === 1);
  assert.deepEqual(signals, [[peer, { k: 'knock' }]]);
  assert.deepEqual(errors, [{ code: 'rate_limited', message: 'slow down' }]);
  assert.deepEqual(auth, ['Bearer test-token']);
  assert.deepEqual(paths, [`/v1/ws?peer=${me}`]);
  assert.deepEqual(joins, [{ t: 'join', topic: keys.topic, peer: me }]);
  const dropped = client.dropped();
  // binary, not JSON, bad welcome, unknown type, peers of another topic, signal with a bad sender
  assert.equal(dropped.bad_server_message, 6);
  assert.equal(dropped.malformed, 1);
  assert.equal(dropped.replayed, 1);

  // The server drops us: the client says so, redials after the backoff and joins again.
  const lost = once<[{ reason: string; retryInMs: number | undefined }]>(client, 'disconnected');
  for (const ws of wss.clients) ws.terminate();
  assert.equal((await lost)[0].retryInMs, 50);
  assert.equal(client.joined, false);
  assert.deepEqual(client.peers(), []);
  await once(client, 'peers');
  assert.equal(joins.length, 2);
  assert.equal(client.send(peer, { k: 'knock' }), true);
});

test('a server that refuses the upgrade is redialled with growing delays', async (t) => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, verifyClient: () => false });
  t.after(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  await once(wss, 'listening');
  const port = (wss.address() as AddressInfo).port;
  const keys = deriveRoomKeys(generateSecret());
  const client = new SignalClient({
    url: `ws://127.0.0.1:${port}`,
    topic: keys.topic,
    localId: nodeId(),
    signalKey: keys.signalKey,
    backoffMs: [10, 20, 40],
    random: () => 0, // the exact steps, no jitter
  });
  t.after(() => client.close());
  const delays: (number | undefined)[] = [];
  const reasons: string[] = [];
  client.on('disconnected', ({ reason, retryInMs }) => {
    delays.push(retryInMs);
    reasons.push(reason);
  });
  client.start();
  await waitFor('four redials', () => delays.length >= 4);
  assert.deepEqual(delays.slice(0, 4), [10, 20, 40, 40]);
  assert.match(reasons[0] ?? '', /401/);
  assert.equal(client.send(nodeId(), {}), false);
});

test('pushed off the topic by a socket joining as our id, the client joins again with growing delays', async (t) => {
  const server = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
  t.after(() => server.close());
  const keys = deriveRoomKeys(generateSecret());
  const me = nodeId();
  const client = new SignalClient({
    url: server.url,
    topic: keys.topic,
    localId: me,
    signalKey: keys.signalKey,
    backoffMs: [50, 100, 200],
    random: () => 0, // the exact steps, no jitter
  });
  t.after(() => client.close());
  const displaced: number[] = [];
  client.on('displaced', ({ rejoinInMs }) => displaced.push(rejoinInMs));
  const first = once(client, 'peers');
  client.start();
  await first;

  const other = new WebSocket(`${server.url}/v1/ws`);
  t.after(() => other.terminate());
  const heard: { t: string; peer?: string }[] = [];
  other.on('message', (d) => heard.push(JSON.parse(String(d))));
  await once(other, 'open');
  const lefts = () => heard.filter((m) => m.t === 'left' && m.peer === me).length;
  for (let round = 1; round <= 3; round++) {
    other.send(JSON.stringify({ t: 'join', topic: keys.topic, peer: me }));
    await waitFor(`displaced ${round}`, () => displaced.length === round);
    assert.equal(client.joined, false);
    // The client joins again: the other socket is the older one now and hears `left` for the id.
    await waitFor(`joined again ${round}`, () => lefts() === round && client.joined);
  }
  assert.deepEqual(displaced, [50, 100, 200]);
});

test('dialNow: with the server back (a local one taken over), the client dials at once instead of after its backoff; once until a join is answered again', async (t) => {
  const keys = deriveRoomKeys(generateSecret());
  const client = (port: number) => {
    const c = new SignalClient({
      url: `ws://127.0.0.1:${port}`,
      topic: keys.topic,
      localId: nodeId(),
      signalKey: keys.signalKey,
      backoffMs: [600_000], // only dialNow can bring it back within the test
    });
    t.after(() => c.close());
    return c;
  };

  // A papo server that goes and comes back on its port, twice: each time dialNow joins at once.
  let server = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
  const { port } = server;
  t.after(() => server.close());
  const member = client(port);
  member.dialNow(); // before start: nothing waits to be redialled
  member.start();
  await waitFor('joined', () => member.joined);
  for (let round = 1; round <= 2; round++) {
    const lost = once<[{ retryInMs: number }]>(member, 'disconnected');
    await server.close();
    assert.ok((await lost)[0].retryInMs >= 600_000, 'the backoff alone would wait ten minutes');
    server = await startSignalServer({ host: '127.0.0.1', port, env: {} });
    member.dialNow();
    await waitFor(`joined again (round ${round})`, () => member.joined);
  }

  // A port that accepts but refuses papo: one early dial, then the backoff holds.
  let dials = 0;
  const verifyClient = () => {
    dials += 1;
    return false;
  };
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, verifyClient });
  t.after(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  await once(wss, 'listening');
  const refused = client((wss.address() as AddressInfo).port);
  const losses: number[] = [];
  refused.on('disconnected', () => losses.push(Date.now()));
  refused.start();
  await waitFor('the first dial refused', () => losses.length === 1);
  refused.dialNow();
  await waitFor('the early dial refused', () => losses.length === 2);
  refused.dialNow();
  refused.dialNow();
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(dials, 2, 'no dial past the one early dial until a join is answered');
  assert.equal(losses.length, 2);
});
