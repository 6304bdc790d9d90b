// Names held by keys (ADR 0064): the first key the room shows with a name holds it, per kind; a
// frame that claims it with another key is an impostor's (refused, remembered, its key told at most
// once every 30 s); names.json and the impostors remembered are bounded (ADR 0062).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Impostor } from '../../src/client/member-api.js';
import {
  KnownNames,
  MAX_IMPOSTORS,
  MAX_KNOWN_NAMES,
  NameGuard,
  TELL_IMPOSTOR_EVERY_MS,
} from '../../src/client/room/member-names.js';

const NOW = 1_800_000_000_000;
const VOCE = 'a'.repeat(64);
const COLEGA = 'b'.repeat(64);
const FORGER = 'f'.repeat(64);

function key(n: number): string {
  return n.toString(16).padStart(64, '0');
}

test('the first key holds a name, per kind and whatever its case; another key is refused', () => {
  const names = new KnownNames();
  assert.equal(names.claim('voce', 'agent', VOCE), 'new');
  assert.equal(names.claim('voce', 'agent', VOCE), 'held');
  assert.equal(names.claim('VOCE', 'agent', VOCE), 'held');
  assert.equal(names.claim('Voce', 'agent', FORGER), 'taken');
  assert.equal(names.holder('voce', 'agent'), VOCE, 'a refused claim changes nothing');
  // "voce (human)" is another name: the person signs with their own key.
  assert.equal(names.claim('voce', 'human', COLEGA), 'new');
  assert.equal(names.holder('voce', 'human'), COLEGA);
  assert.equal(names.holder('colega', 'agent'), undefined);
});

test('names.json: what was saved is held; changed until saved(); junk entries are ignored', () => {
  const names = new KnownNames({ 'voce (agent)': VOCE, 'colega (agent)': 7 as unknown as string });
  assert.equal(names.changed, false);
  assert.equal(names.claim('voce', 'agent', FORGER), 'taken');
  assert.equal(names.holder('colega', 'agent'), undefined);
  names.claim('colega', 'agent', COLEGA);
  assert.equal(names.changed, true);
  assert.deepEqual(names.saved(), { 'voce (agent)': VOCE, 'colega (agent)': COLEGA });
  assert.equal(names.changed, false);
});

test('forget lets a name go, both kinds: the next key holds it', () => {
  const names = new KnownNames({ 'voce (agent)': VOCE, 'voce (human)': COLEGA });
  assert.equal(names.forget('Voce'), true);
  assert.equal(names.changed, true);
  assert.deepEqual(names.saved(), {});
  assert.equal(names.claim('voce', 'agent', FORGER), 'new');
  assert.equal(names.forget('nobody'), false);
  assert.equal(names.changed, true, 'the claim after forget is still to be saved');
});

test('past 1,024 names, new ones are held in memory only, and never push out the first', () => {
  const names = new KnownNames();
  for (let i = 0; i < MAX_KNOWN_NAMES; i++) names.claim(`name${i}`, 'agent', key(i));
  names.saved();
  // A flood of forged names.
  for (let i = 0; i < 3 * MAX_KNOWN_NAMES; i++) {
    assert.equal(names.claim(`forged${i}`, 'agent', key(100_000 + i)), 'new');
  }
  assert.equal(names.changed, false, 'names.json is not rewritten for them');
  assert.equal(Object.keys(names.saved()).length, MAX_KNOWN_NAMES);
  assert.equal(names.holder('name0', 'agent'), key(0), 'the first names stay held');
  assert.equal(names.claim('name0', 'agent', FORGER), 'taken');
  // Those in memory are held while remembered; the oldest of them go first.
  const last = 3 * MAX_KNOWN_NAMES - 1;
  assert.equal(names.holder(`forged${last}`, 'agent'), key(100_000 + last));
  assert.equal(names.holder('forged0', 'agent'), undefined);
});

/** A NameGuard over `names`, and what it asked of the node. */
function guarding(names = new KnownNames({ 'voce (agent)': VOCE }), mayTell = () => true) {
  let now = NOW;
  const seen = { held: 0, refused: [] as { impostor: Impostor; first: boolean }[], told: [] as string[] };
  const guard = new NameGuard(names, {
    now: () => now,
    held: () => seen.held++,
    refused: (impostor, first) => seen.refused.push({ impostor: { ...impostor }, first }),
    mayTell,
    tell: (node, msgId) => seen.told.push(`${node.slice(0, 4)} ${msgId ?? '-'}`),
  });
  const advance = (ms: number) => {
    now += ms;
  };
  return { guard, names, seen, advance };
}

test('the guard: the holder and a newcomer may speak; a new name held is to be saved', () => {
  const { guard, seen } = guarding();
  assert.equal(guard.owns('voce', 'agent', VOCE), true);
  assert.equal(seen.held, 0, 'a name already held changes nothing');
  assert.equal(guard.owns('colega', 'agent', COLEGA), true);
  assert.equal(seen.held, 1);
  assert.deepEqual(seen.refused, []);
  assert.deepEqual(guard.impostors(), []);
});

test('an impostor is refused, remembered, and told once every 30 s', () => {
  const { guard, seen, advance } = guarding();
  assert.equal(guard.owns('voce', 'agent', FORGER, '0000000001'), false);
  assert.equal(seen.held, 0);
  assert.deepEqual(seen.told, ['ffff 0000000001']);
  advance(1_000);
  assert.equal(guard.owns('VOCE', 'agent', FORGER, '0000000002'), false);
  assert.equal(guard.owns('voce', 'agent', FORGER), false);
  assert.deepEqual(
    seen.refused.map((r) => r.first),
    [true, false, false],
    'every frame is refused; the first is the one logged',
  );
  assert.deepEqual(guard.impostors(), [
    { name: 'voce', kind: 'agent', node: FORGER, first: NOW, last: NOW + 1_000, frames: 3 },
  ]);
  assert.deepEqual(seen.told, ['ffff 0000000001'], 'told once, not once a frame');
  advance(TELL_IMPOSTOR_EVERY_MS - 1_000);
  guard.owns('voce', 'agent', FORGER, '0000000003');
  assert.deepEqual(seen.told, ['ffff 0000000001', 'ffff 0000000003'], 'and again 30 s later');
  // The name stays with its first key.
  assert.equal(guard.owns('voce', 'agent', VOCE), true);
});

test('an ephemeral or closed member tells no impostor, but still refuses it', () => {
  let mayTell = false;
  const { guard, seen } = guarding(undefined, () => mayTell);
  assert.equal(guard.owns('voce', 'agent', FORGER), false);
  assert.deepEqual(seen.told, []);
  assert.equal(guard.impostors().length, 1);
  // Not having told it, a member that may tell does so at its next frame.
  mayTell = true;
  guard.owns('voce', 'agent', FORGER);
  assert.equal(seen.told.length, 1);
});

test('impostors remembered are bounded: past 64, the first seen is forgotten', () => {
  const names = new KnownNames();
  for (let i = 0; i < MAX_IMPOSTORS + 10; i++) names.claim(`name${i}`, 'agent', key(i));
  const { guard, seen } = guarding(names);
  for (let i = 0; i < MAX_IMPOSTORS + 10; i++) guard.owns(`name${i}`, 'agent', FORGER);
  const kept = guard.impostors();
  assert.equal(kept.length, MAX_IMPOSTORS);
  assert.equal(kept[0]?.name, 'name10', 'the oldest went first');
  assert.equal(kept.at(-1)?.name, `name${MAX_IMPOSTORS + 9}`, 'newest last');
  // One key claiming many names is told once.
  assert.equal(seen.told.length, 1);
  // Many keys: each is told (the memory of whom we told is bounded too).
  const many = guarding();
  for (let i = 0; i < 3 * MAX_IMPOSTORS; i++) many.guard.owns('voce', 'agent', key(1_000 + i));
  assert.equal(many.seen.told.length, 3 * MAX_IMPOSTORS);
  assert.equal(many.guard.impostors().length, MAX_IMPOSTORS);
});

test('our name taken: remembered from the first member that says so', () => {
  const { guard } = guarding();
  assert.equal(guard.nameTakenBy(), undefined);
  assert.equal(guard.nameTaken('colega'), true, 'the first time is logged');
  assert.equal(guard.nameTaken('terceiro'), false);
  assert.equal(guard.nameTakenBy(), 'colega');
});
