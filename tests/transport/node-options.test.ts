// The transport process starts on the Node it runs on (ADR 0111): its V8 options are ones the
// running Node takes, with nothing said on stderr, and an option a Node refuses (Node 24 refused
// `--no-expose-wasm`, and every member stayed unlinked in a crash loop) is dropped at once.
// Real processes, a real signal server on loopback; CI runs this file on Node 22, 24 and 26.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { transportExecArgv } from '../../src/client/transport/early-fork.js';
import {
  TransportProcess,
  type TransportProcessOptions,
} from '../../src/client/transport/transport-process.js';
import { deriveRoomKeys, generateSecret } from '../../src/client/wire/room-crypto.js';
import { startSignalServer } from '../../src/signal-server/server.js';
import { waitFor } from '../support/wait.js';

/** A transport process on a real signal server, with every line it warns kept. */
async function transportOn(t: TestContext, options: Partial<TransportProcessOptions> = {}) {
  const srv = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
  t.after(() => srv.close());
  const keys = deriveRoomKeys(generateSecret());
  const warned: string[] = [];
  const transport = new TransportProcess({
    init: {
      url: srv.url,
      topic: keys.topic,
      localId: randomBytes(32).toString('hex'),
      signalKey: Buffer.from(keys.signalKey).toString('hex'),
      token: undefined,
      pin: undefined,
    },
    env: { ...process.env, PAPO_ICE_SERVERS: '[]' },
    log: () => {},
    warn: (line) => warned.push(line),
    ...options,
  });
  t.after(() => transport.close());
  transport.start();
  return { transport, warned };
}

test(`the transport process starts on this Node (${process.version}) with its own options, and joins at the first start`, {
  timeout: 60_000,
}, async (t) => {
  const { transport, warned } = await transportOn(t);
  await waitFor('joined the signal server', () => transport.signalState().joined, { timeoutMs: 30_000 });
  const health = (await transport.health()).transport;
  assert.equal(health.state, 'running');
  assert.equal(health.restarts, 0, `it was started again: ${warned.join(' | ')}`);
  assert.deepEqual(warned, []);
});

test(`this Node (${process.version}) takes the transport's options without a word on stderr, in lite mode`, () => {
  const options = transportExecArgv();
  assert.ok(options.includes('--lite-mode'), 'lite mode kept (ADR 0105)');
  const run = spawnSync(
    process.execPath,
    [
      ...options,
      '-e',
      "process.stdout.write(String(require('node:v8').getHeapStatistics().total_heap_size > 0))",
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
  );
  assert.equal(run.stderr, '', 'a warning would reach the stderr of papo mcp');
  assert.equal(run.status, 0);
  assert.equal(run.stdout, 'true');
});

test('the options follow V8: --no-expose-wasm only where V8 still has --expose-wasm (before 13)', () => {
  assert.deepEqual(transportExecArgv('11.3.244.8-node.33'), ['--lite-mode', '--no-expose-wasm']);
  assert.deepEqual(transportExecArgv('12.4.254.21-node.33'), ['--lite-mode', '--no-expose-wasm']);
  assert.deepEqual(transportExecArgv('13.6.233.17-node.37'), ['--lite-mode']);
  assert.deepEqual(transportExecArgv('14.2.10-node.12'), ['--lite-mode']);
});

test('an option the running Node refuses is dropped: the transport starts at once without it, said once', {
  timeout: 60_000,
}, async (t) => {
  // A real refusal by the real node binary: exit code 9, "bad option", before a line of ours runs.
  const { transport, warned } = await transportOn(t, { execArgv: ['--papo-no-such-option'] });
  await waitFor('joined the signal server', () => transport.signalState().joined, { timeoutMs: 30_000 });
  const health = (await transport.health()).transport;
  assert.equal(health.state, 'running');
  assert.equal(health.restarts, 0);
  assert.equal(health.failing, false);
  assert.deepEqual(warned, [
    `papo: this Node (${process.version}) refused the transport process's options (--papo-no-such-option); starting it without them`,
  ]);
});
