// TURN over TLS between two members (ADR 0054): a company network that lets out only TLS reaches
// its TURN server as `turns:`. Two relay-only `papo mcp` agents whose one ICE server is a real
// coturn's TLS listener link through it and talk; the certificate is trusted the way a person's
// machine trusts a company CA, through NODE_EXTRA_CA_CERTS. Without that trust nothing is relayed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { startCoturn } from '../support/coturn.js';
import { tempDir } from '../support/files.js';
import { callText, makeRoom, startAgent, statusUntil } from '../support/room.js';
import { localhostCert } from '../support/tls-cert.js';
import { waitFor } from '../support/wait.js';

const hasCoturn = spawnSync('turnserver', ['--version'], { encoding: 'utf8' }).error === undefined;

test('two relay-only agents whose only TURN is turns: (TLS) link through it and talk; an untrusted certificate relays nothing', {
  timeout: 180_000,
  skip: hasCoturn ? false : 'turnserver (coturn) is not installed',
}, async (t) => {
  const tls = localhostCert(tempDir(t, 'papo-turns-'));
  const user = { name: 'corp-papo', password: 'test-only-password' };
  const turn = await startCoturn({ user, tls });
  t.after(() => turn.close());
  const iceServers = JSON.stringify([
    { urls: `turns:localhost:${turn.tlsPort}`, username: user.name, credential: user.password },
  ]);
  const relayEnv = { PAPO_ICE_POLICY: 'relay', PAPO_ICE_SERVERS: iceServers };

  // Not trusted: the bridge refuses the server's certificate (and says so in the diagnostics), so
  // no relay and no link.
  const room = await makeRoom(t);
  const untrusted = startAgent(room, room.members.voce, { ...relayEnv, PAPO_LOG: 'debug' });
  const other = startAgent(room, room.members.colega, relayEnv);
  await Promise.all([untrusted.client.initialize(), other.client.initialize()]);
  const refused = new RegExp(`TURN bridge to localhost:${turn.tlsPort}: .*(self[- ]signed|certificate)`, 'i');
  await waitFor('the bridge refusing the certificate', () => refused.test(untrusted.stderr()), {
    timeoutMs: 60_000,
    intervalMs: 100,
  });
  await assert.rejects(
    statusUntil(untrusted.client, /colega \(agent\): online/, 5_000),
    'no link through a TURN server whose certificate is not trusted',
  );
  assert.equal(turn.relaySockets(), 0);
  await Promise.all([untrusted.close(), other.close()]);

  // Trusted, as a company CA is: linked through the relay, and a message delivered.
  const trusted = { ...relayEnv, NODE_EXTRA_CA_CERTS: tls.cert };
  const a = startAgent(room, room.members.voce, trusted);
  const b = startAgent(room, room.members.colega, trusted);
  await Promise.all([a.client.initialize(), b.client.initialize()]);
  await statusUntil(a.client, /colega \(agent\): online.*link: relay/, 90_000);
  await statusUntil(b.client, /voce \(agent\): online.*link: relay/, 30_000);
  assert.ok(turn.relaySockets() >= 1, 'the link holds relay sockets on coturn');
  const sent = await callText(a.client, 'send', { message: 'Over TURN over TLS.' });
  assert.match(sent, /^Delivered to colega/);
  const read = await callText(b.client, 'inbox');
  assert.match(read, /Over TURN over TLS\./);
});
