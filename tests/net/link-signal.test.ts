// The one parser of what meshes and links send each other (src/client/net/link-signal.ts): a knock,
// the three signals of a link attempt, and nothing else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KNOCK, parseMeshSignal } from '../../src/client/net/link-signal.js';

const link = '0123456789abcdef';

test('a knock is a knock, whatever else a peer puts in it', () => {
  assert.deepEqual(parseMeshSignal({ k: 'knock' }), KNOCK);
  assert.deepEqual(parseMeshSignal({ k: 'knock', link: 'not hex', extra: [1] }), { k: 'knock' });
});

test('the signals of a link attempt come out as they went in', () => {
  for (const signal of [
    { k: 'offer', link, sdp: 'v=0' },
    { k: 'answer', link, sdp: 'v=0' },
    { k: 'cand', link, cand: 'candidate:1 1 UDP 1 127.0.0.1 9 typ host', mid: '0' },
  ]) {
    assert.deepEqual(parseMeshSignal({ ...signal, more: 'ignored' }), signal);
  }
});

test('anything else is refused, never thrown', () => {
  const bad: unknown[] = [
    null,
    'knock',
    42,
    [],
    {},
    { k: 'offer', sdp: 'v=0' },
    { k: 'offer', link: '0123', sdp: 'v=0' },
    { k: 'offer', link: link.toUpperCase(), sdp: 'v=0' },
    { k: 'offer', link, sdp: '' },
    { k: 'answer', link, sdp: 'x'.repeat(32 * 1024 + 1) },
    { k: 'cand', link, cand: 'x'.repeat(1025), mid: '0' },
    { k: 'cand', link, cand: 'c', mid: 'm'.repeat(65) },
    { k: 'cand', link, cand: 'c' },
    { k: 'bye', link },
  ];
  for (const payload of bad) assert.equal(parseMeshSignal(payload), undefined, JSON.stringify(payload));
});
