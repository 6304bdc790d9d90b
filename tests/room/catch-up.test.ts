// Catch-up's bounds (ADR 0063): what a member holds for others, what its digest says, what it sends
// a peer in answer (only what the peer lacks and may read, within the per-link bounds), and the
// pace over all links.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CATCH_UP_BYTES_PER_SECOND,
  CATCH_UP_LINK_BYTES,
  CATCH_UP_MESSAGES,
  CATCH_UP_MESSAGES_PER_SECOND,
  CATCH_UP_WINDOW_MS,
  CatchUpPacer,
  digestOf,
  missingFor,
  RecentMessages,
} from '../../src/client/room/catch-up.js';
import { decodeFrame, encodeFrame, MAX_BODY_BYTES, sealFrame } from '../../src/client/wire/frames.js';
import type { Envelope } from '../../src/client/wire/messages.js';
import { generateSecret } from '../../src/client/wire/room-crypto.js';

const NOW = 1_800_000_000_000;
const VOCE = 'a'.repeat(64);
const TERCEIRO = 'c'.repeat(64);

function msg(n: number, extra: Partial<Envelope> = {}): Envelope {
  return {
    id: n.toString(16).padStart(10, '0'),
    from: 'voce',
    node: VOCE,
    kind: 'agent',
    ts: NOW - 1000 + n,
    body: `message ${n}`,
    ...extra,
  };
}

test('held: the last 200 messages of the last 24 h, bodies at most 4 MiB', () => {
  const recent = new RecentMessages(() => NOW);
  for (let i = 0; i < 250; i++) recent.add(msg(i));
  const held = recent.messages();
  assert.equal(held.length, CATCH_UP_MESSAGES);
  assert.equal(held[0]?.id, msg(50).id, 'the oldest went first');
  recent.add(msg(249));
  assert.equal(recent.messages().length, CATCH_UP_MESSAGES, 'a message is held once');

  const old = new RecentMessages(() => NOW);
  old.add(msg(1, { ts: NOW - CATCH_UP_WINDOW_MS - 1 }));
  old.add(msg(2));
  assert.deepEqual(
    old.messages().map((m) => m.id),
    [msg(2).id],
  );

  const big = new RecentMessages(() => NOW);
  for (let i = 0; i < 100; i++) big.add(msg(i, { body: 'x'.repeat(MAX_BODY_BYTES) }));
  assert.ok(big.messages().length * MAX_BODY_BYTES <= 4 * 1024 * 1024);

  const loaded = new RecentMessages(() => NOW);
  loaded.load([
    { ev: 'out', msg: msg(1) },
    { ev: 'delivered', id: msg(1).id, by: 'colega', ts: NOW },
    { ev: 'in', msg: msg(2, { from: 'colega', node: 'b'.repeat(64) }) },
  ]);
  assert.deepEqual(
    loaded.messages().map((m) => m.id),
    [msg(1).id, msg(2).id],
  );
});

test('digest: the ids held, since when the member joined or 24 h ago, or its oldest when full', () => {
  const few = [msg(1), msg(2)];
  assert.deepEqual(digestOf(few, NOW - 5000, NOW), {
    t: 'have',
    since: NOW - 5000,
    ids: [msg(1).id, msg(2).id],
  });
  assert.equal(digestOf(few, 0, NOW).since, NOW - CATCH_UP_WINDOW_MS);
  const full = Array.from({ length: CATCH_UP_MESSAGES }, (_, i) => msg(i));
  assert.equal(digestOf(full, 0, NOW).since, msg(0).ts);
  // It is a valid frame, within the 64 KiB a sealed frame may take.
  const frame = { ...digestOf(full, 0, NOW), node: TERCEIRO };
  assert.deepEqual(decodeFrame(encodeFrame(frame)), frame);
  assert.ok(sealFrame(generateSecret(), frame).length < 8 * 1024);
});

test('answer: what the peer lacks and may read, never its own, from its since on', () => {
  const held = [
    msg(1), // to the room: sent
    msg(2, { to: 'terceiro' }), // to the peer: sent
    msg(3, { to: 'colega' }), // to another: never
    msg(4, { node: TERCEIRO, from: 'terceiro' }), // the peer's own: never
    msg(5), // the peer has it
    msg(6, { ts: NOW - 60_000 }), // before the peer's since
  ];
  const have = { t: 'have' as const, since: NOW - 30_000, ids: [msg(5).id] };
  assert.deepEqual(
    missingFor(held, have, { node: TERCEIRO, name: 'Terceiro' }).map((m) => m.id),
    [msg(1).id, msg(2).id],
  );
  // Before its hello: the room's messages only.
  assert.deepEqual(
    missingFor(held, have, { node: TERCEIRO, name: undefined }).map((m) => m.id),
    [msg(1).id],
  );
});

test('answer bounds: at most 200 messages and 1 MiB of bodies on one link', () => {
  const many = Array.from({ length: 300 }, (_, i) => msg(i));
  const have = { t: 'have' as const, since: 0, ids: [] };
  assert.equal(missingFor(many, have, { node: TERCEIRO, name: 'terceiro' }).length, CATCH_UP_MESSAGES);
  const big = Array.from({ length: 100 }, (_, i) => msg(i, { body: 'x'.repeat(MAX_BODY_BYTES) }));
  const sent = missingFor(big, have, { node: TERCEIRO, name: 'terceiro' });
  assert.equal(sent.length, Math.floor(CATCH_UP_LINK_BYTES / MAX_BODY_BYTES));
});

test('frames: have is validated field by field; missed carries a msg’s fields', () => {
  assert.throws(() => decodeFrame('{"t":"have","since":-1,"ids":[]}'), /since/);
  assert.throws(() => decodeFrame('{"t":"have","since":1,"ids":["nothex"]}'), /ids/);
  assert.throws(
    () => decodeFrame(JSON.stringify({ t: 'have', since: 1, ids: Array(201).fill('0123456789') })),
    /ids/,
  );
  assert.throws(() => decodeFrame('{"t":"have","since":1}'), /ids/);
  const m = msg(7, { to: 'terceiro' });
  const missed = decodeFrame(encodeFrame({ t: 'missed', ...m }));
  assert.deepEqual(missed, { t: 'missed', ...m });
  assert.throws(() => decodeFrame(JSON.stringify({ t: 'missed', ...m, id: 'x' })), /id/);
});

test('pace: at most 50 messages and 256 KiB a second over all links; a closed link’s share is dropped', async () => {
  let now = NOW;
  const sent: string[] = [];
  const pacer = new CatchUpPacer(
    (peer, m) => sent.push(`${peer}:${m.id}`),
    () => now,
  );
  pacer.enqueue(
    'p1',
    Array.from({ length: 80 }, (_, i) => msg(i)),
  );
  pacer.enqueue(
    'p2',
    Array.from({ length: 20 }, (_, i) => msg(100 + i)),
  );
  assert.equal(sent.length, CATCH_UP_MESSAGES_PER_SECOND, 'a second’s worth at once');
  pacer.drop('p2');
  now += 1000;
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(sent.length, 80, 'the rest of p1 a second later; nothing for p2');
  assert.ok(sent.every((s) => s.startsWith('p1:')));

  const bytes: number[] = [];
  const big = new CatchUpPacer(
    (_p, m) => bytes.push(m.body.length),
    () => now,
  );
  big.enqueue(
    'p1',
    Array.from({ length: 20 }, (_, i) => msg(i, { body: 'x'.repeat(MAX_BODY_BYTES) })),
  );
  assert.ok(bytes.reduce((a, b) => a + b, 0) <= CATCH_UP_BYTES_PER_SECOND);
  assert.equal(bytes.length, Math.floor(CATCH_UP_BYTES_PER_SECOND / MAX_BODY_BYTES));
  big.close();
  pacer.close();
});
