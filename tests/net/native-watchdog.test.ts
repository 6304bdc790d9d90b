import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
// The test-support watchdog (tests/support/native-watchdog.ts): test processes that run WebRTC
// in their own main thread use it so that a native deadlock fails a file instead of hanging CI.
import { startNativeWatchdog } from '../support/native-watchdog.js';
import { type ChildRun, runChild } from '../support/run-child.js';

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

test('for native deadlocks only, the watchdog leaves alone a held main thread in a process without node-datachannel', async () => {
  const { code, signal, stdout, stderr } = await run('held');
  assert.deepEqual(
    { code, signal, out: stdout, err: stderr },
    { code: 0, signal: null, out: 'done\n', err: '' },
  );
});

test('the watchdog refuses a stall shorter than two seconds', () => {
  assert.throws(() => startNativeWatchdog({ stallSeconds: 1 }), RangeError);
  assert.throws(() => startNativeWatchdog({ stallSeconds: 2.5 }), RangeError);
});
