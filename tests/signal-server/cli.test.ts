// `papo signal` as a real child process: it says where it listens, a taken port is an error with
// exit 1, and SIGINT/SIGTERM close the sockets with 1001 (going away) before it exits 0.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
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

test('the metrics listener: an explicit address in use is an error; the default in use is logged and skipped', async (t) => {
  // Something holds a port (and, if it can, the default 9464: then it is in use either way).
  const holders: Server[] = [];
  t.after(() => {
    for (const h of holders) h.close();
  });
  const hold = (port: number) =>
    new Promise<number>((resolve) => {
      const h = createServer();
      h.once('error', () => resolve(port));
      h.listen(port, '127.0.0.1', () => {
        holders.push(h);
        resolve((h.address() as AddressInfo).port);
      });
    });
  const taken = await hold(0);
  await hold(9464);

  const r = spawnSync(process.execPath, [CLI, 'signal', '--port', '0'], {
    env: { PATH: process.env.PATH, PAPO_SIGNAL_METRICS: `127.0.0.1:${taken}` },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(r.status, 1);
  assert.match(
    r.stderr,
    new RegExp(`metrics address 127\\.0\\.0\\.1:${taken} .*in use: set PAPO_SIGNAL_METRICS`),
  );

  const { child, url, startLines } = await startCliSignal({ PAPO_SIGNAL_METRICS: '' });
  t.after(() => stop(child));
  assert.match(startLines, /metrics: 127\.0\.0\.1:9464 not available \(EADDRINUSE\); no metrics listener/);
  assert.doesNotMatch(startLines, /metrics on /);
  const c = await TestClient.ready(url);
  await c.close();
});

test('a metrics listener on a public address without a token is warned about at start', async (t) => {
  const open = await startCliSignal({ PAPO_SIGNAL_METRICS: '0.0.0.0:0' });
  t.after(() => stop(open.child));
  assert.match(open.startLines, /warning: metrics are served without a token on 0\.0\.0\.0/);
  const tokened = await startCliSignal({
    PAPO_SIGNAL_METRICS: '0.0.0.0:0',
    PAPO_SIGNAL_METRICS_TOKEN: 'scrape-token',
  });
  t.after(() => stop(tokened.child));
  assert.match(tokened.startLines, /metrics on http:\/\/0\.0\.0\.0:\d+\/metrics \(token required\)/);
  assert.doesNotMatch(tokened.startLines, /warning|scrape-token/);
  const res = await fetch(`http://127.0.0.1:${new URL(tokened.metricsUrl as string).port}/metrics`, {
    headers: { Authorization: 'Bearer scrape-token' },
  });
  assert.equal(res.status, 200);
});
