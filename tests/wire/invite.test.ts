import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blake3 } from '@noble/hashes/blake3.js';
import fc from 'fast-check';
import { isPapoError } from '../../src/client/errors.js';
import { base32Decode, base32Encode, decodeInvite, encodeInvite } from '../../src/client/wire/invite.js';
import { generateSecret } from '../../src/client/wire/room-crypto.js';

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

/** An invite built by hand from any body, with a valid check: what a hostile or buggy encoder makes. */
function inviteOf(body: Uint8Array): string {
  return `papo1${base32Encode(new Uint8Array([...body, ...blake3(body).subarray(0, 4)]))}`;
}

test('an invite whose check is right but whose secret is short is refused, whatever its length', () => {
  for (const size of [0, 1, 10, 28, 30, 31]) {
    refusedWith(inviteOf(generateSecret().subarray(0, size)), /damaged or was cut off/);
  }
});

test('a signal URL of 255 bytes is the longest: encoded and decoded; one of 256 is refused both ways', () => {
  const longest = `wss://${'a'.repeat(255 - 'wss://'.length)}`;
  assert.equal(new TextEncoder().encode(longest).length, 255);
  const secret = generateSecret();
  assert.equal(decodeInvite(encodeInvite(secret, longest)).signalUrl, longest);
  const tooLong = `${longest}a`;
  assert.throws(() => encodeInvite(secret, tooLong), {
    name: 'RangeError',
    message: 'signal URL longer than 255 bytes',
  });
  refusedWith(inviteOf(new Uint8Array([...secret, ...new TextEncoder().encode(tooLong)])), /damaged/);
});

test('the encoder refuses a secret that is not 32 bytes; the decoder refuses what is not a string', () => {
  for (const size of [0, 31, 33]) {
    assert.throws(() => encodeInvite(new Uint8Array(size), ''), {
      name: 'TypeError',
      message: 'room secret must be 32 bytes',
    });
  }
  for (const value of [42, null, undefined, {}]) {
    assert.throws(() => decodeInvite(value as unknown as string), {
      name: 'TypeError',
      message: 'invite must be a string',
    });
  }
});

test('a URL part that is not UTF-8, or not a signal URL, is refused with its own message and cause', () => {
  const secret = generateSecret();
  // 'wss://a' then a lone continuation byte: a lenient decoder would read "wss://a\uFFFD".
  const notUtf8 = new Uint8Array([...secret, ...new TextEncoder().encode('wss://a'), 0x80]);
  assert.throws(
    () => decodeInvite(inviteOf(notUtf8)),
    (e) =>
      isPapoError(e, 'invalid_invite') &&
      e.message === 'this invite carries no usable signal URL' &&
      e.cause instanceof Error,
  );
  const ftp = new Uint8Array([...secret, ...new TextEncoder().encode('ftp://files.example.com')]);
  assert.throws(
    () => decodeInvite(inviteOf(ftp)),
    (e) =>
      isPapoError(e, 'invalid_invite') &&
      e.message ===
        'this invite carries no usable signal URL (it must be ws://, wss://, http:// or https://)' &&
      e.cause instanceof Error,
  );
});

test('the base32 decoder refuses every impossible length, even of zero bits, and every foreign character', () => {
  // Lengths 1, 3 and 6 (mod 8) leave 5, 7 or 6 bits that make no byte: refused even when all zero.
  for (const text of ['a', 'aaa', 'aaaaaa', 'aaaaaaaaa', 'aaaaaaaaaaa', 'aaaaaaaaaaaaaa']) {
    assert.equal(base32Decode(text), null, text);
  }
  for (const text of ['', 'aa', 'aaaa', 'aaaaa', 'aaaaaaa', 'aaaaaaaa']) {
    assert.deepEqual(base32Decode(text), new Uint8Array((text.length * 5) >> 3), text);
  }
  // A character outside the alphabet anywhere in a valid text, whatever bits it would leave.
  const valid = 'mzxw6ytboi';
  for (let i = 0; i < valid.length; i++) {
    for (const ch of ['!', '0', '1', '8', '9', 'A', '=', ' ', 'é']) {
      const text = valid.slice(0, i) + ch + valid.slice(i + 1);
      assert.equal(base32Decode(text), null, text);
    }
  }
});

test('each refusal of an invite carries its data, so the CLI words it without reading the English (ADR 0086)', () => {
  const raw = (urlBytes: Uint8Array): string => {
    const body = new Uint8Array([...generateSecret(), ...urlBytes]);
    return `papo1${base32Encode(new Uint8Array([...body, ...blake3(body).subarray(0, 4)]))}`;
  };
  const detailOf = (text: string): unknown => {
    try {
      decodeInvite(text);
    } catch (e) {
      return isPapoError(e, 'invalid_invite') ? e.detail : e;
    }
    return 'accepted';
  };
  assert.deepEqual(detailOf('hello'), { problem: 'not_papo' });
  assert.deepEqual(detailOf('papo1aaaa'), { problem: 'damaged' });
  const good = encodeInvite(generateSecret(), 'wss://signal.example.com');
  assert.deepEqual(detailOf(`${good.slice(0, -1)}${good.endsWith('a') ? 'b' : 'a'}`), { problem: 'damaged' });
  assert.deepEqual(detailOf(raw(new Uint8Array([0xff, 0xfe]))), { problem: 'no_signal_url' });
  assert.deepEqual(detailOf(raw(new TextEncoder().encode('ftp://signal.example.com'))), {
    problem: 'no_signal_url',
  });
  const fragment = detailOf(raw(new TextEncoder().encode('wss://signal.example.com/#token=a&token=b'))) as {
    problem: string;
    fragment?: { problem: string };
  };
  assert.equal(fragment.problem, 'signal_fragment');
  assert.equal(fragment.fragment?.problem, 'two_tokens');
});
