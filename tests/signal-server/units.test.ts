// Pure parts: settings from the environment, the token bucket, the client address, credentials.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { configFromEnv, DEFAULTS, parseListen } from '../../src/signal-server/config.js';
import { AddressCounter, addressKey, clientAddress, TokenBucket } from '../../src/signal-server/limits.js';
import {
  iceServersFor,
  mintTurnCredential,
  stableExpiry,
  TurnIssuer,
} from '../../src/signal-server/turn-credentials.js';

test('an empty environment gives the documented defaults', () => {
  const c = configFromEnv({});
  assert.deepEqual(c, DEFAULTS);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 7450);
  assert.equal(c.maxMessageBytes, 64 * 1024);
  assert.equal(c.pingIntervalMs, 20_000);
});

test('variables override the defaults; empty means unset; bad values are RangeErrors', () => {
  const c = configFromEnv({
    PAPO_SIGNAL_PORT: '9000',
    PAPO_SIGNAL_TOKEN: '',
    PAPO_SIGNAL_PING_INTERVAL: '0.2',
    PAPO_SIGNAL_TRUST_PROXY: 'true',
    PAPO_STUN_URLS: 'stun:a:3478, stun:b:3478',
  });
  assert.equal(c.port, 9000);
  assert.equal(c.token, undefined);
  assert.equal(c.pingIntervalMs, 200);
  assert.equal(c.trustProxyHops, 1);
  assert.deepEqual(c.turn.stunUrls, ['stun:a:3478', 'stun:b:3478']);
  assert.throws(() => configFromEnv({ PAPO_SIGNAL_PORT: '70000' }), RangeError);
  assert.throws(() => configFromEnv({ PAPO_SIGNAL_MAX_MESSAGE_BYTES: String(128 * 1024) }), RangeError);
  assert.throws(() => configFromEnv({ PAPO_TURN_URLS: 'http://turn' }), RangeError);
});

test('the token bucket allows a burst, then the sustained rate', () => {
  const bucket = new TokenBucket(10, 3, 0);
  assert.deepEqual(
    [bucket.take(0), bucket.take(0), bucket.take(0), bucket.take(0)],
    [true, true, true, false],
  );
  assert.equal(bucket.take(50), false); // half a token
  assert.equal(bucket.take(100), true); // one token after 100 ms at 10/s
  assert.equal(bucket.take(100), false);
  assert.equal(bucket.take(10_000), true); // refilled, capped at the burst
});

test('the client address ignores X-Forwarded-For unless proxies are trusted', () => {
  assert.equal(clientAddress('::ffff:10.0.0.1', '203.0.113.9', 0), '10.0.0.1');
  assert.equal(clientAddress('10.0.0.1', 'spoofed, 203.0.113.9', 1), '203.0.113.9');
  assert.equal(clientAddress('10.0.0.1', 'spoofed, 203.0.113.9, 10.0.0.2', 2), '203.0.113.9');
  assert.equal(clientAddress('10.0.0.1', undefined, 1), '10.0.0.1');
  const counter = new AddressCounter();
  assert.equal(counter.acquire('a', 1), true);
  assert.equal(counter.acquire('a', 1), false);
  counter.release('a');
  assert.equal(counter.size, 0);
});

test('clients are counted per IPv4 address and per IPv6 prefix (default /64); IPv4-mapped as IPv4', () => {
  assert.equal(addressKey('203.0.113.9', 64), '203.0.113.9');
  assert.equal(addressKey('2001:db8:a:b::1', 64), '2001:db8:a:b:0:0:0:0/64');
  assert.equal(addressKey('2001:DB8:A:B:ffff:ffff:ffff:ffff', 64), '2001:db8:a:b:0:0:0:0/64');
  assert.equal(addressKey('2001:db8:a:c::1', 64), '2001:db8:a:c:0:0:0:0/64');
  assert.equal(addressKey('2001:db8:a:b::1', 128), '2001:db8:a:b:0:0:0:1/128');
  assert.equal(addressKey('2001:db8:a:b::1', 56), '2001:db8:a:0:0:0:0:0/56');
  assert.equal(addressKey('2001:db8:a:ff::1', 60), '2001:db8:a:f0:0:0:0:0/60');
  assert.equal(addressKey('fe80::1%eth0', 64), 'fe80:0:0:0:0:0:0:0/64');
  assert.equal(addressKey('::ffff:192.0.2.7', 64), '192.0.2.7');
  assert.equal(addressKey('::ffff:c000:207', 64), '192.0.2.7');
  assert.equal(addressKey(clientAddress('10.0.0.1', '::ffff:c000:207', 1), 64), '192.0.2.7');
  assert.equal(addressKey('unknown', 64), 'unknown');
  const c = configFromEnv({ PAPO_SIGNAL_IPV6_PREFIX: '56', PAPO_SIGNAL_MAX_BUFFERED_BYTES: '262144' });
  assert.equal(c.ipv6Prefix, 56);
  assert.equal(c.maxBufferedBytes, 262_144);
  assert.equal(DEFAULTS.ipv6Prefix, 64);
  assert.equal(DEFAULTS.maxBufferedBytes, 1024 * 1024);
  assert.throws(() => configFromEnv({ PAPO_SIGNAL_IPV6_PREFIX: '129' }), RangeError);
  assert.throws(() => configFromEnv({ PAPO_SIGNAL_MAX_BUFFERED_BYTES: '1000' }), RangeError);
});

test("the server's PAPO_SIGNAL_TOKEN is the token itself; the members' ORIGIN=TOKEN form is refused", () => {
  assert.equal(
    configFromEnv({ PAPO_SIGNAL_TOKEN: 'test-token-not-secret==' }).token,
    'test-token-not-secret==',
  );
  assert.throws(
    () => configFromEnv({ PAPO_SIGNAL_TOKEN: 'wss://signal.example.test=test-token-not-secret' }),
    /the token itself, not ORIGIN=TOKEN/,
  );
});

test('TURN REST credentials follow coturn use-auth-secret', () => {
  // Expiry 1700000000 + 3600; the value is openssl dgst -sha1 -hmac secret's.
  const cred = mintTurnCredential('secret', 'abcdef0123', 3600, 1_700_000_000_000);
  assert.equal(cred.username, '1700003600:abcdef0123');
  assert.equal(cred.credential, 'l170cXHT0/jhWWVrupsszIUyDWg=');
});

test('a member gets the same TURN username on every connection within a step, valid for at least the ttl', () => {
  const turn = { ...DEFAULTS.turn, secret: 'secret', urls: ['turn:t.example:3478'] };
  const at = (ms: number) => iceServersFor(turn, 'abcdef0123', ms)[0];
  const t0 = Date.UTC(2026, 11, 1, 12, 0, 5);
  const first = at(t0);
  // A redial 5 s later and a restarted transport 40 min later: one identity.
  assert.deepEqual(at(t0 + 5000), first);
  assert.deepEqual(at(t0 + 40 * 60_000), first);
  // Another member: another identity; the next hour: a new one.
  assert.notEqual(iceServersFor(turn, 'ffffffffff', t0)[0]?.username, first?.username);
  assert.notEqual(at(t0 + 61 * 60_000)?.username, first?.username);
  for (const ms of [t0, t0 + 59 * 60_000]) {
    const expiry = stableExpiry(turn.ttlSeconds, ms);
    assert.ok(expiry >= ms / 1000 + turn.ttlSeconds && expiry <= ms / 1000 + turn.ttlSeconds + 3600);
  }
  // A short ttl steps by a quarter of it (75 s here), at least a minute.
  assert.equal(stableExpiry(300, 1_700_000_000_000), 1_700_000_325);
});

test('the TLS, metrics and TURN credential settings', () => {
  const c = configFromEnv({
    PAPO_SIGNAL_TLS_CERT: '/etc/papo/fullchain.pem',
    PAPO_SIGNAL_TLS_KEY: '/etc/papo/privkey.pem',
    PAPO_SIGNAL_TLS_RELOAD: '2',
    PAPO_SIGNAL_METRICS: '0.0.0.0:9100',
    PAPO_SIGNAL_METRICS_TOKEN: 'scrape',
    PAPO_TURN_CREDENTIALS_PER_ADDRESS: '5',
    PAPO_TURN_CREDENTIALS_WINDOW: '60',
  });
  assert.deepEqual(c.tls, { certFile: '/etc/papo/fullchain.pem', keyFile: '/etc/papo/privkey.pem' });
  assert.equal(c.tlsReloadMs, 2000);
  assert.deepEqual(c.metrics, { host: '0.0.0.0', port: 9100 });
  assert.equal(c.metricsToken, 'scrape');
  assert.equal(c.turn.perAddress, 5);
  assert.equal(c.turn.windowMs, 60_000);
  assert.equal(configFromEnv({ PAPO_SIGNAL_METRICS: 'off' }).metrics, 'off');
  assert.deepEqual(parseListen('X', '9464'), { host: '127.0.0.1', port: 9464 });
  assert.deepEqual(parseListen('X', '[::1]:9464'), { host: '::1', port: 9464 });
  assert.deepEqual(parseListen('X', 'localhost:0'), { host: 'localhost', port: 0 });
  for (const bad of ['nope', '1.2.3.4:99999', ':9464', '[::1]'])
    assert.throws(() => parseListen('X', bad), RangeError);
  assert.throws(() => configFromEnv({ PAPO_SIGNAL_TLS_CERT: '/a.pem' }), /set both/);
  assert.throws(() => configFromEnv({ PAPO_SIGNAL_TLS_KEY: '/a.key' }), /set both/);
  assert.throws(() => configFromEnv({ PAPO_TURN_CREDENTIALS_PER_ADDRESS: '-1' }), RangeError);
  assert.throws(() => configFromEnv({ PAPO_TURN_CREDENTIALS_WINDOW: '0.5' }), RangeError);
});

test('TURN identities per address: a sliding window, a redial free, memory bounded', () => {
  const turn = {
    ...DEFAULTS.turn,
    secret: 's',
    urls: ['turn:t.example:3478'],
    perAddress: 2,
    windowMs: 600_000,
  };
  const issuer = new TurnIssuer(turn, 3);
  const t0 = 1_000_000_000;
  const has = (address: string, tag: string, now: number) =>
    issuer.forWelcome(address, tag, now).iceServers.some((s) => s.username !== undefined);
  assert.equal(has('a', 'm1', t0), true);
  assert.equal(has('a', 'm2', t0 + 1000), true);
  assert.equal(has('a', 'm3', t0 + 2000), false);
  assert.deepEqual(issuer.forWelcome('a', 'm3', t0 + 2000).notes, ['turn_limited']);
  assert.equal(has('a', 'm1', t0 + 3000), true, 'a redial of an identity given one');
  // m2 was last given one at t0+1000: its slot frees at t0+601000; m1's (refreshed) later.
  assert.equal(has('a', 'm3', t0 + 600_500), false);
  assert.equal(has('a', 'm3', t0 + 601_500), true);
  assert.equal(has('a', 'm4', t0 + 601_600), false);
  // Only `maxAddresses` addresses are remembered, the least recent forgotten first.
  for (const address of ['b', 'c', 'd', 'e']) has(address, 'x', t0 + 700_000);
  assert.equal(issuer.trackedAddresses, 3);
  // With no TURN configured there is nothing to limit. (A signal token changes nothing: one token
  // is every room's of a server, ADR 0114.)
  const noTurn = new TurnIssuer({ ...turn, secret: undefined });
  for (let i = 0; i < 10; i++)
    assert.deepEqual(noTurn.forWelcome('a', `m${i}`, t0), { iceServers: [], notes: [] });
});

test("a TURN identity is the member's hint bound to its address: another address naming the same id gets a username of its own (ADR 0114)", () => {
  const turn = {
    ...DEFAULTS.turn,
    secret: 's',
    urls: ['turn:t.example:3478'],
    perAddress: 2,
    windowMs: 600_000,
  };
  const issuer = new TurnIssuer(turn);
  const t0 = 1_000_000_000;
  const username = (address: string, hint: string) =>
    issuer.forWelcome(address, hint, t0).iceServers.find((s) => s.username !== undefined)?.username ?? '';
  const ana = username('198.51.100.7', 'a1b2c3d4e5');
  assert.match(ana, /^\d+:a1b2c3d4e5\.[0-9a-f]{6}$/, 'the short id stays readable in coturn logs');
  assert.equal(username('198.51.100.7', 'a1b2c3d4e5'), ana, 'a redial: the same identity (ADR 0058)');
  assert.notEqual(username('203.0.113.9', 'a1b2c3d4e5'), ana, "another address cannot take ana's quota");
  assert.equal(issuer.identityTag('198.51.100.7', 'a1b2c3d4e5'), ana.split(':')[1]);
  // Made by the TURN secret: another server's (or a guessed one) makes another suffix.
  assert.notEqual(
    new TurnIssuer({ ...turn, secret: 't' }).identityTag('198.51.100.7', 'a1b2c3d4e5'),
    ana.split(':')[1],
  );
});

// bufferutil ships prebuilt for some platforms only (ADR 0082); elsewhere ws unmasks in JavaScript.
const requireHere = createRequire(import.meta.url);
const prebuilt = existsSync(
  join(
    dirname(requireHere.resolve('bufferutil/package.json')),
    'prebuilds',
    `${process.platform}-${process.arch}`,
  ),
);

test("ws, as papo resolves it, unmasks frames with native code: bufferutil's (ADR 0082), or node's own from Node 26", {
  skip: !prebuilt && `bufferutil has no prebuilt binary for ${process.platform}-${process.arch}`,
}, () => {
  // ws's exports hide lib/, so its file is found from the package's entry point.
  const require = requireHere;
  const bufferUtil = require(join(dirname(require.resolve('ws')), 'lib', 'buffer-util.js'));
  const native = require('bufferutil');
  assert.match(String(native.unmask), /\[native code\]/);
  // ws's own unmask hands frames of 32 bytes or more to it: the result is the RFC 6455 XOR.
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const plain = Buffer.from('a signal frame longer than thirty-two bytes');
  const masked = Buffer.from(plain.map((b, i) => b ^ (mask[i & 3] as number)));
  bufferUtil.unmask(masked, mask);
  assert.deepEqual(masked, plain);
  // From Node 26 node:http has its own native unmask, which ws prefers: bufferutil is then not
  // needed (ADR 0111); before it, ws hands the frame to bufferutil.
  const http = require('node:http') as { websocketUnmask?: unknown };
  if (typeof http.websocketUnmask === 'function')
    assert.match(String(bufferUtil.unmask), /websocketUnmask\(buffer, mask\)/);
  else assert.match(String(bufferUtil.unmask), /bufferUtil\.unmask/);
});
