// The transport process forked ahead of its member (ADR 0091): the first start of a
// TransportProcess with the same env takes it (one with another env forks its own), it joins the
// room only once it has the init, and a restart after it forks anew; `papo mcp` without a profile
// forks none. Real processes, a real signal server on loopback.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { forkTransportEarly } from '../../src/client/transport/early-fork.js';
import { TransportProcess } from '../../src/client/transport/transport-process.js';
import { deriveRoomKeys, generateSecret } from '../../src/client/wire/room-crypto.js';
import { startSignalServer } from '../../src/signal-server/server.js';
import { spawnMcp } from '../support/mcp-process.js';
import { memberEnv } from '../support/papo.js';
import { childPids, webRtcChildren } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

test('the first start with the same env takes the early child; another env, and a restart, fork their own', {
  timeout: 60_000,
}, async (t) => {
  const srv = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
  t.after(() => srv.close());
  const keys = deriveRoomKeys(generateSecret());
  const init = (localId: string) => ({
    url: srv.url,
    topic: keys.topic,
    localId,
    signalKey: Buffer.from(keys.signalKey).toString('hex'),
    token: undefined,
    pin: undefined,
  });
  const env = { ...process.env, PAPO_ICE_SERVERS: '[]' };
  forkTransportEarly(env);
  const [early] = await waitFor('the early child (node-datachannel loaded)', () => {
    const pids = webRtcChildren(process.pid);
    return pids.length === 1 ? pids : undefined;
  });
  const other = new TransportProcess({
    init: init(randomBytes(32).toString('hex')),
    env: { ...env },
    log: () => {},
  });
  t.after(() => other.close());
  other.start();
  assert.notEqual(other.pid, early, 'another env forks its own');
  await waitFor('the other joined', () => other.signalState().joined);
  // The early child, alive and waiting, has joined nothing: the other is alone on the topic.
  assert.deepEqual(other.signalState().peers, []);

  const id = randomBytes(32).toString('hex');
  const ours = new TransportProcess({ init: init(id), env, log: () => {} });
  t.after(() => ours.close());
  ours.start();
  assert.equal(ours.pid, early, 'the same env takes the early child');
  await waitFor('it joins once it has the room', () => ours.signalState().joined);
  await waitFor('the other sees it', () => other.signalState().peers.includes(id));

  // Killed, it is started again as any transport: a new process.
  process.kill(early as number, 'SIGKILL');
  await waitFor('a new transport process', () => ours.pid !== undefined && ours.pid !== early, {
    timeoutMs: 20_000,
  });
  await waitFor('joined again', () => ours.signalState().joined, { timeoutMs: 20_000 });
});

test('papo mcp without a profile forks no transport process', { timeout: 30_000 }, async (t) => {
  const mcp = spawnMcp({ args: ['--about', 'tests'], env: memberEnv() });
  t.after(() => mcp.stop());
  await mcp.client.initialize();
  assert.match(await mcp.tool('status'), /profile 'default' is not configured/);
  assert.deepEqual(childPids(mcp.pid), []);
});
