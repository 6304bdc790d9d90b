// The signal address (ADR 0089): a URL whose fragment may carry the server's certificate pin and
// token. Parsed in one place (signal-url.ts), kept whole by the invite, split before anything is
// dialled or shown; an invite made before it (no fragment) decodes as it always did.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { blake3 } from '@noble/hashes/blake3.js';
import { isPapoError } from '../../src/client/errors.js';
import { signalTokenFor } from '../../src/client/net/signal-token.js';
import { base32Encode, decodeInvite, encodeInvite } from '../../src/client/wire/invite.js';
import { generateSecret } from '../../src/client/wire/room-crypto.js';
import {
  effectiveSignalAddress,
  effectiveSignalUrl,
  formatSignalAddress,
  parseSignalAddress,
  parseSignalUrl,
  signalUrlOf,
} from '../../src/client/wire/signal-url.js';
import { certificatePin } from '../../src/signal-protocol.js';

const PIN = certificatePin(randomBytes(91));
const TOKEN = 'tok_Abc-123.x~y';

test('a signal address splits into the URL, the pin and the token, and formats back to itself', () => {
  const text = `wss://signal.example.com:8443/#pin=${PIN}&token=${TOKEN}`;
  const a = parseSignalAddress(text, '--signal');
  assert.deepEqual(a, { url: 'wss://signal.example.com:8443', pin: PIN, token: TOKEN });
  assert.equal(formatSignalAddress(a), text);
  assert.equal(parseSignalUrl(text, '--signal'), text);
  assert.equal(signalUrlOf(text), 'wss://signal.example.com:8443');
  // Either order, either part alone, a path prefix; the result is the one form.
  assert.equal(
    parseSignalUrl(`wss://h.example/papo#token=${TOKEN}&pin=${PIN}`, '--signal'),
    `wss://h.example/papo#pin=${PIN}&token=${TOKEN}`,
  );
  assert.deepEqual(parseSignalAddress(`https://h.example#pin=${PIN}`, 'invite'), {
    url: 'https://h.example',
    pin: PIN,
  });
  assert.deepEqual(parseSignalAddress(`ws://127.0.0.1:7450/#token=${TOKEN}`, 'invite'), {
    url: 'ws://127.0.0.1:7450',
    token: TOKEN,
  });
  // No fragment: as before.
  assert.deepEqual(parseSignalAddress('wss://signal.example.com/', '--signal'), {
    url: 'wss://signal.example.com',
  });
  for (const same of ['wss://h.example/#', 'wss://h.example#'])
    assert.equal(parseSignalUrl(same, '--signal'), 'wss://h.example');
});

test('a bad fragment is a clear error that never repeats the token', () => {
  const cases: [string, RegExp][] = [
    [`wss://h.example/#pin=sha256/short&token=${TOKEN}`, /the pin is not sha256\/ and 43 base64url/],
    [`wss://h.example/#pin=md5/${PIN.slice(7)}`, /the pin is not sha256/],
    // The last character of 43 carries 2 unused bits: only the one encoding of the 32 bytes.
    // ('B' is 000001: its last two bits are set, so it never ends a canonical pin.)
    [`wss://h.example/#pin=${PIN.slice(0, -1)}B`, /the pin is not sha256/],
    [`wss://h.example/#pin=${PIN}&pin=${PIN}`, /two pins/],
    [`wss://h.example/#token=${TOKEN}&token=other`, /two tokens/],
    ['wss://h.example/#token=', /the token must be/],
    ['wss://h.example/#token=has%20space', /the token must be/],
    ['wss://h.example/#secret=hunter2', /an unknown part "secret"/],
    [`ws://h.example/#pin=${PIN}`, /a pin is for wss:\/\/ or https:\/\//],
    [`ws://h.example/#token=${TOKEN}`, /would travel in clear/],
    [`http://10.0.0.5:7450/#token=${TOKEN}`, /would travel in clear/],
  ];
  for (const [text, pattern] of cases) {
    assert.throws(
      () => parseSignalAddress(text, '--signal'),
      (e) => isPapoError(e, 'invalid_signal_url') && pattern.test(e.message) && !e.message.includes(TOKEN),
      text,
    );
  }
  // The 255 bytes bound the whole address, fragment included.
  const long = `wss://${'a'.repeat(120)}.example/#pin=${PIN}&token=${'t'.repeat(100)}`;
  assert.throws(() => parseSignalAddress(long, '--signal'), /255 bytes/);
});

test('the invite carries the fragment; an invite without one (made before it) decodes as before', () => {
  const secret = generateSecret();
  const address = `wss://signal.example.com:8443/#pin=${PIN}&token=${TOKEN}`;
  const decoded = decodeInvite(encodeInvite(secret, address));
  assert.equal(decoded.signalUrl, address);
  assert.deepEqual(decoded.secret, secret);

  // An invite made by an older papo: the same bytes, a URL without a fragment.
  const body = new Uint8Array([...secret, ...new TextEncoder().encode('wss://old.example')]);
  const old = `papo1${base32Encode(new Uint8Array([...body, ...blake3(body).subarray(0, 4)]))}`;
  assert.equal(decodeInvite(old).signalUrl, 'wss://old.example');
  assert.deepEqual(parseSignalAddress(decodeInvite(old).signalUrl, 'invite'), { url: 'wss://old.example' });

  // A fragment papo cannot read: the invite is refused with what is wrong in it.
  const badBody = new Uint8Array([...secret, ...new TextEncoder().encode('wss://h.example/#what=1')]);
  const bad = `papo1${base32Encode(new Uint8Array([...badBody, ...blake3(badBody).subarray(0, 4)]))}`;
  assert.throws(
    () => decodeInvite(bad),
    (e) => isPapoError(e, 'invalid_invite') && /fragment papo cannot read/.test(e.message),
  );
});

test('the pin and token go with their own URL: PAPO_SIGNAL set to another server drops them', () => {
  const room = `wss://room.example/#pin=${PIN}&token=${TOKEN}`;
  assert.deepEqual(effectiveSignalAddress(room, {}), { url: 'wss://room.example', pin: PIN, token: TOKEN });
  assert.equal(effectiveSignalUrl(room, {}), 'wss://room.example');
  assert.deepEqual(effectiveSignalAddress(room, { PAPO_SIGNAL: 'wss://other.example' }), {
    url: 'wss://other.example',
  });
  assert.equal(
    signalTokenFor(effectiveSignalAddress(room, { PAPO_SIGNAL: 'wss://other.example' }), {}),
    undefined,
  );
});

test("a token in the address goes to that origin; PAPO_SIGNAL_TOKEN's for the origin wins", () => {
  const address = parseSignalAddress(`wss://room.example/#token=${TOKEN}`, 'invite');
  assert.equal(signalTokenFor(address, {}), TOKEN);
  assert.equal(signalTokenFor(address, { PAPO_SIGNAL_TOKEN: 'wss://room.example=mine' }), 'mine');
  assert.equal(signalTokenFor(address, { PAPO_SIGNAL_TOKEN: 'wss://elsewhere.example=theirs' }), TOKEN);
  // A URL without a token and PAPO_SIGNAL_TOKEN for it: as servers set up by hand always worked.
  assert.equal(
    signalTokenFor({ url: 'wss://hand.example' }, { PAPO_SIGNAL_TOKEN: 'wss://hand.example=abc' }),
    'abc',
  );
});
