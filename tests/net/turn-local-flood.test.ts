// The loopback TURN helpers under a flood from another user of this machine (ADR 0096): 3,000 UDP
// sockets on 127.0.0.1 send Allocate requests, round after round, to the release relay (TURN over
// UDP, ADR 0058) and to the TCP bridge (TURN over TCP, ADR 0054) of a member, against a real
// coturn. The member keeps the allocation it had, makes new ones through each helper, and a
// relay-only node-datachannel link forms through the relay; the helpers' sockets to coturn stay
// under their caps all along (counted by the kernel, in /proc/net).
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { type TestContext, test } from 'node:test';
import { freePort } from '../../src/cli/free-port.js';
import {
  longTermKey,
  STUN_ATTR,
  STUN_METHOD,
  stunAttr,
  stunMessage,
} from '../../src/client/net/stun-message.js';
import { TurnBridges } from '../../src/client/net/turn-tcp-bridge.js';
import type { IceServer } from '../../src/signal-protocol.js';
import { StunClient } from '../nat/stun.js';
import { startCoturn } from '../support/coturn.js';
import { waitFor } from '../support/wait.js';
import type { FromFlood, ToFlood } from './fixtures/udp-flood.js';
import { endChild, FIXTURE_FORK, remoteAnswerer, startTurn, turnRestCredentials } from './helpers.js';

const FOREIGN_PORTS = 3000;
/**
 * The most sockets a helper may hold to the TURN server: its flows (ADR 0096) with room to
 * spare; before, the relay held 256 and refused the member, and the bridge opened 2,452.
 */
const CAP = 100;

/** Sockets of this machine talking to `port` on 127.0.0.1 that hold a descriptor, per protocol. */
function socketsTo(port: number): { udp: number; tcp: number } {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const rows = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f[2] === remote);
  // TCP: established, connecting, or closed by the server but not by us (TIME_WAIT and the
  // FIN states after our close hold no descriptor).
  const open = new Set(['01', '02', '08']);
  return {
    udp: rows('/proc/net/udp').length,
    tcp: rows('/proc/net/tcp').filter((f) => open.has(f[3] ?? '')).length,
  };
}

const FLOOD = new URL('./fixtures/udp-flood.js', import.meta.url);

/**
 * Another process that sends from 3,000 UDP sockets on 127.0.0.1 to each of `ports`, round after
 * round (fixtures/udp-flood.ts). Resolves once a whole round is sent: every foreign port has been
 * seen. `stop()` ends it and gives the most sockets to coturn seen while it ran (looked at every
 * 50 ms and at each round). The child is ended when the test ends, passed or not.
 */
async function flood(t: TestContext, ports: number[], turnPort: number) {
  const child = fork(FLOOD, [String(FOREIGN_PORTS), ...ports.map(String)], FIXTURE_FORK);
  const peak = { udp: 0, tcp: 0, rounds: 0 };
  const look = () => {
    const now = socketsTo(turnPort);
    peak.udp = Math.max(peak.udp, now.udp);
    peak.tcp = Math.max(peak.tcp, now.tcp);
  };
  const sampler = setInterval(look, 50);
  const stop = async () => {
    clearInterval(sampler);
    await endChild(child, { t: 'close' } satisfies ToFlood);
    look();
    return peak;
  };
  t.after(stop);
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m: FromFlood) => {
      peak.rounds = m.n;
      look();
      if (m.n === 1) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the flood ended (exit ${code})`)));
  });
  return { stop };
}

/** A member's helpers for one coturn: TURN over UDP (the relay) and over TCP (the bridge). */
async function helpersFor(t: TestContext, turnPort: number, secret: string) {
  const { username, credential } = turnRestCredentials(secret, 'flooded');
  const servers: IceServer[] = [
    {
      urls: [`turn:127.0.0.1:${turnPort}?transport=udp`, `turn:127.0.0.1:${turnPort}?transport=tcp`],
      username,
      credential,
    },
  ];
  const bridges = new TurnBridges();
  t.after(() => bridges.close());
  await bridges.prepare(servers);
  // What a link is given: every TURN URL pointed at a local helper, with what to sign with, in the
  // order of the URLs above (the relay, then the bridge), and the TURN server asked over STUN.
  const rewritten = bridges.rewrite({ servers, policy: 'relay', source: 'env' });
  const helpers = rewritten.servers.flatMap((s) =>
    (typeof s.urls === 'string' ? [s.urls] : s.urls).map((url) => {
      const port = Number(/^turn:127\.0\.0\.1:(\d+)\?transport=udp$/.exec(url)?.[1] ?? 0);
      return { url, port, username: s.username as string, credential: s.credential as string };
    }),
  );
  const [relay, bridge] = helpers.filter((h) => h.port > 0);
  assert.ok(relay !== undefined && bridge !== undefined, JSON.stringify(rewritten.servers));
  return { bridges, relay, bridge, stun: rewritten.servers.filter((s) => s.username === undefined) };
}

async function allocateAt(t: TestContext, helper: { port: number; username: string; credential: string }) {
  const client = await StunClient.udp({ address: '127.0.0.1', port: helper.port }, '127.0.0.1');
  t.after(() => client.close());
  const allocation = await client.allocate(helper.username, helper.credential);
  return { client, allocation };
}

test('3,000 foreign source ports at the release relay: the member keeps its allocation, makes a new one, and a relay-only link forms through it; the relay holds at most 100 sockets to coturn', {
  timeout: 180_000,
}, async (t) => {
  const turn = await startTurn();
  t.after(() => turn.close());
  const { relay, stun } = await helpersFor(t, turn.port, turn.secret);

  // An allocation the member made before the flood.
  const before = await allocateAt(t, relay);
  const { stop } = await flood(t, [relay.port], turn.port);

  // It still works: a CreatePermission on it is answered by coturn.
  await before.client.createPermission('127.0.0.2');
  // A new one is made.
  const after = await allocateAt(t, relay);
  assert.equal(after.allocation.relayed.address, '127.0.0.2');

  // A real ICE agent (libjuice, in node-datachannel) relays through it; the answering end runs in a
  // child process (ADR 0055), given the same helper.
  const ice = {
    servers: [{ urls: relay.url, username: relay.username, credential: relay.credential }, ...stun],
    policy: 'relay' as const,
    source: 'env' as const,
  };
  const remote = remoteAnswerer(ice);
  t.after(() => remote.close());
  const { offerer, remotePath, failures } = await remote.open(6);
  for (const f of failures) t.diagnostic(`attempt failed: ${f}`);
  assert.equal(offerer.path(), 'relay');
  assert.equal(remotePath, 'relay');
  const atRemote = remote.received();
  assert.equal(offerer.send(new Uint8Array([7, 8, 9])), true);
  assert.deepEqual([...(await atRemote)], [7, 8, 9]);

  const peak = await stop();
  t.diagnostic(
    `${peak.rounds} rounds of ${FOREIGN_PORTS} ports; at most ${peak.udp} relay sockets to coturn`,
  );
  assert.ok(peak.udp <= CAP, `the relay held ${peak.udp} sockets to coturn`);
});

test('3,000 foreign source ports at the TCP bridge, from before its first stream: the member allocates, keeps its allocation and makes another; the bridge holds at most 100 connections to coturn', {
  timeout: 180_000,
}, async (t) => {
  const turn = await startTurn();
  t.after(() => turn.close());
  const { bridge } = await helpersFor(t, turn.port, turn.secret);

  // The flood comes first: no stream of the member's is open yet.
  const { stop } = await flood(t, [bridge.port], turn.port);
  const first = await allocateAt(t, bridge);
  assert.equal(first.allocation.relayed.address, '127.0.0.2');
  await first.client.createPermission('127.0.0.2');
  const second = await allocateAt(t, bridge);
  assert.equal(second.allocation.relayed.address, '127.0.0.2');
  await first.client.createPermission('127.0.0.1');

  const peak = await stop();
  t.diagnostic(
    `${peak.rounds} rounds of ${FOREIGN_PORTS} ports; at most ${peak.tcp} bridge connections to coturn`,
  );
  assert.ok(peak.tcp <= CAP, `the bridge held ${peak.tcp} connections to coturn`);
});

test('helpers opened before their TURN server answers, then 3,000 foreign ports: once coturn is up, the member allocates through the relay and the bridge', {
  timeout: 180_000,
}, async (t) => {
  // The member points at a port where nothing listens yet: the helpers' own question for the
  // server's realm (ADR 0096) goes unanswered, so they do not know it when the flood comes.
  // The UDP port is held meanwhile (reading and answering nothing), so that none of the flood's
  // 3,000 ephemeral ports takes it before coturn does.
  const port = await freePort();
  const placeholder = createSocket('udp4');
  await new Promise<void>((resolve) => placeholder.bind(port, '127.0.0.1', resolve));
  let held = true;
  t.after(() => {
    if (held) placeholder.close();
  });
  const secret = `test-only-${randomBytes(6).toString('hex')}`;
  const { relay, bridge } = await helpersFor(t, port, secret);
  const { stop } = await flood(t, [relay.port, bridge.port], port);
  held = false;
  await new Promise<void>((resolve) => placeholder.close(resolve));
  const turn = await startCoturn({ secret, port });
  t.after(() => turn.close());

  // The member's first requests find a helper that still has to ask; its retransmissions, and new
  // attempts, get through once the helper knows the realm (StunClient gives up after 4 s, libjuice
  // later: an attempt may fail, the member's TURN may not).
  for (const helper of [relay, bridge]) {
    const failed: string[] = [];
    const made = await waitFor(
      `an allocation through the ${helper === relay ? 'relay' : 'bridge'}`,
      () => allocateAt(t, helper).catch((err: Error) => void failed.push(err.message)),
      { timeoutMs: 60_000 },
    );
    for (const f of failed) t.diagnostic(`an attempt failed: ${f}`);
    await made.client.createPermission('127.0.0.2');
  }
  const peak = await stop();
  t.diagnostic(`${peak.rounds} rounds; at most ${peak.udp} relay sockets, ${peak.tcp} bridge connections`);
  assert.ok(peak.udp <= CAP && peak.tcp <= CAP, JSON.stringify(peak));
});

test('a holder of the member’s credential signs from 100 ports at the TCP bridge: at most 64 streams, the member’s next allocation still made; idle streams are closed by the sweep', {
  timeout: 120_000,
}, async (t) => {
  const turn = await startTurn();
  t.after(() => turn.close());
  const { bridges, bridge } = await helpersFor(t, turn.port, turn.secret);

  // Signed Allocates with the member's own credential (coturn's realm is "papo"; the nonce is
  // made up, so coturn answers 438 and no allocation is made): each opens a stream.
  const key = longTermKey(bridge.username, 'papo', bridge.credential);
  const signed = () =>
    stunMessage(
      STUN_METHOD.allocate,
      [
        stunAttr(STUN_ATTR.transport, Buffer.from([17, 0, 0, 0])),
        stunAttr(STUN_ATTR.username, Buffer.from(bridge.username)),
        stunAttr(STUN_ATTR.realm, Buffer.from('papo')),
        stunAttr(STUN_ATTR.nonce, Buffer.from('made-up-nonce')),
      ],
      key,
    );
  const holders: UdpSocket[] = [];
  t.after(() => {
    for (const s of holders) s.close();
  });
  let answered = 0;
  for (let i = 0; i < 100; i++) {
    const socket = createSocket('udp4');
    socket.on('error', () => {});
    socket.once('message', () => {
      answered += 1;
    });
    holders.push(socket);
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    socket.send(signed(), bridge.port, '127.0.0.1');
  }
  // The newest 64 are answered at least (the ones pushed out may have been too).
  await waitFor('answers to the holders', () => answered >= 64);
  const held = socketsTo(turn.port).tcp;
  t.diagnostic(`${answered} holders answered; ${held} bridge connections to coturn`);
  assert.ok(held <= 64, `the bridge held ${held} connections to coturn`);

  // The member's next allocation pushes out the least recently active stream, not itself.
  const member = await allocateAt(t, bridge);
  await member.client.createPermission('127.0.0.2');
  assert.ok(socketsTo(turn.port).tcp <= 64);

  // Thirty seconds on (IDLE_FLOW_MS), every stream without an allocation has been idle: the sweep
  // closes them; the member's, whose allocation a link claims, stays.
  const relayed = `${member.allocation.relayed.address}:${member.allocation.relayed.port}`;
  await bridges.sweep(new Set([relayed]), 10_000, Date.now() + 30_000);
  await waitFor('idle streams closed', () => socketsTo(turn.port).tcp <= 1, {
    last: () => JSON.stringify(socketsTo(turn.port)),
  });
  await member.client.createPermission('127.0.0.1');
});
