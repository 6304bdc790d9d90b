import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { SIGNAL_AAD, seal } from '../../src/client/room-crypto.js';
import { SIGNAL_WINDOW_MS, SignalOpener, sealSignal } from '../../src/client/signal-seal.js';

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
