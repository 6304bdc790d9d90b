import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPapoError } from '../../src/client/errors.js';
import { generateIdentity, identityFromSecretKey, shortId } from '../../src/client/wire/identity.js';
import { sameName, validateMemberName, validateProfileName } from '../../src/client/wire/names.js';
import {
  DEFAULT_SIGNAL_URL,
  effectiveSignalUrl,
  isLoopbackSignalUrl,
  parseSignalUrl,
} from '../../src/client/wire/signal-url.js';

test('member names: 1-32 of A-Za-z0-9-_.', () => {
  for (const ok of ['a', 'voce', 'front-end_2.0', 'X'.repeat(32)]) assert.equal(validateMemberName(ok), ok);
  for (const bad of ['', 'x'.repeat(33), 'com espaço', 'você', 'a/b', 'a:b', '"q"']) {
    assert.throws(
      () => validateMemberName(bad),
      (e) => isPapoError(e, 'invalid_name'),
    );
  }
  assert.ok(sameName('Colega', 'colega'));
});

test('profile names: 1-32 of A-Za-z0-9-_ (no dot)', () => {
  for (const ok of ['default', 'pagamentos', 'a_b-c']) assert.equal(validateProfileName(ok), ok);
  for (const bad of ['', 'a.b', '..', 'x'.repeat(33), 'a b', 'a/b']) {
    assert.throws(
      () => validateProfileName(bad),
      (e) => isPapoError(e, 'invalid_profile_name'),
    );
  }
});

test('signal URLs: ws, wss, http, https; normalised; clear errors', () => {
  assert.equal(parseSignalUrl(' wss://signal.example.com/ ', '--signal'), 'wss://signal.example.com');
  assert.equal(parseSignalUrl('http://10.0.0.5:7450', '--signal'), 'http://10.0.0.5:7450');
  assert.equal(parseSignalUrl('https://x.example/papo', '--signal'), 'https://x.example/papo');
  for (const bad of ['', 'signal.example.com', 'ftp://x', 'ws://user:pw@x', 'ws://']) {
    assert.throws(
      () => parseSignalUrl(bad, 'PAPO_SIGNAL'),
      (e) => isPapoError(e, 'invalid_signal_url') && e.message === 'PAPO_SIGNAL is not a valid URL',
    );
  }
  // A fragment other than #pin=…&token=… (ADR 0089) is refused, and the error says it is the fragment.
  assert.throws(
    () => parseSignalUrl('wss://x/#frag', 'PAPO_SIGNAL'),
    (e) =>
      isPapoError(e, 'invalid_signal_url') && /PAPO_SIGNAL has a fragment papo cannot read/.test(e.message),
  );
  assert.throws(() => parseSignalUrl(`wss://${'a'.repeat(250)}.com`, '--signal'), /255 bytes/);
});

test('signal URLs: an empty query or fragment is dropped, and the result parses to itself (fuzz, issue 13)', () => {
  // Found by the fuzz target "signal URLs": "ws://h#" came out as "ws://h/" (the slice took the "#").
  for (const [text, want] of [
    ['ws://h.example:37761#', 'ws://h.example:37761'],
    ['wss://h.example?', 'wss://h.example'],
    ['wss://h.example/papo?#', 'wss://h.example/papo'],
    ['ws://127.0.0.1:7450/?a=1', 'ws://127.0.0.1:7450/?a=1'],
  ] as const) {
    const url = parseSignalUrl(text, '--signal');
    assert.equal(url, want);
    assert.equal(parseSignalUrl(url, 'invite'), url);
  }
});

test('effective signal URL: PAPO_SIGNAL (empty = unset), then the room, then the local default', () => {
  assert.equal(effectiveSignalUrl(undefined, {}), DEFAULT_SIGNAL_URL);
  assert.equal(effectiveSignalUrl('wss://room.example', {}), 'wss://room.example');
  assert.equal(effectiveSignalUrl('wss://room.example', { PAPO_SIGNAL: '' }), 'wss://room.example');
  assert.equal(
    effectiveSignalUrl('wss://room.example', { PAPO_SIGNAL: 'ws://127.0.0.1:9000' }),
    'ws://127.0.0.1:9000',
  );
  assert.throws(
    () => effectiveSignalUrl(undefined, { PAPO_SIGNAL: 'nope' }),
    /PAPO_SIGNAL is not a valid URL/,
  );
  assert.ok(isLoopbackSignalUrl(DEFAULT_SIGNAL_URL));
  assert.ok(isLoopbackSignalUrl('ws://localhost:1'));
  assert.ok(!isLoopbackSignalUrl('wss://signal.example.com'));
});

test('identity: node id is the hex public key, stable for a secret key', () => {
  const a = generateIdentity();
  assert.match(a.nodeId, /^[0-9a-f]{64}$/);
  assert.equal(identityFromSecretKey(a.secretKey).nodeId, a.nodeId);
  assert.equal(shortId(a.nodeId), a.nodeId.slice(0, 10));
  assert.notEqual(generateIdentity().nodeId, a.nodeId);
});
