// Flooding over the mesh (forwarding.ts): a frame is told apart by its nonce, handled once and
// forwarded once to the other neighbours (never back to the one it came from); our own frames
// coming back are not handled; and a neighbour's frames are within a budget (ADR 0062: bursts of
// 1,000, then 200 a second), past which they are dropped unopened and counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Forwarding,
  FRAME_BURST,
  FRAMES_PER_SECOND,
  fingerprintOf,
  SEEN_FRAMES_LIMIT,
} from '../../src/client/room/forwarding.js';
import { NONCE_BYTES } from '../../src/client/wire/room-crypto.js';

const NOW = 1_800_000_000_000;

/** A sealed frame as far as forwarding sees it: a nonce (from `n`) and some ciphertext. */
function frame(n: number): Uint8Array {
  const data = new Uint8Array(NONCE_BYTES + 16);
  new DataView(data.buffer).setUint32(0, n);
  data[NONCE_BYTES] = 0xee;
  return data;
}

/** Links to `neighbours` that record what is sent on them (the transport's seam). */
function forwarding(neighbours: string[]) {
  let now = NOW;
  const sent: { peer: string; n: number }[] = [];
  const logs: string[] = [];
  let flood = 0;
  const links = {
    send(peer: string, data: Uint8Array) {
      sent.push({ peer, n: new DataView(data.buffer, data.byteOffset).getUint32(0) });
      return true;
    },
    neighbours: () => neighbours,
  };
  const fwd = new Forwarding(links, {
    now: () => now,
    log: (line) => logs.push(line),
    onFlood: () => flood++,
  });
  const advance = (ms: number) => {
    now += ms;
  };
  /** Admits and accepts a frame from `peer`, as the node does with one that opened. */
  const receive = (peer: string, data: Uint8Array, forward = true): boolean => {
    const fingerprint = fwd.admit(peer, data);
    if (fingerprint === undefined) return false;
    fwd.accept(peer, data, fingerprint, forward);
    return true;
  };
  return { fwd, sent, logs, flooded: () => flood, advance, receive };
}

test('a frame is known by its nonce', () => {
  const a = frame(1);
  const b = frame(1);
  b[NONCE_BYTES] = 0x11;
  assert.equal(fingerprintOf(a), fingerprintOf(b));
  assert.notEqual(fingerprintOf(frame(1)), fingerprintOf(frame(2)));
  assert.equal(fingerprintOf(a).length, NONCE_BYTES * 2);
});

test('a frame is forwarded once to the other neighbours, never back to its sender', () => {
  const { sent, receive } = forwarding(['colega', 'terceiro', 'quarto']);
  assert.equal(receive('colega', frame(1)), true);
  assert.deepEqual(sent, [
    { peer: 'terceiro', n: 1 },
    { peer: 'quarto', n: 1 },
  ]);
  // The same frame through the others: neither handled nor forwarded again.
  assert.equal(receive('terceiro', frame(1)), false);
  assert.equal(receive('quarto', frame(1)), false);
  assert.equal(receive('colega', frame(1)), false);
  assert.equal(sent.length, 2);
});

test('a frame that stays on its link (catch-up) is handled but not forwarded', () => {
  const { sent, receive } = forwarding(['colega', 'terceiro']);
  assert.equal(receive('colega', frame(1), false), true);
  assert.deepEqual(sent, []);
  assert.equal(receive('terceiro', frame(1)), false, 'and it is still known');
});

test('a frame too short to hold a nonce is dropped', () => {
  const { fwd } = forwarding(['colega']);
  assert.equal(fwd.admit('colega', new Uint8Array(NONCE_BYTES - 1)), undefined);
  assert.equal(typeof fwd.admit('colega', frame(1)), 'string');
});

test('our own frames go to every neighbour (or one), and are not handled when they come back', () => {
  const { fwd, sent } = forwarding(['colega', 'terceiro']);
  fwd.broadcast(frame(1));
  fwd.sendTo('terceiro', frame(2));
  assert.deepEqual(sent, [
    { peer: 'colega', n: 1 },
    { peer: 'terceiro', n: 1 },
    { peer: 'terceiro', n: 2 },
  ]);
  assert.equal(fwd.admit('terceiro', frame(1)), undefined);
  assert.equal(fwd.admit('colega', frame(2)), undefined);
});

test('the frames remembered are bounded: the oldest is forgotten first', () => {
  const { fwd, receive } = forwarding(['colega']);
  fwd.broadcast(frame(0));
  for (let i = 1; i <= SEEN_FRAMES_LIMIT - 1; i++) fwd.broadcast(frame(i));
  assert.equal(fwd.admit('colega', frame(0)), undefined, 'still known at the limit');
  fwd.broadcast(frame(SEEN_FRAMES_LIMIT));
  assert.equal(receive('colega', frame(0)), true, 'the oldest was forgotten');
  assert.equal(receive('colega', frame(2)), false, 'the others are still known');
});

test("a neighbour's budget: a burst of 1,000 frames, then 200 a second; the rest dropped and counted", () => {
  const { fwd, logs, flooded, advance } = forwarding(['colega', 'terceiro']);
  let n = 0;
  const admitted = (peer: string, count: number) => {
    let ok = 0;
    for (let i = 0; i < count; i++) if (fwd.admit(peer, frame(n++)) !== undefined) ok++;
    return ok;
  };
  assert.equal(admitted('colega', FRAME_BURST + 500), FRAME_BURST);
  assert.equal(flooded(), 500);
  assert.equal(logs.length, 1, 'logged once per thousand dropped, not once a frame');
  // Another neighbour has its own budget.
  assert.equal(admitted('terceiro', 10), 10);
  // A second later, 200 more.
  advance(1_000);
  assert.equal(admitted('colega', 1_000), FRAMES_PER_SECOND);
  // A steady 200 a second gets through; a quiet while refills the burst, not more.
  advance(100);
  assert.equal(admitted('colega', 100), FRAMES_PER_SECOND / 10);
  advance(60_000);
  assert.equal(admitted('colega', 2 * FRAME_BURST), FRAME_BURST);
});

test('a link that closes and opens again starts with a fresh budget', () => {
  const { fwd } = forwarding(['colega']);
  let n = 0;
  for (let i = 0; i < FRAME_BURST; i++) fwd.admit('colega', frame(n++));
  assert.equal(fwd.admit('colega', frame(n++)), undefined);
  fwd.drop('colega');
  assert.equal(typeof fwd.admit('colega', frame(n++)), 'string');
});
