// Signal protocol v1 against a real server on loopback, with real `ws` clients.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { SIGNAL_MAX_MESSAGE_BYTES } from '../../src/signal-protocol.js';
import type { SignalConfig } from '../../src/signal-server/config.js';
import { type SignalServerHandle, startSignalServer } from '../../src/signal-server/server.js';
import { getText, hex32, metricsOf, sample, TEST_METRICS, TestClient } from './helpers.js';

const open: { close(): Promise<void> }[] = [];
after(async () => {
  for (const o of open.reverse()) await o.close().catch(() => {});
});

async function server(config: Partial<SignalConfig> = {}): Promise<SignalServerHandle> {
  const s = await startSignalServer({
    host: '127.0.0.1',
    port: 0,
    env: {},
    config: { metrics: TEST_METRICS, ...config },
  });
  open.push(s);
  return s;
}

async function client(s: SignalServerHandle, options: Parameters<typeof TestClient.ready>[1] = {}) {
  const c = await TestClient.ready(s.url, options);
  open.push(c);
  return c;
}

describe('membership and forwarding', () => {
  test('join, peers, joined, left, and a signal reaches only the addressed peer', async () => {
    const s = await server();
    const topic = hex32();
    const [pa, pb, pc] = [hex32(), hex32(), hex32()];
    const a = await client(s);
    const b = await client(s);
    const c = await client(s);
    const outsider = await client(s);

    a.send({ t: 'join', topic, peer: pa });
    assert.deepEqual(await a.next(), { t: 'peers', topic, peers: [] });
    b.send({ t: 'join', topic, peer: pb });
    assert.deepEqual(await b.next(), { t: 'peers', topic, peers: [pa] });
    assert.deepEqual(await a.next(), { t: 'joined', topic, peer: pb });
    c.send({ t: 'join', topic, peer: pc });
    const peersC = await c.next();
    assert.equal(peersC.t, 'peers');
    assert.deepEqual(peersC.t === 'peers' ? [...peersC.peers].sort() : [], [pa, pb].sort());
    assert.deepEqual(await a.next(), { t: 'joined', topic, peer: pc });
    assert.deepEqual(await b.next(), { t: 'joined', topic, peer: pc });
    const otherTopic = hex32();
    outsider.send({ t: 'join', topic: otherTopic, peer: hex32() });
    assert.deepEqual(await outsider.next(), { t: 'peers', topic: otherTopic, peers: [] });

    // A blob with characters JSON must escape comes out byte for byte as it went in.
    const blob = 'c2VhbGVk+/=="\\\u2028';
    a.send({ t: 'signal', topic, to: pb, data: blob });
    assert.deepEqual(await b.next(), { t: 'signal', topic, from: pa, data: blob });
    // The server handles a socket's messages in order: once c has the second signal, the first
    // would already have arrived had it gone to c.
    a.send({ t: 'signal', topic, to: pc, data: 'second' });
    assert.deepEqual(await c.next(), { t: 'signal', topic, from: pa, data: 'second' });
    assert.equal(c.received.length, 0);
    assert.equal(a.received.length, 0);
    assert.equal(outsider.received.length, 0);

    b.send({ t: 'leave', topic });
    assert.deepEqual(await a.next(), { t: 'left', topic, peer: pb });
    assert.deepEqual(await c.next(), { t: 'left', topic, peer: pb });
    await c.close();
    assert.deepEqual(await a.next(), { t: 'left', topic, peer: pc });
    b.send({ t: 'signal', topic, to: pa, data: 'x' });
    assert.equal((await b.next()).t, 'error'); // b left the topic
    assert.equal(outsider.received.length, 0);
  });

  test('the newest socket with a peer id wins the membership', async () => {
    const s = await server();
    const topic = hex32();
    const [p, q] = [hex32(), hex32()];
    const old = await client(s);
    const other = await client(s);
    old.send({ t: 'join', topic, peer: p });
    await old.next();
    other.send({ t: 'join', topic, peer: q });
    await other.next();
    await old.next((m) => m.t === 'joined');

    const fresh = await client(s);
    fresh.send({ t: 'join', topic, peer: p });
    assert.deepEqual(await fresh.next(), { t: 'peers', topic, peers: [q] });
    assert.deepEqual(await old.next(), { t: 'left', topic, peer: p });
    assert.deepEqual(await other.next(), { t: 'joined', topic, peer: p });

    other.send({ t: 'signal', topic, to: p, data: 'to-fresh' });
    assert.deepEqual(await fresh.next(), { t: 'signal', topic, from: q, data: 'to-fresh' });
    await old.close();
    other.send({ t: 'signal', topic, to: p, data: 'still-there' });
    assert.equal((await fresh.next()).t, 'signal');
    assert.equal(other.received.length, 0, 'the old socket closing must not announce p as left');
  });
});

describe('refusals', () => {
  test('every error code comes from real bad input, and the server keeps serving', async () => {
    const s = await server({ maxTopicsPerSocket: 2, maxPeersPerTopic: 2 });
    const c = await client(s);
    const topic = hex32();
    const me = hex32();

    c.send('{"t":"join",');
    assert.match((await c.error('bad_request')).t, /error/);
    c.send({ t: 'hello' });
    await c.error('bad_request');
    c.send({ t: 'join', topic: 'ABC', peer: me });
    await c.error('bad_request');
    c.send({ t: 'join', topic: topic.toUpperCase(), peer: me });
    await c.error('bad_request');
    c.send({ t: 'join', topic, peer: 'not-hex' });
    await c.error('bad_request');
    c.send({ t: 'signal', topic, to: hex32(), data: 'x' });
    await c.error('bad_request'); // not joined yet
    c.ws.send(Buffer.from('binary'));
    await c.error('bad_request');

    const big = JSON.stringify({
      t: 'signal',
      topic,
      to: hex32(),
      data: 'A'.repeat(SIGNAL_MAX_MESSAGE_BYTES),
    });
    c.send(big);
    await c.error('too_large');

    c.send({ t: 'join', topic, peer: me });
    await c.next((m) => m.t === 'peers');
    c.send({ t: 'signal', topic, to: hex32(), data: 'x' });
    await c.error('unknown_peer');
    c.send({ t: 'join', topic, peer: hex32() });
    await c.error('bad_request'); // another peer id on the same topic from one socket

    c.send({ t: 'join', topic: hex32(), peer: me });
    await c.next((m) => m.t === 'peers');
    c.send({ t: 'join', topic: hex32(), peer: me });
    await c.error('topic_limit');

    const second = await client(s);
    second.send({ t: 'join', topic, peer: hex32() });
    await second.next((m) => m.t === 'peers');
    const third = await client(s);
    third.send({ t: 'join', topic, peer: hex32() });
    await third.error('room_full');

    // Still serving, this socket and a fresh one.
    c.send({ t: 'leave', topic });
    await second.next((m) => m.t === 'left');
    third.send({ t: 'join', topic, peer: hex32() });
    assert.equal((await third.next()).t, 'peers');
    const fresh = await client(s);
    fresh.send({ t: 'join', topic: hex32(), peer: hex32() });
    assert.equal((await fresh.next()).t, 'peers');
    assert.equal(c.ws.readyState, WebSocket.OPEN);

    const metrics = await metricsOf(s);
    for (const code of ['bad_request', 'too_large', 'unknown_peer', 'topic_limit', 'room_full']) {
      assert.ok(sample(metrics, `papo_signal_messages_refused_total{code="${code}"}`) >= 1, code);
    }
    assert.equal(sample(metrics, 'papo_signal_messages_refused_total{code="bad_request"}'), 8);
  });

  test('a frame past the hard limit closes the socket with 1009', async () => {
    const s = await server();
    const c = await client(s);
    c.send('x'.repeat(300 * 1024));
    assert.equal((await c.closed).code, 1009);
    const other = await client(s);
    other.send({ t: 'join', topic: hex32(), peer: hex32() });
    assert.equal((await other.next()).t, 'peers');
  });

  test('a flood is refused with rate_limited, then closed if it goes on', async () => {
    const s = await server({ messagesPerSecond: 5, messageBurst: 10 });
    const c = await client(s);
    const bystander = await client(s);
    const topic = hex32();
    for (let i = 0; i < 40; i++) c.send({ t: 'leave', topic });
    await c.error('rate_limited');
    assert.equal((await c.closed).code, 1008);
    bystander.send({ t: 'join', topic, peer: hex32() });
    assert.equal((await bystander.next()).t, 'peers');
    const metrics = await metricsOf(s);
    assert.ok(sample(metrics, 'papo_signal_messages_refused_total{code="rate_limited"}') > 10);
  });

  test('answers come in the order the messages were sent, and the close of a flood does not cut those owed before it', async () => {
    // Refusals decided on arrival (a binary frame, the rate) wait behind the hub steps of the
    // messages before them (ADR 0083), all read from one TCP write.
    const s = await server({ messagesPerSecond: 1, messageBurst: 3 });
    const c = await client(s);
    const topic = hex32();
    const socket = (c.ws as unknown as { _socket: import('node:net').Socket })._socket;
    socket.cork();
    c.send({ t: 'join', topic, peer: hex32() });
    c.send({ t: 'signal', topic, to: hex32(), data: 'to nobody' });
    c.ws.send(Buffer.from('binary'), { binary: true });
    for (let i = 0; i < 10; i++) c.send({ t: 'leave', topic: hex32() });
    socket.uncork();
    assert.equal((await c.next()).t, 'peers');
    assert.equal(((await c.next()) as { code: string }).code, 'unknown_peer');
    assert.equal(((await c.next()) as { code: string }).code, 'bad_request');
    assert.equal(((await c.next()) as { code: string }).code, 'rate_limited');
    assert.equal((await c.closed).code, 1008);
    assert.deepEqual(c.received, []);
  });

  test('with PAPO_SIGNAL_TOKEN, a missing or wrong token is unauthorized', async () => {
    const s = await startSignalServer({ port: 0, env: { PAPO_SIGNAL_TOKEN: 'test-token-not-secret' } });
    open.push(s);
    for (const options of [{}, { headers: { Authorization: 'Bearer wrong' } }, { query: '?token=wrong' }]) {
      const c = await TestClient.open(s.url, options);
      open.push(c);
      await c.error('unauthorized');
      assert.equal((await c.closed).code, 1008);
    }
    for (const options of [
      { headers: { Authorization: 'Bearer test-token-not-secret' } },
      { query: '?token=test-token-not-secret' },
    ]) {
      const c = await client(s, options);
      c.send({ t: 'join', topic: hex32(), peer: hex32() });
      assert.equal((await c.next()).t, 'peers');
    }
  });

  test('connections per address and in total are capped', async () => {
    const s = await server({ maxConnectionsPerIp: 2 });
    await client(s);
    await client(s);
    const over = await TestClient.open(s.url);
    open.push(over);
    await over.error('rate_limited');
    assert.equal((await over.closed).code, 1013);

    const total = await server({ maxConnections: 1 });
    await client(total);
    const refused = await TestClient.open(total.url);
    open.push(refused);
    await refused.error('rate_limited');
    assert.equal((await refused.closed).code, 1013);
  });

  test('X-Forwarded-For counts only when the proxy is trusted', async () => {
    const trusting = await server({ maxConnectionsPerIp: 1, trustProxyHops: 1 });
    await client(trusting, { headers: { 'X-Forwarded-For': '203.0.113.1' } });
    await client(trusting, { headers: { 'X-Forwarded-For': '203.0.113.2' } });

    const plain = await server({ maxConnectionsPerIp: 1 });
    await client(plain, { headers: { 'X-Forwarded-For': '203.0.113.1' } });
    const refused = await TestClient.open(plain.url, { headers: { 'X-Forwarded-For': '203.0.113.2' } });
    open.push(refused);
    await refused.error('rate_limited');
  });
});

describe('liveness, HTTP and metrics', () => {
  test('a socket that stops answering pings is closed; one that answers stays', async () => {
    const s = await server({ pingIntervalMs: 100 });
    const silent = await client(s, { autoPong: false });
    const alive = await client(s);
    await silent.closed;
    assert.equal(alive.ws.readyState, WebSocket.OPEN);
    alive.send({ t: 'join', topic: hex32(), peer: hex32() });
    assert.equal((await alive.next()).t, 'peers');
    const metrics = await metricsOf(s);
    assert.equal(sample(metrics, 'papo_signal_ping_timeouts_total'), 1);
    assert.equal(sample(metrics, 'papo_signal_connections'), 1);
  });

  test('GET /, /healthz and a plain GET of the socket path; /metrics only on the metrics listener', async () => {
    const s = await server();
    assert.match((await getText(s.url, '/')).body, /papo signal server/);
    assert.deepEqual(await getText(s.url, '/healthz'), { status: 200, body: 'ok\n' });
    assert.equal((await getText(s.url, '/v1/ws')).status, 426);
    assert.equal((await getText(s.url, '/nope')).status, 404);
    // The signal port is the public one: no /metrics there without a metrics token (ADR 0075).
    assert.equal((await getText(s.url, '/metrics')).status, 404);
    assert.notEqual(s.metricsUrl, undefined);
    assert.notEqual(new URL(s.metricsUrl as string).port, String(s.port));
    const res = await fetch(`${s.metricsUrl}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(await res.text(), /^papo_signal_connections 0$/m);
    assert.deepEqual(await getText(s.metricsUrl as string, '/healthz'), { status: 200, body: 'ok\n' });
  });

  test('with PAPO_SIGNAL_METRICS_TOKEN, /metrics needs the token on both listeners', async () => {
    // Every form of the header is tests/signal-server/routes.test.ts's; here, that both listeners
    // of a real server carry the rule.
    const token = 'metrics-token-for-tests';
    const s = await server({ metricsToken: token });
    for (const base of [s.url.replace(/^ws/, 'http'), s.metricsUrl as string]) {
      const res = await fetch(`${base}/metrics`, { headers: { Authorization: 'Bearer wrong' } });
      assert.equal(res.status, 401, base);
      assert.doesNotMatch(await res.text(), /papo_signal_|metrics-token/);
      const ok = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /^papo_signal_connections 0$/m);
    }
  });

  test('without a metrics listener (an embedder, or PAPO_SIGNAL_METRICS=off) /metrics is nowhere', async () => {
    for (const config of [{ metrics: undefined }, { metrics: 'off' as const }]) {
      const s = await startSignalServer({ host: '127.0.0.1', port: 0, env: {}, config });
      open.push(s);
      assert.equal(s.metricsUrl, undefined);
      assert.equal((await getText(s.url, '/metrics')).status, 404);
    }
  });

  test('/metrics counts move as clients work', async () => {
    const s = await server();
    const before = await metricsOf(s);
    assert.equal(sample(before, 'papo_signal_connections'), 0);
    assert.equal(sample(before, 'papo_signal_messages_forwarded_total'), 0);
    const topic = hex32();
    const [pa, pb] = [hex32(), hex32()];
    const a = await client(s);
    const b = await client(s);
    a.send({ t: 'join', topic, peer: pa });
    await a.next();
    b.send({ t: 'join', topic, peer: pb });
    await b.next();
    a.send({ t: 'signal', topic, to: pb, data: 'x' });
    await b.next((m) => m.t === 'signal');
    a.send('nonsense');
    await a.error('bad_request');
    const m = await metricsOf(s);
    assert.equal(sample(m, 'papo_signal_connections'), 2);
    assert.equal(sample(m, 'papo_signal_connections_accepted_total'), 2);
    assert.equal(sample(m, 'papo_signal_topics'), 1);
    assert.equal(sample(m, 'papo_signal_peers'), 2);
    assert.equal(sample(m, 'papo_signal_messages_received_total'), 4);
    assert.equal(sample(m, 'papo_signal_messages_forwarded_total'), 1);
    assert.equal(sample(m, 'papo_signal_messages_refused_total{code="bad_request"}'), 1);
    assert.ok(sample(m, 'papo_signal_bytes_received_total') > 0);
    assert.ok(sample(m, 'papo_signal_bytes_sent_total') > sample(before, 'papo_signal_bytes_sent_total'));
  });

  test('the welcome carries STUN and TURN REST credentials when configured', async () => {
    const secret = 'fixture-secret';
    const s = await startSignalServer({
      port: 0,
      env: {
        PAPO_TURN_SECRET: secret,
        PAPO_TURN_URLS: 'turn:turn.example.test:3478?transport=udp, turns:turn.example.test:5349',
        PAPO_STUN_URLS: 'stun:stun.example.test:3478',
        PAPO_TURN_TTL: '600',
      },
    });
    open.push(s);
    const peer = hex32();
    const c = await TestClient.open(s.url, { query: `?peer=${peer}` });
    open.push(c);
    const welcome = await c.next();
    assert.equal(welcome.t, 'welcome');
    if (welcome.t !== 'welcome') return;
    assert.equal(welcome.v, 1);
    assert.deepEqual(welcome.iceServers[0], { urls: ['stun:stun.example.test:3478'] });
    const turn = welcome.iceServers[1];
    assert.ok(turn?.username !== undefined && turn.credential !== undefined);
    assert.deepEqual(turn.urls, [
      'turn:turn.example.test:3478?transport=udp',
      'turns:turn.example.test:5349',
    ]);
    const [expiry, tag] = turn.username.split(':');
    // The member's short id, bound by the server to its address (ADR 0114).
    assert.match(tag ?? '', new RegExp(`^${peer.slice(0, 10)}\\.[0-9a-f]{6}$`));
    // The TTL (600 s), its expiry rounded up to a step of 150 s (one identity per member: ADR 0058).
    const ttl = Number(expiry) - Date.now() / 1000;
    assert.ok(ttl > 590 && ttl <= 750, `ttl ${ttl}`);
    assert.equal(Number(expiry) % 150, 0);
    assert.equal(turn.credential, createHmac('sha1', secret).update(turn.username).digest('base64'));

    const plain = await server();
    const p = await TestClient.open(plain.url);
    open.push(p);
    assert.deepEqual(await p.next(), { t: 'welcome', v: 1, iceServers: [] });
  });
});

describe('startSignalServer', () => {
  test('a taken port rejects with EADDRINUSE, the first server keeps working, close says 1001', async () => {
    const first = await server();
    await assert.rejects(startSignalServer({ host: '127.0.0.1', port: first.port, env: {} }), {
      code: 'EADDRINUSE',
    });
    const c = await client(first);
    c.send({ t: 'join', topic: hex32(), peer: hex32() });
    assert.equal((await c.next()).t, 'peers');
    await first.close();
    assert.equal((await c.closed).code, 1001);
    // The port is free again: an embedded server can take it over.
    const next = await startSignalServer({ host: '127.0.0.1', port: first.port, env: {} });
    open.push(next);
    assert.equal(next.port, first.port);
  });

  test('a bad setting is a RangeError', async () => {
    await assert.rejects(startSignalServer({ port: 0, env: { PAPO_SIGNAL_RATE: 'fast' } }), RangeError);
    await assert.rejects(startSignalServer({ port: 0, env: { PAPO_SIGNAL_REDIS: 'http://x' } }), RangeError);
  });
});
