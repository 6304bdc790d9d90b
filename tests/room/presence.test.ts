// Who is in the room and who is online (presence.ts): online while a link is open or heard from
// within 75 s, offline at once on a goodbye, each change reported once; members remembered
// (peers.json) never include ephemeral runs; and at most 256 are remembered (ADR 0062), a new one
// only once one heard from longest ago is offline.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LinkPath, MemberStatus } from '../../src/client/member-api.js';
import {
  type KnownPeer,
  MAX_KNOWN_PEERS,
  ONLINE_WINDOW_MS,
  Presence,
} from '../../src/client/room/presence.js';
import type { HelloFrame } from '../../src/client/wire/frames.js';

const NOW = 1_800_000_000_000;
const SELF = '0'.repeat(64);
const COLEGA = 'b'.repeat(64);
const TERCEIRO = 'c'.repeat(64);
const SAY = 'd'.repeat(64);
/** A neighbour that forwards the others' frames (it is in no test's members). */
const RELAY = 'f'.repeat(64);

function node(n: number): string {
  return `e${n.toString(16).padStart(63, '0')}`;
}

function hello(node: string, name: string, extra: Partial<HelloFrame> = {}): HelloFrame {
  return { t: 'hello', node, name, kind: 'agent', ephemeral: false, ts: NOW, ...extra };
}

/**
 * Presence over links the test opens and closes (one to RELAY open from the start: the others are
 * heard through it), a manual clock, and the events it reported.
 */
function presence(known: Record<string, KnownPeer> = {}) {
  let now = NOW;
  const links = new Map<string, LinkPath>([[RELAY, 'direct']]);
  const events: string[] = [];
  const p = new Presence({
    self: SELF,
    links: { neighbours: () => [...links.keys()], path: (peer) => links.get(peer) },
    known: () => known,
    now: () => now,
    online: (m: MemberStatus) => events.push(`online ${m.name}`),
    offline: (m: MemberStatus) => events.push(`offline ${m.name}`),
  });
  const advance = (ms: number) => {
    now += ms;
  };
  return { p, links, known, events, advance };
}

test('members: remembered and heard, never this member nor an ephemeral run, ordered by name', () => {
  const { p, links } = presence({
    [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: NOW - 3_600_000 },
    [SELF]: { name: 'voce', kind: 'agent', lastSeen: NOW },
  });
  p.hello(hello(COLEGA, 'colega', { about: 'the parser' }), true);
  p.hello(hello(SAY, 'voce', { kind: 'human', ephemeral: true }), true);
  links.set(COLEGA, 'relay');
  assert.deepEqual(p.members(), [
    { name: 'colega', node: COLEGA, kind: 'agent', about: 'the parser', online: true, path: 'relay' },
    { name: 'terceiro', node: TERCEIRO, kind: 'agent', online: false },
  ]);
  // Those seen right now include the say run.
  assert.deepEqual(
    p
      .liveMembers()
      .map((m) => `${m.name} (${m.kind})`)
      .sort(),
    ['colega (agent)', 'voce (human)'],
  );
  assert.deepEqual(p.onlineNames(), ['colega']);
});

test('online while a link is open, or heard from within 75 s', () => {
  const { p, links, advance } = presence();
  links.set(COLEGA, 'direct');
  assert.equal(p.isOnline(COLEGA), true, 'a link is enough');
  links.delete(COLEGA);
  assert.equal(p.isOnline(COLEGA), false);
  p.hello(hello(TERCEIRO, 'terceiro'), true);
  advance(ONLINE_WINDOW_MS);
  assert.equal(p.isOnline(TERCEIRO), true);
  // A message first-hand keeps it online.
  p.heardFrom(TERCEIRO);
  advance(ONLINE_WINDOW_MS);
  assert.equal(p.isOnline(TERCEIRO), true);
  advance(1);
  assert.equal(p.isOnline(TERCEIRO), false);
});

test('with no link at all, a member heard from lately is offline: nothing could carry it (a room of two whose link closed)', () => {
  const { p, links, events, advance } = presence();
  p.hello(hello(COLEGA, 'colega'), true);
  links.set(COLEGA, 'direct');
  p.update();
  links.clear();
  advance(1_000);
  assert.equal(p.isOnline(COLEGA), false);
  p.update();
  assert.deepEqual(events, ['online colega', 'offline colega']);
  // A link to another member that may forward it: heard 1 s ago counts again.
  links.set(RELAY, 'direct');
  assert.equal(p.isOnline(COLEGA), true);
  assert.equal(p.members().find((m) => m.node === COLEGA)?.path, undefined);
});

test('a goodbye makes a member offline at once; an ephemeral run is forgotten', () => {
  const { p } = presence();
  p.hello(hello(COLEGA, 'colega'), true);
  p.hello(hello(SAY, 'voce', { kind: 'human', ephemeral: true }), false);
  p.left(COLEGA);
  p.left(SAY);
  assert.equal(p.isOnline(COLEGA), false);
  assert.ok(p.live(COLEGA), 'it is still known');
  assert.equal(p.live(SAY), undefined);
  // Its next hello brings it back.
  p.hello(hello(COLEGA, 'colega'), true);
  assert.equal(p.isOnline(COLEGA), true);
});

test('each change is reported once', () => {
  const { p, events, advance } = presence();
  p.update();
  assert.deepEqual(events, []);
  p.hello(hello(COLEGA, 'colega'), true);
  p.update();
  p.update();
  assert.deepEqual(events, ['online colega']);
  advance(ONLINE_WINDOW_MS + 1);
  p.update();
  p.update();
  assert.deepEqual(events, ['online colega', 'offline colega']);
});

test('remembered: a durable member only, and a change is what a person would see', () => {
  const { p, known, advance } = presence();
  assert.deepEqual(p.hello(hello(COLEGA, 'colega'), true), { heard: true, changed: true });
  assert.deepEqual(known[COLEGA], { name: 'colega', kind: 'agent', lastSeen: NOW });
  advance(1_000);
  // Seen again: lastSeen only, nothing a person would see.
  assert.deepEqual(p.hello(hello(COLEGA, 'colega'), true), { heard: true, changed: false });
  assert.equal(known[COLEGA]?.lastSeen, NOW + 1_000);
  assert.deepEqual(p.hello(hello(COLEGA, 'colega', { about: 'tests' }), true), {
    heard: true,
    changed: true,
  });
  // An ephemeral run, or a member that remembers nobody (ephemeral itself), keeps no record.
  assert.deepEqual(p.hello(hello(SAY, 'voce', { kind: 'human', ephemeral: true }), true), {
    heard: true,
    changed: false,
  });
  assert.deepEqual(p.hello(hello(TERCEIRO, 'terceiro'), false), { heard: true, changed: false });
  assert.deepEqual(Object.keys(known), [COLEGA]);
});

test('forget: the members remembered under a name, and the live one if offline', () => {
  const { p, known, links } = presence({
    [COLEGA]: { name: 'colega', kind: 'agent', lastSeen: NOW - 3_600_000 },
    [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: NOW },
  });
  p.hello(hello(TERCEIRO, 'terceiro'), true);
  links.set(TERCEIRO, 'direct');
  assert.equal(
    p.forget((n) => n === 'colega'),
    1,
  );
  assert.deepEqual(Object.keys(known), [TERCEIRO]);
  assert.equal(
    p.forget((n) => n === 'terceiro'),
    1,
  );
  assert.ok(p.live(TERCEIRO), 'one online stays live (its next hello brings it back)');
  assert.deepEqual(known, {});
});

test('at most 256 members: while all are online a newcomer is not heard; then the oldest makes room', () => {
  const { p, known, advance } = presence();
  for (let i = 0; i < MAX_KNOWN_PEERS; i++) {
    assert.equal(p.hello(hello(node(i), `m${i}`), true).heard, true);
    advance(10);
  }
  assert.equal(Object.keys(known).length, MAX_KNOWN_PEERS);
  assert.deepEqual(p.hello(hello(COLEGA, 'colega'), true), { heard: false, changed: false });
  assert.equal(p.live(COLEGA), undefined);
  // One already heard is heard again at the cap.
  assert.equal(p.hello(hello(node(5), 'm5'), true).heard, true);
  // Once the first ones age out, a newcomer takes the place of the one heard from longest ago.
  advance(ONLINE_WINDOW_MS - (MAX_KNOWN_PEERS - 1) * 10 + 1);
  assert.equal(p.isOnline(node(0)), false);
  assert.deepEqual(p.hello(hello(COLEGA, 'colega'), true), { heard: true, changed: true });
  assert.equal(Object.keys(known).length, MAX_KNOWN_PEERS);
  assert.equal(node(0) in known, false);
  assert.equal(p.live(node(0)), undefined);
  assert.equal(p.liveMembers().length, MAX_KNOWN_PEERS);
});
