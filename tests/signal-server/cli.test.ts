// `papo signal` as a real child process: it says where it listens, a taken port is an error with
// exit 1, and SIGINT/SIGTERM close the sockets with 1001 (going away) before it exits 0.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { hex32, TestClient } from './helpers.js';
import { CLI, startCliSignal, stop } from './processes.js';

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`${signal} closes sockets with 1001 and exits 0`, async () => {
    const { url, child } = await startCliSignal({});
    try {
      const c = await TestClient.ready(url);
      c.send({ t: 'join', topic: hex32(), peer: hex32() });
      assert.equal((await c.next()).t, 'peers');
      const exited = once(child, 'exit');
      child.kill(signal);
      assert.equal((await c.closed).code, 1001);
      const [code] = await exited;
      assert.equal(code, 0);
    } finally {
      await stop(child);
    }
  });
}

test('a port in use is reported on stderr with exit status 1', async () => {
  const { url, child } = await startCliSignal({});
  try {
    const port = new URL(url).port;
    const r = spawnSync(process.execPath, [CLI, 'signal', '--port', port], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /already in use/);
    assert.equal(r.stdout, '');
  } finally {
    await stop(child);
  }
});
