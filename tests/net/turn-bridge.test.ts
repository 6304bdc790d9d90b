// TURN over TCP and TLS through the local bridge (ADR 0054), against a real coturn: a UDP TURN
// client (the same role libjuice plays) allocates through the bridge, so every request and answer
// crosses the stream framing. The NAT lab's "UDP blocked" scenario covers it with real members.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import {
  longTermKey,
  STUN_ATTR,
  STUN_METHOD,
  stunAttr,
  stunMessage,
} from '../../src/client/net/stun-message.js';
import { probeTurn } from '../../src/client/net/turn-probe.js';
import { MAX_BUFFERED_BYTES, TurnBridges, TurnTcpBridge } from '../../src/client/net/turn-tcp-bridge.js';
import { certificatePin } from '../../src/signal-protocol.js';
import { mintTurnCredential } from '../../src/signal-server/turn-credentials.js';
import { StunClient } from '../nat/stun.js';
import { startCoturn } from '../support/coturn.js';
import { tempDir } from '../support/files.js';
import { localhostCert } from '../support/tls-cert.js';

const SECRET = 'test-secret-not-a-real-one';

async function coturn(t: { after: (fn: () => unknown) => void }) {
  const dir = tempDir(t, 'papo-bridge-');
  // A certificate for "localhost", trusted by the bridge through its `ca` (tests only).
  const tls = localhostCert(dir);
  const server = await startCoturn({
    secret: SECRET,
    relayIp: '127.0.0.1',
    tls,
  });
  t.after(() => server.close());
  const spki = new X509Certificate(readFileSync(tls.cert)).publicKey.export({ type: 'spki', format: 'der' });
  return {
    port: server.port,
    tlsPort: server.tlsPort as number,
    ca: readFileSync(tls.cert, 'utf8'),
    pin: certificatePin(spki),
  };
}

async function allocateThrough(bridge: TurnTcpBridge) {
  const { username, credential } = mintTurnCredential(SECRET, 'bridge', 300);
  // What TurnBridges.rewrite does for a link: the bridge serves a source that signs with it.
  bridge.remember(username, credential);
  const client = await StunClient.udp({ address: '127.0.0.1', port: bridge.localPort });
  try {
    return await client.allocate(username, credential);
  } finally {
    client.close();
  }
}

test('an Allocate through the bridge over TCP and over TLS succeeds at a real coturn', {
  timeout: 30_000,
}, async (t) => {
  const server = await coturn(t);
  const tcp = await TurnTcpBridge.open({ host: '127.0.0.1', port: server.port, tls: false });
  t.after(() => tcp.close());
  assert.equal((await allocateThrough(tcp)).relayed.address, '127.0.0.1');

  const tls = await TurnTcpBridge.open({ host: 'localhost', port: server.tlsPort, tls: true, ca: server.ca });
  t.after(() => tls.close());
  assert.equal((await allocateThrough(tls)).relayed.address, '127.0.0.1');

  // Without trusting the certificate, TLS refuses: nothing is relayed through an unverified server.
  const untrusted = await TurnTcpBridge.open({ host: 'localhost', port: server.tlsPort, tls: true });
  t.after(() => untrusted.close());
  await assert.rejects(allocateThrough(untrusted));
});

test("TURN over TLS to the signal server's host: its key's pin stands for a CA, another key is refused (ADR 0089)", {
  timeout: 30_000,
}, async (t) => {
  const server = await coturn(t);
  // No `ca`: the self-signed certificate is trusted by its key's pin alone.
  const pinned = await TurnTcpBridge.open({
    host: 'localhost',
    port: server.tlsPort,
    tls: true,
    pin: server.pin,
  });
  t.after(() => pinned.close());
  assert.equal((await allocateThrough(pinned)).relayed.address, '127.0.0.1');

  const otherPin = certificatePin(Buffer.from('another key'));
  const lines: string[] = [];
  const refused = await TurnTcpBridge.open(
    { host: 'localhost', port: server.tlsPort, tls: true, pin: otherPin },
    (line) => lines.push(line),
  );
  t.after(() => refused.close());
  await assert.rejects(allocateThrough(refused));
  assert.ok(
    lines.some((l) => /key is not the one the room's invite pins/.test(l)),
    lines.join('\n'),
  );

  // TurnBridges give the pin to TURN over TLS at the pinned host only.
  const hosts: string[] = [];
  const bridges = new TurnBridges(undefined, undefined, (host) => {
    hosts.push(host);
    return host === 'localhost' ? server.pin : undefined;
  });
  t.after(() => bridges.close());
  await bridges.prepare([{ urls: `turns:localhost:${server.tlsPort}`, username: 'u', credential: 'c' }]);
  assert.deepEqual(hosts, ['localhost']);

  // papo doctor's probe: the same rule.
  const { username, credential } = mintTurnCredential(SECRET, 'probe', 300);
  const url = `turns:localhost:${server.tlsPort}`;
  assert.equal((await probeTurn(url, username, credential, 5000, server.pin)).outcome, 'allocated');
  const wrong = await probeTurn(url, username, credential, 5000, otherPin);
  assert.equal(wrong.outcome, 'untrusted');
  assert.match(wrong.detail ?? '', /PIN_MISMATCH: .*key is not the one/);
  assert.equal((await probeTurn(url, username, credential, 5000)).outcome, 'untrusted');
});

test('the ICE config given to links: TURN URLs point at the release relay (UDP) and bridges (TCP, TLS), STUN asked of the TURN server, the rest unchanged', async (t) => {
  const bridges = new TurnBridges();
  t.after(() => bridges.close());
  const servers = [
    { urls: 'stun:stun.example.org:3478' },
    {
      urls: [
        'turn:turn.example.org:3478?transport=udp',
        'turn:turn.example.org:3478?transport=tcp',
        'turns:turn.example.org:443',
      ],
      username: '1733000000:ab12cd34ef',
      credential: 'c2VjcmV0',
    },
  ];
  const config = { servers, policy: 'relay' as const, source: 'env' as const };
  // Before the bridges are open, their URLs are left out (libjuice would ignore them anyway).
  assert.deepEqual(bridges.rewrite(config).servers[1]?.urls, ['turn:turn.example.org:3478?transport=udp']);
  await bridges.prepare(servers);
  const rewritten = bridges.rewrite(config);
  assert.equal(rewritten.policy, 'relay');
  assert.deepEqual(rewritten.servers[0]?.urls, ['stun:stun.example.org:3478']);
  const urls = rewritten.servers[1]?.urls as string[];
  // Every TURN URL now points at a local port of papo's: the release relay (UDP, ADR 0058) and
  // the two bridges (ADR 0054), three different ports.
  for (const url of urls) assert.match(url, /^turn:127\.0\.0\.1:\d+\?transport=udp$/);
  assert.equal(new Set(urls).size, 3);
  assert.equal(rewritten.servers[1]?.username, '1733000000:ab12cd34ef');
  // The TURN server is also asked for the server-reflexive address, over plain STUN.
  assert.deepEqual(rewritten.servers[2], { urls: ['stun:turn.example.org:3478'] });
  assert.equal(rewritten.servers.length, 3);
});

test('a TURN server that stops reading: the bridge drops datagrams past MAX_BUFFERED_BYTES a stream instead of buffering them (ADR 0096)', async (t) => {
  // A TCP server on loopback that accepts and never reads: the stream's kernel buffers fill, then
  // whatever the bridge writes waits in its own memory.
  const stalled = new Set<Socket>();
  const server = createServer((socket) => {
    socket.pause();
    stalled.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    for (const s of stalled) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const bridge = await TurnTcpBridge.open({
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    tls: false,
  });
  t.after(() => bridge.close());
  bridge.remember('test-user', 'test-only-password');
  const agent = createSocket('udp4');
  t.after(() => agent.close());
  await new Promise<void>((resolve) => agent.bind(0, '127.0.0.1', resolve));
  const send = (datagram: Buffer) =>
    new Promise<void>((resolve) => agent.send(datagram, bridge.localPort, '127.0.0.1', () => resolve()));

  // A signed Allocate opens the agent's stream (the gate checks the signature, not the server).
  await send(
    stunMessage(
      STUN_METHOD.allocate,
      [
        stunAttr(STUN_ATTR.transport, Buffer.from([17, 0, 0, 0])),
        stunAttr(STUN_ATTR.username, Buffer.from('test-user')),
        stunAttr(STUN_ATTR.realm, Buffer.from('papo')),
        stunAttr(STUN_ATTR.nonce, Buffer.from('made-up-nonce')),
      ],
      longTermKey('test-user', 'papo', 'test-only-password'),
    ),
  );
  // Then 60 MB of ChannelData, far more than the kernel's buffers on loopback hold; each one is
  // let through to the bridge (in this process) before the next.
  const frame = Buffer.alloc(60_004);
  frame.writeUInt16BE(0x4000, 0);
  frame.writeUInt16BE(60_000, 2);
  let most = 0;
  for (let i = 0; i < 1000; i++) {
    await send(frame);
    await new Promise((r) => setImmediate(r));
    most = Math.max(most, bridge.queued());
  }
  t.diagnostic(`at most ${most} bytes waited in the bridge`);
  assert.ok(most <= MAX_BUFFERED_BYTES, `${most} bytes waited in the bridge`);
  // The bound was reached: what was dropped was dropped for it.
  assert.ok(most > MAX_BUFFERED_BYTES - 2 * frame.length, `only ${most} bytes waited`);
});
