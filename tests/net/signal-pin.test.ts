// The member checks the signal server by the pin its address carries (ADR 0089), against a real
// papo signal server with TLS from a self-signed certificate made here: no CA is given to the
// member (this process has no NODE_EXTRA_CA_CERTS), yet the right pin links; a man-in-the-middle
// with another key on the address is refused before a byte of the upgrade (and its token) reaches
// it; a server whose key changed is refused with the problem that says so.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { type TestContext, test } from 'node:test';
import { createServer as createTlsServer } from 'node:tls';
import { WebSocket } from 'ws';
import { SignalClient } from '../../src/client/net/signal-client.js';
import { probeSignal } from '../../src/client/net/signal-probe.js';
import { deriveRoomKeys, generateSecret } from '../../src/client/wire/room-crypto.js';
import { certificatePin } from '../../src/signal-protocol.js';
import { type SignalServerHandle, startSignalServer } from '../../src/signal-server/server.js';
import { tempDir } from '../support/files.js';
import { localhostCert } from '../support/tls-cert.js';
import { waitFor } from '../support/wait.js';
import { nodeId } from './helpers.js';

const TOKEN = 'pin-test-token-not-a-real-one';

/** A fresh self-signed pair in its own folder, and the pin of its key. */
function selfSigned(t: TestContext, label: string): { cert: string; key: string; pin: string } {
  const files = localhostCert(tempDir(t, `papo-pin-${label}-`));
  const spki = new X509Certificate(readFileSync(files.cert)).publicKey.export({
    type: 'spki',
    format: 'der',
  });
  return { ...files, pin: certificatePin(spki) };
}

async function tlsSignal(
  t: TestContext,
  pair: { cert: string; key: string },
  port = 0,
): Promise<SignalServerHandle> {
  const s = await startSignalServer({
    host: '127.0.0.1',
    port,
    env: {},
    config: { tls: { certFile: pair.cert, keyFile: pair.key }, token: TOKEN },
  });
  t.after(() => s.close());
  return s;
}

/** A TLS listener with its own key that records every byte a client sends after the handshake. */
async function impostor(t: TestContext, pair: { cert: string; key: string }) {
  const heard: Buffer[] = [];
  let dialled = 0;
  const server = createTlsServer({ cert: readFileSync(pair.cert), key: readFileSync(pair.key) }, (socket) => {
    socket.on('data', (d: Buffer) => heard.push(d));
    socket.on('error', () => {});
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    dialled += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  );
  return {
    port: (server.address() as AddressInfo).port,
    heard: () => Buffer.concat(heard).toString('latin1'),
    dialled: () => dialled,
  };
}

function client(
  t: TestContext,
  url: string,
  options: { pin?: string; token?: string; topicOf?: Uint8Array },
) {
  const keys = deriveRoomKeys(options.topicOf ?? generateSecret());
  const c = new SignalClient({
    url,
    topic: keys.topic,
    localId: nodeId(),
    signalKey: keys.signalKey,
    token: options.token,
    pin: options.pin,
    backoffMs: [100, 200],
  });
  t.after(() => c.close());
  return c;
}

test('with the pin, a self-signed server is trusted without a CA: two members meet and a blob goes through', async (t) => {
  const pair = selfSigned(t, 'server');
  const s = await tlsSignal(t, pair);
  const secret = generateSecret();
  // 127.0.0.1 is not in the certificate's names: with a pin, the key is what is checked.
  for (const host of ['localhost', '127.0.0.1']) {
    const url = `wss://${host}:${s.port}`;
    const a = client(t, url, { pin: pair.pin, token: TOKEN, topicOf: secret });
    const b = client(t, url, { pin: pair.pin, token: TOKEN, topicOf: secret });
    a.start();
    b.start();
    await waitFor(`both joined at ${host}`, () => a.joined && b.joined && a.hasPeer(b.localId));
    const got = new Promise<unknown>((resolve) => b.once('signal', (_from, payload) => resolve(payload)));
    assert.ok(a.send(b.localId, { k: 'hello', host }));
    assert.deepEqual(await got, { k: 'hello', host });
    await a.close();
    await b.close();
  }
  const probe = await probeSignal({
    url: `wss://localhost:${s.port}`,
    token: TOKEN,
    pin: pair.pin,
    timeoutMs: 3000,
  });
  assert.equal(probe.outcome, 'welcome');

  // Without the pin, the same server is not trusted (self-signed): the pin is what made it work.
  const plain = client(t, `wss://localhost:${s.port}`, { token: TOKEN });
  plain.start();
  await waitFor('the unpinned client to fail', () => plain.problem !== undefined);
  assert.equal(plain.problem?.code, 'unreachable');
  assert.match(plain.problem?.detail ?? '', /self[- ]signed/i);
});

test('a man-in-the-middle with another key is refused before the upgrade: the token never reaches it', async (t) => {
  const real = selfSigned(t, 'real');
  const other = selfSigned(t, 'mitm');
  const mitm = await impostor(t, other);
  const url = `wss://localhost:${mitm.port}`;
  const c = client(t, url, { pin: real.pin, token: TOKEN });
  let dials = 0;
  c.on('disconnected', () => {
    dials += 1;
  });
  c.start();
  await waitFor('the pin refusal', () => c.problem !== undefined);
  assert.equal(c.problem?.code, 'pin_mismatch');
  assert.match(
    c.problem?.detail ?? '',
    /key is not the one the room's invite pins: its key changed, or another machine answers/,
  );
  assert.ok(!(c.problem?.detail ?? '').includes(real.pin.slice(7)), 'the detail shows no pin');
  const probe = await probeSignal({ url, token: TOKEN, pin: real.pin, timeoutMs: 3000 });
  assert.equal(probe.outcome, 'pin_mismatch');
  // It redials (a server that gets its key back is used again), and each time stops at the key.
  await waitFor('three refused dials', () => dials >= 3);
  await c.close();
  assert.ok(mitm.dialled() >= 3);
  assert.equal(mitm.heard(), '', 'no byte after the TLS handshake: no upgrade, no token');

  // The impostor does hear what a client sends it: one that trusts any certificate (what checking
  // after the upgrade was written would amount to) hands it the upgrade and the token.
  const careless = new WebSocket(`${url}/v1/ws`, {
    rejectUnauthorized: false,
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  careless.on('error', () => {});
  await waitFor('the careless upgrade', () => mitm.heard().includes(TOKEN));
  careless.terminate();
  assert.match(mitm.heard(), /^GET \/v1\/ws/);
});

test('a server whose key changed is refused with the problem that says so; its old key back, it links again', async (t) => {
  const first = selfSigned(t, 'first');
  const s = await tlsSignal(t, first);
  const port = s.port;
  const c = client(t, `wss://localhost:${port}`, { pin: first.pin, token: TOKEN });
  c.start();
  await waitFor('joined', () => c.joined);
  await s.close();
  // The same address, a new key (the server's state folder lost, say).
  const renewed = selfSigned(t, 'renewed');
  const s2 = await tlsSignal(t, renewed, port);
  await waitFor('the refusal', () => c.problem?.code === 'pin_mismatch', { timeoutMs: 10_000 });
  assert.ok(!c.joined);
  await s2.close();
  await tlsSignal(t, first, port);
  await waitFor('joined again with the pinned key', () => c.joined, { timeoutMs: 10_000 });
  assert.equal(c.problem, undefined);
});

test('the token in a probe with the pin goes to the pinned server only', async (t) => {
  const pair = selfSigned(t, 'tok');
  const s = await tlsSignal(t, pair);
  const url = `wss://localhost:${s.port}`;
  assert.equal((await probeSignal({ url, token: TOKEN, pin: pair.pin, timeoutMs: 3000 })).outcome, 'welcome');
  assert.equal(
    (await probeSignal({ url, token: 'wrong', pin: pair.pin, timeoutMs: 3000 })).outcome,
    'unauthorized',
  );
  assert.equal((await probeSignal({ url, pin: pair.pin, timeoutMs: 3000 })).outcome, 'unauthorized');
});
