// The HTTP routes as hono serves them, through `app.request()`: no listener, no socket. That the
// real server puts them on the right listeners is tests/signal-server/protocol.test.ts's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearer, type RouteDeps, sameSecret, signalRoutes } from '../../src/signal-server/routes.js';

const METRICS = 'papo_signal_connections 3\n';

function routes(over: Partial<RouteDeps> = {}) {
  let rendered = 0;
  const r = signalRoutes({
    healthy: () => true,
    renderMetrics: () => {
      rendered++;
      return METRICS;
    },
    metricsToken: undefined,
    ...over,
  });
  return { ...r, rendered: () => rendered };
}

test('GET / says what this is and where the protocol is', async () => {
  const res = await routes().app.request('/');
  assert.equal(res.status, 200);
  const body = await res.text();
  assert.match(body, /^papo signal server\n/);
  assert.match(body, /signal protocol v1 at \/v1\/ws/);
  assert.match(body, /keeps nothing/);
});

test('GET /healthz follows the hub: 200 ok, or 503 while a shared store is unreachable', async () => {
  let healthy = true;
  const r = routes({ healthy: () => healthy });
  for (const app of [r.app, r.metricsApp]) {
    healthy = true;
    let res = await app.request('/healthz');
    assert.deepEqual([res.status, await res.text()], [200, 'ok\n']);
    healthy = false;
    res = await app.request('/healthz');
    assert.deepEqual([res.status, await res.text()], [503, 'shared store unreachable\n']);
  }
});

test('a plain GET of /v1/ws is 426 (it speaks WebSocket); an unknown path is 404', async () => {
  const { app } = routes();
  const res = await app.request('/v1/ws');
  assert.equal(res.status, 426);
  assert.match(await res.text(), /speaks WebSocket/);
  assert.equal((await app.request('/nope')).status, 404);
  assert.equal((await app.request('/', { method: 'POST' })).status, 404);
});

test('without a metrics token, /metrics is only on the metrics listener, and open there', async () => {
  const r = routes();
  assert.equal((await r.app.request('/metrics')).status, 404);
  assert.equal(r.rendered(), 0);
  const res = await r.metricsApp.request('/metrics');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  assert.equal(await res.text(), METRICS);
  assert.equal(r.rendered(), 1);
});

test('with a metrics token, /metrics on both listeners needs it as a Bearer token; nothing leaks on a 401', async () => {
  const token = 'metrics-token-for-tests';
  const r = routes({ metricsToken: token });
  const refused = [
    {},
    { Authorization: 'Bearer wrong' },
    { Authorization: token },
    { Authorization: `Basic ${token}` },
    { Authorization: `Bearer ${token}x` },
    { Authorization: 'Bearer ' },
  ];
  for (const app of [r.app, r.metricsApp]) {
    for (const headers of refused) {
      const res = await app.request('/metrics', { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="papo signal metrics"');
      const body = await res.text();
      assert.equal(body, 'a metrics token is required (Authorization: Bearer)\n');
    }
    for (const auth of [`Bearer ${token}`, `bearer ${token}`, `  Bearer   ${token}  `]) {
      const res = await app.request('/metrics', { headers: { Authorization: auth } });
      assert.equal(res.status, 200, auth);
      assert.equal(await res.text(), METRICS);
    }
  }
  assert.equal(r.rendered(), 6);
});

test('sameSecret compares whole secrets of any length; bearer reads the token of a Bearer header', () => {
  assert.equal(sameSecret('s3cret-for-tests', 's3cret-for-tests'), true);
  for (const given of [undefined, '', 's3cret-for-test', 's3cret-for-testss', 'S3CRET-FOR-TESTS'])
    assert.equal(sameSecret('s3cret-for-tests', given), false, String(given));
  assert.equal(bearer(undefined), undefined);
  assert.equal(bearer('Bearer abc'), 'abc');
  assert.equal(bearer('BEARER  abc def '), 'abc def');
  assert.equal(bearer('Basic abc'), undefined);
  assert.equal(bearer('Bearerabc'), undefined);
  assert.equal(bearer('Bearer '), undefined);
});
