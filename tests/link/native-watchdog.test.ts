import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  armedNativeWatchdogRunning,
  armNativeWatchdog,
  startNativeWatchdog,
} from '../../src/client/native-watchdog.js';
import { mayRelay, PeerLink } from '../../src/client/peer-link.js';
import { type ChildRun, runChild } from '../support/run-child.js';
import { LOOPBACK_ICE, orderedIds } from './helpers.js';

const fixture = fileURLToPath(new URL('./fixtures/watchdog.js', import.meta.url));

/** Runs the fixture; 30 s bounds it should the watchdog fail to act (the fixture blocks 60 s). */
function run(mode: string): Promise<ChildRun> {
  return runChild(process.execPath, [fixture, mode], { timeoutMs: 30_000 });
}

test('the watchdog ends a process whose main thread is blocked, and says why on stderr', async () => {
  const started = Date.now();
  const r = await run('block');
  assert.equal(r.signal, 'SIGKILL');
  assert.equal(r.stdout, 'armed\n');
  assert.match(
    r.stderr,
    /^watchdog fixture: the main thread has not run for 2 s \(most likely a deadlock in the native WebRTC library/,
  );
  // Well before the 30 s bound and the 60 s block: it was the watchdog.
  assert.ok(Date.now() - started < 20_000);
});

test('the watchdog leaves a responsive process alone and does not keep it alive', async () => {
  const { code, signal, stdout, stderr } = await run('busy');
  assert.deepEqual(
    { code, signal, out: stdout, err: stderr },
    { code: 0, signal: null, out: 'done\n', err: '' },
  );
});

test('the watchdog refuses a stall shorter than two seconds', () => {
  assert.throws(() => startNativeWatchdog({ stallSeconds: 1 }), RangeError);
  assert.throws(() => startNativeWatchdog({ stallSeconds: 2.5 }), RangeError);
});

test('an armed watchdog that cannot start says so on stderr and does not stop the link', async (t) => {
  armNativeWatchdog({ label: 'bad guard', stallSeconds: 1 });
  const said: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => {
    said.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  t.after(() => {
    process.stderr.write = write;
  });
  const [a, b] = orderedIds();
  const turn = { urls: 'turn:127.0.0.1:9', username: 'u', credential: 'c' };
  const link = new PeerLink({
    localId: a,
    remoteId: b,
    role: 'offerer',
    ice: { servers: [turn], policy: 'all', source: 'env' },
    sendSignal: () => {},
  });
  await link.close();
  process.stderr.write = write;
  assert.equal(armedNativeWatchdogRunning(), false);
  assert.deepEqual(said, [
    'bad guard: the deadlock watchdog could not run (stallSeconds must be an integer of at least 2); going on without it\n',
  ]);
});

test('an armed watchdog starts with the first link that may be relayed, not before', async () => {
  armNativeWatchdog({ label: 'armed test' });
  const [a, b] = orderedIds();
  const link = (ice: typeof LOOPBACK_ICE) =>
    new PeerLink({ localId: a, remoteId: b, role: 'offerer', ice, sendSignal: () => {} });
  const direct = link(LOOPBACK_ICE);
  await direct.close();
  assert.equal(armedNativeWatchdogRunning(), false, 'started by a link that cannot relay');
  // A TURN server nobody answers: the link never opens, but it may relay, so the guard starts.
  const turn = { urls: ['stun:127.0.0.1:9', 'turn:127.0.0.1:9'], username: 'u', credential: 'c' };
  const relayable = link({ servers: [turn], policy: 'all', source: 'env' });
  await relayable.close();
  assert.equal(armedNativeWatchdogRunning(), true);
});

test('mayRelay: turn: and turns: URLs, in a string or a list; stun: alone does not', () => {
  const cfg = (urls: string | string[]) => ({
    servers: [{ urls }],
    policy: 'all' as const,
    source: 'env' as const,
  });
  assert.equal(mayRelay(cfg('turn:t.example:3478')), true);
  assert.equal(mayRelay(cfg(['stun:s.example', 'TURNS:t.example:5349'])), true);
  assert.equal(mayRelay(cfg('stun:s.example:3478')), false);
  assert.equal(mayRelay(LOOPBACK_ICE), false);
});
