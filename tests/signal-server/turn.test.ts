// The TURN REST credentials the signal server mints are accepted by a real coturn configured with
// the same secret, and refused once expired or signed with another secret.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSignalServer } from '../../src/signal-server/server.js';
import { mintTurnCredential } from '../../src/signal-server/turn-credentials.js';
import { StunClient, StunError } from '../nat/stun.js';
import { type Coturn, startCoturn } from '../support/coturn.js';
import { hex32, metricsOf, sample, TestClient } from './helpers.js';

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
