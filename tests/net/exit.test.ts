import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startSignalServer } from '../../src/signal-server/server.js';
import { runChild } from '../support/run-child.js';

const fixture = fileURLToPath(new URL('./fixtures/close-and-exit.js', import.meta.url));

/** Runs the fixture; resolves with its exit code and whether it exited by itself after "closed". */
async function run(
  args: string[],
): Promise<{ code: number | null; closed: boolean; exitedAlone: boolean; err: string }> {
  // Once it says closed it has a few seconds to be gone by itself.
  const r = await runChild(process.execPath, [fixture, ...args], {
    timeoutMs: 60_000,
    exitAfter: { marker: 'closed\n', withinMs: 5000 },
  });
  return { code: r.code, closed: r.stdout.includes('closed\n'), exitedAlone: !r.killed, err: r.stderr };
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
