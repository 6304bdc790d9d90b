// The one codec behind invites (base32: RFC 4648's vectors in invite.test.ts) and certificate pins
// (base64url): without padding, checked against Node's own base64url, and strict — every text decodes from exactly one byte string.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { BASE32_LOWER, BASE64URL, radixDecode, radixEncode } from '../../src/client/wire/radix.js';

test('base64url is the one Node writes, and decodes back', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 70 }), (bytes) => {
      const text = radixEncode(BASE64URL, bytes);
      assert.equal(text, Buffer.from(bytes).toString('base64url'));
      assert.deepEqual(radixDecode(BASE64URL, text), bytes);
    }),
  );
});

test('a text no byte string encodes to is refused: impossible length, stray bits, a foreign character', () => {
  for (const radix of [BASE32_LOWER, BASE64URL]) {
    const chars = 1 << radix.bits;
    for (let length = 0; length <= 24; length++) {
      const text = radix.alphabet[1]?.repeat(length) ?? '';
      const encodes =
        radixEncode(radix, new Uint8Array(Math.floor((length * radix.bits) / 8))).length === length;
      if (!encodes) assert.equal(radixDecode(radix, text), null, `${chars}: length ${length} was accepted`);
    }
    // Whatever the last character, a text that decodes is the one encoding of what it decodes to,
    // so the characters that differ only in the unused bits are refused (0xff has 3 or 4 of them).
    const one = radixEncode(radix, Uint8Array.of(0xff));
    let accepted = 0;
    for (const ch of radix.alphabet) {
      const text = `${one.slice(0, -1)}${ch}`;
      const bytes = radixDecode(radix, text);
      if (bytes === null) continue;
      accepted++;
      assert.equal(radixEncode(radix, bytes), text);
    }
    assert.equal(accepted, chars >> (radix.bits - (8 % radix.bits)));
    assert.equal(radixDecode(radix, `${one.slice(0, -1)}=`), null);
    assert.equal(radixDecode(radix, `${one.slice(0, -1)}!`), null);
  }
});
