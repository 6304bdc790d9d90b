import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { isPapoError } from '../../src/client/errors.js';
import {
  deriveKey,
  deriveRoomKeys,
  FRAME_AAD,
  generateSecret,
  NONCE_BYTES,
  open,
  SIGNAL_AAD,
  seal,
} from '../../src/client/wire/room-crypto.js';
import { hchacha20 } from '../../src/client/wire/xchacha.js';

const vectors = JSON.parse(
  readFileSync(new URL('../../../tests/vectors/blake3-derive-key.json', import.meta.url), 'utf8'),
) as { context_string: string; cases: { input_len: number; derive_key: string }[] };

function input(len: number): Uint8Array {
  return Uint8Array.from({ length: len }, (_, i) => i % 251);
}

test('BLAKE3 derive_key matches the official test vectors (default and extended output)', () => {
  assert.ok(vectors.cases.length >= 8);
  for (const c of vectors.cases) {
    const expected = c.derive_key;
    assert.equal(bytesToHex(deriveKey(vectors.context_string, input(c.input_len))), expected.slice(0, 64));
    assert.equal(
      bytesToHex(deriveKey(vectors.context_string, input(c.input_len), expected.length / 2)),
      expected,
    );
  }
});

test('room keys: distinct, deterministic, room id is 8 hex and topic 64 hex', () => {
  const secret = hexToBytes(`${'00'.repeat(31)}01`);
  const a = deriveRoomKeys(secret);
  const b = deriveRoomKeys(secret);
  assert.deepEqual(a, b);
  assert.match(a.roomId, /^[0-9a-f]{8}$/);
  assert.match(a.topic, /^[0-9a-f]{64}$/);
  assert.notEqual(bytesToHex(a.frameKey), bytesToHex(a.signalKey));
  assert.notEqual(a.topic, bytesToHex(a.frameKey));
  assert.notEqual(a.topic.slice(0, 8), a.roomId);
  // Pinned values: a change of context string or KDF shows up here.
  assert.equal(a.roomId, bytesToHex(deriveKey('papo v1 room id', secret)).slice(0, 8));
  assert.equal(a.topic, bytesToHex(deriveKey('papo v1 signal topic', secret)));
  const other = deriveRoomKeys(generateSecret());
  assert.notEqual(other.topic, a.topic);
  assert.throws(() => deriveRoomKeys(new Uint8Array(31)), TypeError);
});

// draft-irtf-cfrg-xchacha-03, appendix A.3.1 (AEAD_XChaCha20_Poly1305).
const KAT = {
  key: '808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f',
  nonce: '404142434445464748494a4b4c4d4e4f5051525354555657',
  aad: '50515253c0c1c2c3c4c5c6c7',
  plaintext:
    "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
  ciphertext:
    'bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e',
  tag: 'c0875924c1c7987947deafd8780acf49',
};

test('seal with a fixed nonce gives the XChaCha20-Poly1305 known answer, prefixed by the nonce', () => {
  const sealed = seal(
    hexToBytes(KAT.key),
    utf8ToBytes(KAT.plaintext),
    hexToBytes(KAT.aad),
    hexToBytes(KAT.nonce),
  );
  assert.equal(bytesToHex(sealed), KAT.nonce + KAT.ciphertext + KAT.tag);
  const opened = open(hexToBytes(KAT.key), sealed, hexToBytes(KAT.aad));
  assert.equal(new TextDecoder().decode(opened), KAT.plaintext);
});

// draft-irtf-cfrg-xchacha-03, section 2.2.1: the subkey papo computes itself (xchacha.ts).
test("HChaCha20 gives the draft's known answer, and refuses a key or nonce of the wrong size", () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);
  const nonce = hexToBytes('000000090000004a0000000031415927');
  assert.equal(
    bytesToHex(hchacha20(key, nonce)),
    '82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc',
  );
  assert.throws(() => hchacha20(key.subarray(1), nonce), {
    name: 'RangeError',
    message: 'key must be 32 bytes',
  });
  assert.throws(() => hchacha20(key, nonce.subarray(1)), {
    name: 'RangeError',
    message: 'nonce must be 16 bytes',
  });
});

// The sealing moved from @noble/ciphers to node's ChaCha20-Poly1305 under HChaCha20 (ADR 0108): both
// give the same bytes for every size around the cipher's 64-byte blocks and Poly1305's 16, and each
// opens what the other sealed.
test('seal and open agree byte for byte with an independent XChaCha20-Poly1305 (@noble/ciphers)', () => {
  for (const size of [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 49_152]) {
    const key = generateSecret();
    const nonce = generateSecret().subarray(0, NONCE_BYTES);
    const plaintext = new Uint8Array(size).map((_, i) => (i * 7 + size) & 255);
    const aad = size % 2 === 0 ? FRAME_AAD : SIGNAL_AAD;
    const ours = seal(key, plaintext, aad, nonce);
    const theirs = xchacha20poly1305(key, nonce, aad).encrypt(plaintext);
    assert.equal(bytesToHex(ours), bytesToHex(nonce) + bytesToHex(theirs), `size ${size}`);
    assert.equal(bytesToHex(open(key, ours, aad)), bytesToHex(plaintext), `size ${size}`);
    const other = seal(key, plaintext, aad);
    assert.equal(
      bytesToHex(
        xchacha20poly1305(key, other.subarray(0, NONCE_BYTES), aad).decrypt(other.subarray(NONCE_BYTES)),
      ),
      bytesToHex(plaintext),
      `size ${size}`,
    );
  }
});

test('seal draws a fresh random nonce each time', () => {
  const key = generateSecret();
  const a = seal(key, utf8ToBytes('same'), FRAME_AAD);
  const b = seal(key, utf8ToBytes('same'), FRAME_AAD);
  assert.notEqual(bytesToHex(a.subarray(0, NONCE_BYTES)), bytesToHex(b.subarray(0, NONCE_BYTES)));
});

test('a changed byte anywhere, a wrong key or a wrong aad does not open', () => {
  const key = generateSecret();
  const sealed = seal(key, utf8ToBytes('{"t":"ack","id":"0123456789","by":"ana"}'), FRAME_AAD);
  for (let i = 0; i < sealed.length; i++) {
    for (const flip of [0x01, 0x80]) {
      const tampered = sealed.slice();
      tampered[i] = (tampered[i] ?? 0) ^ flip;
      assert.throws(
        () => open(key, tampered, FRAME_AAD),
        (e) => isPapoError(e, 'open_failed'),
        `byte ${i}`,
      );
    }
  }
  assert.throws(
    () => open(generateSecret(), sealed, FRAME_AAD),
    (e) => isPapoError(e, 'open_failed'),
  );
  assert.throws(
    () => open(key, sealed, SIGNAL_AAD),
    (e) => isPapoError(e, 'open_failed'),
  );
  assert.throws(
    () => open(key, sealed.subarray(0, 39), FRAME_AAD),
    (e) => isPapoError(e, 'open_failed'),
  );
  assert.throws(
    () => open(key, new Uint8Array(0), FRAME_AAD),
    (e) => isPapoError(e, 'open_failed'),
  );
});

// The wire values of docs/protocol.md ("Room crypto"): another implementation of papo derives the
// same keys and seals with the same aad, so each one is pinned here, not only compared with the
// others (mutation testing found every one of them free to change, ADR 0080).
test('the aad and the four contexts are the ones docs/protocol.md names', () => {
  assert.equal(new TextDecoder().decode(FRAME_AAD), 'papo/v1');
  assert.equal(new TextDecoder().decode(SIGNAL_AAD), 'papo/v1/signal');
  const secret = hexToBytes('07'.repeat(32));
  const keys = deriveRoomKeys(secret);
  assert.equal(keys.roomId, bytesToHex(deriveKey('papo v1 room id', secret)).slice(0, 8));
  assert.equal(keys.topic, bytesToHex(deriveKey('papo v1 signal topic', secret)));
  assert.equal(bytesToHex(keys.frameKey), bytesToHex(deriveKey('papo v1 frame key', secret)));
  assert.equal(bytesToHex(keys.signalKey), bytesToHex(deriveKey('papo v1 signal key', secret)));
});

test('a secret of the wrong size and a nonce of the wrong size are refused, saying the size', () => {
  for (const bad of [new Uint8Array(31), new Uint8Array(33), new Uint8Array(0)]) {
    assert.throws(() => deriveRoomKeys(bad), { name: 'TypeError', message: 'room secret must be 32 bytes' });
  }
  const key = generateSecret();
  for (const size of [0, 12, 23, 25]) {
    assert.throws(() => seal(key, utf8ToBytes('x'), FRAME_AAD, new Uint8Array(size)), {
      name: 'RangeError',
      message: 'nonce must be 24 bytes',
    });
  }
});

test('an empty message seals to exactly nonce and tag (40 bytes) and opens', () => {
  const key = generateSecret();
  const sealed = seal(key, new Uint8Array(0), FRAME_AAD);
  assert.equal(sealed.length, 40);
  assert.equal(open(key, sealed, FRAME_AAD).length, 0);
});

test('every failure to open is the same error, whatever failed', () => {
  const key = generateSecret();
  const sealed = seal(key, utf8ToBytes('hello'), FRAME_AAD);
  const tampered = sealed.slice();
  tampered[30] = (tampered[30] ?? 0) ^ 1;
  const attempts: [Uint8Array, Uint8Array, Uint8Array][] = [
    [key, sealed.subarray(0, 39), FRAME_AAD],
    [key, tampered, FRAME_AAD],
    [generateSecret(), sealed, FRAME_AAD],
    [key, sealed, SIGNAL_AAD],
  ];
  for (const [k, data, aad] of attempts) {
    assert.throws(
      () => open(k, data, aad),
      (e) => isPapoError(e, 'open_failed') && e.message === 'sealed data does not open',
    );
  }
  // What the cipher said stays on the error, for the log of whoever investigates.
  assert.throws(
    () => open(key, tampered, FRAME_AAD),
    (e) => isPapoError(e, 'open_failed') && e.cause instanceof Error,
  );
});
