import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blake3 } from '@noble/hashes/blake3.js';
import fc from 'fast-check';
import { isPapoError } from '../../src/client/errors.js';
import { base32Decode, base32Encode, decodeInvite, encodeInvite } from '../../src/client/invite.js';
import { generateSecret } from '../../src/client/room-crypto.js';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const URLS = ['', 'wss://signal.example.com', 'ws://127.0.0.1:7450', 'https://papo.example.org/room?x=1'];

function refusedWith(text: string, pattern: RegExp): void {
  assert.throws(
    () => decodeInvite(text),
    (e) => isPapoError(e, 'invalid_invite') && pattern.test(e.message),
    `accepted or wrong error: ${JSON.stringify(text)}`,
  );
}

test('an invite round-trips the secret and the signal URL', () => {
  for (const url of URLS) {
    const secret = generateSecret();
    const invite = encodeInvite(secret, url);
    assert.match(invite, /^papo1[a-z2-7]+$/);
    const decoded = decodeInvite(invite);
    assert.deepEqual(decoded.secret, secret);
    assert.equal(decoded.signalUrl, url);
  }
});

test('spaces at the ends and upper case after the prefix are accepted', () => {
  const secret = generateSecret();
  const invite = encodeInvite(secret, 'wss://signal.example.com');
  for (const text of [`  ${invite}\n`, `\t${invite} `, `papo1${invite.slice(5).toUpperCase()}`]) {
    assert.deepEqual(decodeInvite(text).secret, secret);
  }
});

test('every truncation of a valid invite is refused as damaged', () => {
  for (const url of URLS) {
    const invite = encodeInvite(generateSecret(), url);
    for (let len = 5; len < invite.length; len++) {
      refusedWith(invite.slice(0, len), /damaged or was cut off/);
    }
    for (let len = 0; len < 5; len++) refusedWith(invite.slice(0, len), /not a papo invite/);
  }
});

test('every single-character change of a valid invite is refused', () => {
  const invite = encodeInvite(generateSecret(), 'wss://signal.example.com');
  for (let i = 0; i < invite.length; i++) {
    const original = invite[i] ?? '';
    const replacements = i < 5 ? ['x', 'P', '0', ' '] : [...ALPHABET, '0', '1', '8', '9', '-', '=', 'é'];
    for (const ch of replacements) {
      if (ch === original || (i >= 5 && ch.toLowerCase() === original)) continue;
      const changed = invite.slice(0, i) + ch + invite.slice(i + 1);
      assert.throws(
        () => decodeInvite(changed),
        (e) => isPapoError(e, 'invalid_invite'),
        `position ${i} -> ${ch}`,
      );
    }
  }
});

test('property: random secrets and URLs round-trip; random text never decodes to a different room', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.constantFrom(...URLS), (secret, url) => {
      const decoded = decodeInvite(encodeInvite(secret, url));
      return decoded.signalUrl === url && decoded.secret.every((b, i) => b === secret[i]);
    }),
  );
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (text) => {
      try {
        decodeInvite(`papo1${text}`);
        return false; // a random string passing the 4-byte check is a 2^-32 event
      } catch (e) {
        return isPapoError(e, 'invalid_invite');
      }
    }),
  );
});

test('an invite whose URL part is not ws/wss/http/https is refused with a clear error', () => {
  for (const url of ['ftp://files.example.com', 'not a url', 'javascript:alert(1)']) {
    const body = new Uint8Array([...generateSecret(), ...new TextEncoder().encode(url)]);
    const all = new Uint8Array([...body, ...blake3(body).subarray(0, 4)]);
    refusedWith(`papo1${base32Encode(all)}`, /no usable signal URL/);
  }
});

test('base32 is RFC 4648 (lower case, no padding) and the decoder is strict', () => {
  const enc = new TextEncoder();
  const cases: [string, string][] = [
    ['', ''],
    ['f', 'my'],
    ['fo', 'mzxq'],
    ['foo', 'mzxw6'],
    ['foob', 'mzxw6yq'],
    ['fooba', 'mzxw6ytb'],
    ['foobar', 'mzxw6ytboi'],
  ];
  for (const [plain, encoded] of cases) {
    assert.equal(base32Encode(enc.encode(plain)), encoded);
    assert.deepEqual(base32Decode(encoded), enc.encode(plain));
  }
  assert.equal(base32Decode('mz'), null); // non-zero leftover bits
  assert.equal(base32Decode('m'), null); // impossible length
  assert.equal(base32Decode('my!'), null);
});
