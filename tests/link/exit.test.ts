import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startSignalServer } from '../../src/signal-server/server.js';

const fixture = fileURLToPath(new URL('./fixtures/close-and-exit.js', import.meta.url));

/** Runs the fixture; resolves with its exit code and whether it exited by itself after "closed". */
function run(
  args: string[],
): Promise<{ code: number | null; closed: boolean; exitedAlone: boolean; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fixture, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let hang: NodeJS.Timeout | undefined;
    let killed = false;
    const guard = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      // Once it says closed it has a few seconds to be gone by itself.
      if (out.includes('closed\n') && hang === undefined) {
        hang = setTimeout(() => {
          killed = true;
          child.kill('SIGKILL');
        }, 5000);
      }
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) => {
      clearTimeout(guard);
      clearTimeout(hang);
      resolve({ code, closed: out.includes('closed\n'), exitedAlone: !killed, err });
    });
  });
}

test('a process that closes its links exits by itself (incoming channel closed by the peer)', async () => {
  const result = await run(['links']);
  assert.deepEqual(result, { code: 0, closed: true, exitedAlone: true, err: '' });
});

test('a process that closes its meshes and signal clients exits by itself', async (t) => {
  const srv = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
  t.after(() => srv.close());
  const result = await run(['mesh', srv.url]);
  assert.deepEqual(result, { code: 0, closed: true, exitedAlone: true, err: '' });
});
