// The TURN REST credentials the signal server mints are accepted by a real coturn configured with
// the same secret, and refused once expired or signed with another secret.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { SignalClient } from '../../src/client/net/signal-client.js';
import type { IceServer, ServerMessage } from '../../src/signal-protocol.js';
import { startSignalServer } from '../../src/signal-server/server.js';
import { mintTurnCredential } from '../../src/signal-server/turn-credentials.js';
import { StunClient, StunError } from '../nat/stun.js';
import { type Coturn, startCoturn } from '../support/coturn.js';
import { hex32, metricsOf, sample, TestClient } from './helpers.js';
import { startCliSignal, stop } from './processes.js';

const SECRET = 'fixture-turn-secret';
let coturn: Coturn;
let port: number;

before(async () => {
  // Relays to loopback stay refused, as in an operator's configuration.
  coturn = await startCoturn({ secret: SECRET, relayIp: '127.0.0.1', loopbackPeers: false });
  port = coturn.port;
});

after(() => coturn?.close());

test('coturn accepts the credentials of a welcome message and refuses expired ones', async () => {
  const server = await startSignalServer({
    port: 0,
    env: {
      PAPO_TURN_SECRET: SECRET,
      PAPO_TURN_URLS: `turn:127.0.0.1:${port}?transport=udp`,
      PAPO_TURN_TTL: '300',
      PAPO_SIGNAL_METRICS: '127.0.0.1:0',
    },
  });
  try {
    const c = await TestClient.open(server.url, { query: `?peer=${hex32()}` });
    try {
      const welcome = await c.next();
      assert.equal(welcome.t, 'welcome');
      const turn = welcome.t === 'welcome' ? welcome.iceServers[0] : undefined;
      assert.ok(turn?.username !== undefined && turn.credential !== undefined);

      // An Allocate (first answered 401 with realm and nonce, then signed) with each credential,
      // each from a fresh client socket so each is a new allocation.
      const allocate = async (username: string, credential: string) => {
        const client = await StunClient.udp({ address: '127.0.0.1', port });
        try {
          return await client.allocate(username, credential);
        } finally {
          client.close();
        }
      };
      const ok = await allocate(turn.username, turn.credential);
      assert.equal(ok.relayed.address, '127.0.0.1');

      const expired = mintTurnCredential(SECRET, 'expired', 60, Date.now() - 3600_000);
      await assert.rejects(
        allocate(expired.username, expired.credential),
        (e) => e instanceof StunError && e.code === 401,
      );

      const forged = mintTurnCredential('another-secret', 'forged', 300);
      await assert.rejects(
        allocate(forged.username, forged.credential),
        (e) => e instanceof StunError && e.code === 401,
      );
      assert.equal(sample(await metricsOf(server), 'papo_signal_connections'), 1);
    } finally {
      await c.close();
    }
  } finally {
    await server.close();
  }
});

// ---- Who gets credentials (ADR 0074) -------------------------------------------------------------

/** An Allocate from a fresh client socket (a new allocation each time). */
async function allocate(username: string, credential: string) {
  const client = await StunClient.udp({ address: '127.0.0.1', port });
  try {
    return await client.allocate(username, credential);
  } finally {
    client.close();
  }
}

function turnOf(m: ServerMessage | undefined): IceServer | undefined {
  return m?.t === 'welcome' ? m.iceServers.find((s) => String(s.urls).startsWith('turn:')) : undefined;
}

test('with a signal token, no welcome (so no TURN) without it, coturn refuses made-up credentials, and the per-address limit holds with it', async () => {
  const token = 'signal-token-for-tests';
  const server = await startSignalServer({
    port: 0,
    env: {
      PAPO_SIGNAL_TOKEN: token,
      PAPO_TURN_SECRET: SECRET,
      PAPO_TURN_URLS: `turn:127.0.0.1:${port}?transport=udp`,
      PAPO_STUN_URLS: `stun:127.0.0.1:${port}`,
      // Below the number of identities asked for below: it applies with a token too (ADR 0114).
      PAPO_TURN_CREDENTIALS_PER_ADDRESS: '2',
    },
  });
  try {
    for (const options of [
      { query: `?peer=${hex32()}` },
      { query: `?peer=${hex32()}&token=wrong` },
      { query: `?peer=${hex32()}`, headers: { Authorization: 'Bearer wrong' } },
    ]) {
      const c = await TestClient.open(server.url, options);
      assert.equal((await c.closed).code, 1008);
      assert.deepEqual(
        c.received.map((m) => m.t),
        ['error'],
      );
      assert.doesNotMatch(JSON.stringify(c.received), /username|credential|turn:/);
    }
    // Credentials a stranger can make up: any tag, a plausible expiry, a guessed secret or none.
    const expiry = Math.floor(Date.now() / 1000) + 3600;
    for (const [username, credential] of [
      [`${expiry}:${hex32().slice(0, 10)}`, 'bm90LWEtcmVhbC1obWFjLXZhbHVl'],
      [`${expiry}:stranger`, mintTurnCredential('guessed-secret', 'stranger', 3600).credential],
      ['papo', 'papo'],
    ] as const) {
      await assert.rejects(
        allocate(username, credential),
        (e) => e instanceof StunError && e.code === 401,
        username,
      );
    }
    // With the token: a welcome with TURN for two identities, and coturn grants an allocation with
    // it; a third identity from the same address gets STUN only (one token is every room's, and one
    // holder must not take every relay of the server: ADR 0114).
    const usernames = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const c = await TestClient.open(server.url, {
        query: `?peer=${hex32()}`,
        headers: { Authorization: `Bearer ${token}` },
      });
      try {
        const welcome = await c.next();
        assert.equal(welcome.t, 'welcome');
        assert.equal(welcome.t === 'welcome' ? welcome.notes : 'no', undefined);
        const turn = turnOf(welcome);
        assert.ok(turn?.username !== undefined && turn.credential !== undefined);
        usernames.add(turn.username);
        if (i === 0)
          assert.equal((await allocate(turn.username, turn.credential)).relayed.address, '127.0.0.1');
      } finally {
        await c.close();
      }
    }
    assert.equal(usernames.size, 2);
    const third = await TestClient.open(server.url, {
      query: `?peer=${hex32()}`,
      headers: { Authorization: `Bearer ${token}` },
    });
    try {
      const welcome = await third.next();
      assert.equal(welcome.t === 'welcome' ? welcome.notes?.join() : 'no', 'turn_limited');
      assert.equal(turnOf(welcome), undefined);
    } finally {
      await third.close();
    }
    assert.equal(server.metrics.refused.get('unauthorized'), 3);
  } finally {
    await server.close();
  }
});

test('without a token, TURN identities per client address are limited; a redial is the same identity', async () => {
  const server = await startSignalServer({
    port: 0,
    env: {
      PAPO_TURN_SECRET: SECRET,
      PAPO_TURN_URLS: `turn:127.0.0.1:${port}?transport=udp`,
      PAPO_STUN_URLS: `stun:127.0.0.1:${port}`,
      PAPO_TURN_CREDENTIALS_PER_ADDRESS: '3',
      PAPO_SIGNAL_TRUST_PROXY: '1',
      PAPO_SIGNAL_METRICS: '127.0.0.1:0',
    },
  });
  const welcome = async (peer: string, from = '203.0.113.7') => {
    const c = await TestClient.open(server.url, {
      query: `?peer=${peer}`,
      headers: { 'X-Forwarded-For': from },
    });
    try {
      const m = await c.next();
      assert.equal(m.t, 'welcome');
      return m.t === 'welcome' ? m : undefined;
    } finally {
      await c.close();
    }
  };
  try {
    const peers = [hex32(), hex32(), hex32()];
    const first = turnOf(await welcome(peers[0] as string));
    assert.ok(first?.username !== undefined && first.credential !== undefined);
    assert.equal((await allocate(first.username, first.credential)).relayed.address, '127.0.0.1');
    for (const p of peers.slice(1)) assert.ok(turnOf(await welcome(p)), 'within the limit');

    // A fourth identity from the same address: STUN only, and the note.
    const limited = await welcome(hex32());
    assert.deepEqual(limited?.iceServers, [{ urls: [`stun:127.0.0.1:${port}`] }]);
    assert.deepEqual(limited?.notes, ['turn_limited']);
    // A member that redials keeps its identity (the same credential) and is not limited.
    assert.deepEqual(turnOf(await welcome(peers[0] as string)), first);
    // Connections without ?peer= are a new identity each: limited too.
    const c = await TestClient.open(server.url, { headers: { 'X-Forwarded-For': '203.0.113.7' } });
    const anonymous = await c.next();
    await c.close();
    assert.equal(turnOf(anonymous), undefined);

    // Another address has its own share; an IPv6 client is counted per /64.
    assert.ok(turnOf(await welcome(hex32(), '198.51.100.1')));
    for (const host of ['1', '2', '3']) assert.ok(turnOf(await welcome(hex32(), `2001:db8:1:2::${host}`)));
    assert.deepEqual((await welcome(hex32(), '2001:db8:1:2:ffff::9'))?.notes, ['turn_limited']);
    assert.ok(turnOf(await welcome(hex32(), '2001:db8:1:3::1')), 'the next /64');

    const text = await metricsOf(server);
    assert.equal(sample(text, 'papo_signal_turn_credentials_total{outcome="limited"}'), 3);
    assert.equal(sample(text, 'papo_signal_turn_credentials_total{outcome="issued"}'), 9);
  } finally {
    await server.close();
  }
});

test('a member given a welcome without TURN (turn_limited) still joins, and hears the note', async () => {
  const server = await startSignalServer({
    port: 0,
    env: {
      PAPO_TURN_SECRET: SECRET,
      PAPO_TURN_URLS: `turn:127.0.0.1:${port}?transport=udp`,
      PAPO_TURN_CREDENTIALS_PER_ADDRESS: '1',
    },
  });
  const topic = hex32();
  const clients: SignalClient[] = [];
  try {
    const heard: [IceServer[], string[]][] = [];
    for (let i = 0; i < 2; i++) {
      const client = new SignalClient({
        url: server.url,
        topic,
        localId: hex32(),
        signalKey: randomBytes(32),
      });
      clients.push(client);
      client.on('welcome', (servers, notes) => heard.push([servers, notes]));
      const joined = new Promise<string[]>((resolve) => client.once('peers', resolve));
      client.start();
      await joined;
    }
    assert.equal(heard.length, 2);
    assert.equal(heard[0]?.[0].length, 1);
    assert.deepEqual(heard[0]?.[1], []);
    assert.deepEqual(heard[1], [[], ['turn_limited']]);
    assert.deepEqual(clients[1]?.iceServers, []);
  } finally {
    for (const c of clients) await c.close();
    await server.close();
  }
});

test('papo signal says at start who gets TURN credentials', async () => {
  const base = { PAPO_TURN_SECRET: SECRET, PAPO_TURN_URLS: `turn:127.0.0.1:${port}` };
  for (const [env, expected] of [
    [base, /turn credentials: on \(to anyone: no token; 20 TURN identities per address per 600 s\)/],
    [
      { ...base, PAPO_SIGNAL_TOKEN: 'signal-token-for-tests' },
      /turn credentials: on \(to clients with the token; 20 TURN identities per address per 600 s\)/,
    ],
    [
      { ...base, PAPO_TURN_CREDENTIALS_PER_ADDRESS: '0' },
      /turn credentials: on \(to anyone: no token, no per-address limit\)/,
    ],
  ] as const) {
    const s = await startCliSignal(env);
    await stop(s.child);
    assert.match(s.startLines, expected);
  }
});
