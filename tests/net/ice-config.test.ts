import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPapoError } from '../../src/client/errors.js';
import {
  DEFAULT_ICE_SERVERS,
  nativeRtcConfig,
  parseIceUrl,
  resolveIceConfig,
  toNativeIceServers,
} from '../../src/client/net/ice-config.js';

const welcome = [
  { urls: 'turn:turn.example.net:3478', username: '1733000000:ab12cd34ef', credential: 'c/+=' },
];

test('precedence: PAPO_ICE_SERVERS, then the welcome, then the STUN default', () => {
  const env = { PAPO_ICE_SERVERS: '[{"urls":["stun:stun.example.net"]}]' };
  assert.deepEqual(resolveIceConfig({ env, welcome }), {
    servers: [{ urls: ['stun:stun.example.net'] }],
    policy: 'all',
    source: 'env',
  });
  assert.deepEqual(resolveIceConfig({ env: {}, welcome }).source, 'welcome');
  assert.deepEqual(resolveIceConfig({ env: { PAPO_ICE_SERVERS: '  ' }, welcome: [] }), {
    servers: [...DEFAULT_ICE_SERVERS],
    policy: 'all',
    source: 'default',
  });
  assert.equal(resolveIceConfig({ env: { PAPO_ICE_POLICY: 'relay' } }).policy, 'relay');
  assert.equal(resolveIceConfig({ env: { PAPO_ICE_SERVERS: '[]' }, welcome }).servers.length, 0);
});

test('invalid PAPO_ICE_SERVERS or PAPO_ICE_POLICY is a clear error', () => {
  for (const text of [
    '{not json',
    '{"urls":"stun:x"}',
    '[{"urls":[]}]',
    '[{"urls":"stun:x","username":3}]',
  ]) {
    assert.throws(
      () => resolveIceConfig({ env: { PAPO_ICE_SERVERS: text } }),
      (err) => isPapoError(err, 'invalid_ice_servers') && err.message.includes('PAPO_ICE_SERVERS'),
    );
  }
  assert.throws(
    () => resolveIceConfig({ env: { PAPO_ICE_POLICY: 'sometimes' } }),
    (err) => isPapoError(err, 'invalid_ice_servers'),
  );
});

test('TURN REST credentials (colon in the username) go to the native object form intact', () => {
  const skipped: string[] = [];
  const native = toNativeIceServers(
    [
      { ...welcome[0], urls: ['stun:[::1]:3479', 'turn:10.0.0.1?transport=tcp', 'turns:t.example.net'] },
      { urls: 'turn:no-creds.example.net' },
      { urls: 'stuns:x.example.net' },
      { urls: 'https://nope' },
    ],
    (url) => skipped.push(url),
  );
  assert.deepEqual(native, [
    { hostname: '::1', port: 3479 },
    {
      hostname: '10.0.0.1',
      port: 3478,
      username: '1733000000:ab12cd34ef',
      password: 'c/+=',
      relayType: 'TurnTcp',
    },
    {
      hostname: 't.example.net',
      port: 5349,
      username: '1733000000:ab12cd34ef',
      password: 'c/+=',
      relayType: 'TurnTls',
    },
  ]);
  assert.deepEqual(skipped, ['turn:no-creds.example.net', 'stuns:x.example.net', 'https://nope']);
  assert.equal(typeof parseIceUrl('turn:h:99999'), 'string');
  // Found by the fuzz target "ICE servers": a host with a newline or other white space was taken.
  for (const bad of ['TURN:<\nsport=udp', 'turn:a b:3478', 'stun:[::1\n]', 'turn:a\u0085b', 'stun:a\tb'])
    assert.equal(typeof parseIceUrl(bad), 'string', JSON.stringify(bad));
  assert.deepEqual(parseIceUrl('turn:[fe80::1%25eth0]:3478?transport=tcp'), {
    scheme: 'turn',
    host: 'fe80::1%25eth0',
    port: 3478,
    transport: 'tcp',
  });
  assert.deepEqual(
    nativeRtcConfig({ servers: [], policy: 'relay', source: 'env' }).iceTransportPolicy,
    'relay',
  );
});
