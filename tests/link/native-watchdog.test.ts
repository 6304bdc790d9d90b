import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startNativeWatchdog } from '../../src/client/native-watchdog.js';

const fixture = fileURLToPath(new URL('./fixtures/watchdog.js', import.meta.url));

function run(
  mode: string,
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fixture, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    // Bounds the test should the watchdog fail to act (the fixture blocks for 60 s).
    const bound = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code, signal) => {
      clearTimeout(bound);
      resolve({ code, signal, out, err });
    });
  });
}

test('the watchdog ends a process whose main thread is blocked, and says why on stderr', async () => {
  const started = Date.now();
  const r = await run('block');
  assert.equal(r.signal, 'SIGKILL');
  assert.equal(r.out, 'armed\n');
  assert.match(
    r.err,
    /^watchdog fixture: the main thread has not run for 2 s \(a deadlock in the native WebRTC library/,
  );
  // Well before the 30 s bound and the 60 s block: it was the watchdog.
  assert.ok(Date.now() - started < 20_000);
});

test('the watchdog leaves a responsive process alone and does not keep it alive', async () => {
  const r = await run('busy');
  assert.deepEqual(r, { code: 0, signal: null, out: 'done\n', err: '' });
});

test('the watchdog refuses a stall shorter than two seconds', () => {
  assert.throws(() => startNativeWatchdog({ stallSeconds: 1 }), RangeError);
  assert.throws(() => startNativeWatchdog({ stallSeconds: 2.5 }), RangeError);
});
