import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import {
  SIGNAL_DROP_REASONS,
  SIGNAL_WINDOW_MS,
  SignalOpener,
  sealSignal,
} from '../../src/client/net/signal-seal.js';
import { SIGNAL_AAD, seal } from '../../src/client/wire/room-crypto.js';

const key = new Uint8Array(randomBytes(32));
const alice = 'a'.repeat(64);
const bob = 'b'.repeat(64);
const carol = 'c'.repeat(64);
const now = 1_800_000_000_000;

test('a blob sealed for us by the claimed sender opens with its payload', () => {
  const opener = new SignalOpener(key, bob);
  const blob = sealSignal(key, alice, bob, { k: 'offer', sdp: 'v=0' }, now);
  assert.deepEqual(opener.open(blob, alice, now), {
    ok: true,
    from: alice,
    payload: { k: 'offer', sdp: 'v=0' },
  });
  assert.ok(Object.values(opener.dropped()).every((n) => n === 0));
});

test('bad blobs are dropped and counted by reason, never thrown', () => {
  const opener = new SignalOpener(key, bob);
  const good = sealSignal(key, alice, bob, { x: 1 }, now);
  const bytes = Buffer.from(good, 'base64');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
  const cases: [unknown, string, number, string][] = [
    [bytes.toString('base64'), alice, now, 'open_failed'], // tampered
    [sealSignal(new Uint8Array(randomBytes(32)), alice, bob, {}, now), alice, now, 'open_failed'], // other room
    [sealSignal(key, alice, carol, {}, now), alice, now, 'misaddressed'],
    [sealSignal(key, alice, bob, {}, now), carol, now, 'wrong_sender'], // server lies about sender
    [sealSignal(key, carol, bob, {}, now), alice, now, 'wrong_sender'],
    [sealSignal(key, alice, bob, {}, now - SIGNAL_WINDOW_MS - 1), alice, now, 'stale'],
    [sealSignal(key, alice, bob, {}, now + SIGNAL_WINDOW_MS + 1), alice, now, 'stale'],
    ['not base64 !!', alice, now, 'malformed'],
    [Buffer.alloc(30).toString('base64'), alice, now, 'malformed'],
    [42, alice, now, 'malformed'],
    [
      Buffer.from(seal(key, new TextEncoder().encode('[1,2]'), SIGNAL_AAD)).toString('base64'),
      alice,
      now,
      'bad_plaintext',
    ],
    [
      Buffer.from(seal(key, new Uint8Array([0xff, 0xfe]), SIGNAL_AAD)).toString('base64'),
      alice,
      now,
      'bad_plaintext',
    ],
  ];
  for (const [data, claimed, at, reason] of cases) {
    const result = opener.open(data, claimed, at);
    assert.deepEqual(result, { ok: false, reason }, `expected ${reason}`);
  }
  const counts = opener.dropped();
  assert.equal(counts.open_failed, 2);
  assert.equal(counts.misaddressed, 1);
  assert.equal(counts.wrong_sender, 2);
  assert.equal(counts.stale, 2);
  assert.equal(counts.malformed, 3);
  assert.equal(counts.bad_plaintext, 2);
  assert.equal(counts.replayed, 0);
});

test('a replayed blob is dropped within the window; its nonce is forgotten after', () => {
  const opener = new SignalOpener(key, bob);
  const blob = sealSignal(key, alice, bob, { k: 'cand' }, now);
  assert.equal(opener.open(blob, alice, now).ok, true);
  assert.deepEqual(opener.open(blob, alice, now + 1000), { ok: false, reason: 'replayed' });
  // Past the window the replay is stale, not replayed: either way it never opens twice.
  assert.deepEqual(opener.open(blob, alice, now + SIGNAL_WINDOW_MS + 1), { ok: false, reason: 'stale' });
  assert.equal(opener.dropped().replayed, 1);
  // Same payload sealed again (fresh nonce) is a new blob, not a replay.
  assert.equal(opener.open(sealSignal(key, alice, bob, { k: 'cand' }, now), alice, now).ok, true);
});

test('misuse throws at the boundary', () => {
  assert.throws(() => new SignalOpener(new Uint8Array(16), bob), RangeError);
  assert.throws(() => new SignalOpener(key, 'nothex'), TypeError);
  assert.throws(() => sealSignal(new Uint8Array(3), alice, bob, {}), RangeError);
});

/** A blob sealed with the room's signal key around any plaintext, as a member holding the key. */
function sealedText(text: string | Uint8Array): string {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  return Buffer.from(seal(key, bytes, SIGNAL_AAD)).toString('base64');
}

test('the drop reasons are the seven counted, in order', () => {
  const opener = new SignalOpener(key, bob);
  assert.deepEqual(SIGNAL_DROP_REASONS, [
    'malformed',
    'open_failed',
    'bad_plaintext',
    'misaddressed',
    'wrong_sender',
    'stale',
    'replayed',
  ]);
  assert.deepEqual(Object.keys(opener.dropped()), SIGNAL_DROP_REASONS);
});

test('base64 is checked whole: padding left off, or anything before or after a good blob, is malformed', () => {
  // A payload whose sealed form is not a multiple of 3 bytes, so its base64 ends in padding.
  let good = sealSignal(key, alice, bob, { k: 'x' }, now);
  for (let pad = 'x'; !good.endsWith('='); pad += 'x') good = sealSignal(key, alice, bob, { k: pad }, now);
  for (const data of [good.replace(/=+$/, ''), `!!!!${good}`, `${good}!!!!`, `${good.slice(0, -4)}!!!!`]) {
    const opener = new SignalOpener(key, bob);
    assert.deepEqual(opener.open(data, alice, now), { ok: false, reason: 'malformed' }, data.slice(-8));
  }
  assert.equal(new SignalOpener(key, bob).open(good, alice, now).ok, true);
});

test('what opens but is not the sealed JSON shape is bad plaintext, whatever it is', () => {
  const at = (ts: unknown) => JSON.stringify({ from: alice, to: bob, ts, payload: 1 });
  const cases: (string | Uint8Array)[] = [
    '', // the shortest blob there is: nonce and tag around nothing
    'null',
    '42',
    '"text"',
    JSON.stringify({ from: 5, to: bob, ts: now, payload: 1 }),
    JSON.stringify({ from: alice, to: 5, ts: now, payload: 1 }),
    JSON.stringify({ to: bob, ts: now, payload: 1 }),
    at(String(now)),
    at(null),
    at(now).replace(String(now), '1e400'), // Infinity once parsed
    // Valid JSON around a byte that is not UTF-8: a lenient decoder would read U+FFFD and accept it.
    new Uint8Array([
      ...new TextEncoder().encode(at(now).slice(0, -1)),
      ...new TextEncoder().encode(',"x":"'),
      0xff,
      0x22,
      0x7d,
    ]),
  ];
  for (const text of cases) {
    const opener = new SignalOpener(key, bob);
    assert.deepEqual(
      opener.open(sealedText(text), alice, now),
      { ok: false, reason: 'bad_plaintext' },
      String(text),
    );
  }
  assert.equal(Buffer.from(sealedText(''), 'base64').length, 40);
  // The same JSON with a valid last field opens: the cases above fail for what they say.
  const fine = sealedText(`${at(now).slice(0, -1)},"x":"y"}`);
  assert.equal(new SignalOpener(key, bob).open(fine, alice, now).ok, true);
});

test('the window includes its edges', () => {
  const opener = new SignalOpener(key, bob);
  assert.equal(opener.open(sealSignal(key, alice, bob, {}, now - SIGNAL_WINDOW_MS), alice, now).ok, true);
  assert.equal(opener.open(sealSignal(key, alice, bob, {}, now + SIGNAL_WINDOW_MS), alice, now).ok, true);
  const narrow = new SignalOpener(key, bob, 10);
  assert.equal(narrow.open(sealSignal(key, alice, bob, {}, now - 10), alice, now).ok, true);
  assert.deepEqual(narrow.open(sealSignal(key, alice, bob, {}, now - 11), alice, now), {
    ok: false,
    reason: 'stale',
  });
});

test('misuse is refused with words that say what is wrong', () => {
  assert.throws(() => new SignalOpener(new Uint8Array(31), bob), {
    name: 'RangeError',
    message: 'signal key must be 32 bytes',
  });
  assert.throws(() => new SignalOpener(key, 'A'.repeat(64)), {
    name: 'TypeError',
    message: 'local id must be 64 lower-case hex characters',
  });
  assert.throws(() => sealSignal(new Uint8Array(33), alice, bob, {}), {
    name: 'RangeError',
    message: 'signal key must be 32 bytes',
  });
});
