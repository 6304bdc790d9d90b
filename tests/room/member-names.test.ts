// Names held by keys (ADR 0064): the first key the room shows with a name holds it, per kind; a
// frame that claims it with another key is an impostor's (refused, remembered, its key told at most
// once every 30 s); names.json and the impostors remembered are bounded (ADR 0062), and no flood
// takes a name that spoke or a known member's (ADR 0092).
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
  const names = new KnownNames({
    'voce (agent)': { node: VOCE, spoke: true },
    // Written before ADR 0092: the node id alone, held but not known to have spoken.
    'voce (human)': COLEGA,
    'colega (agent)': 7,
    'a (agent)': null,
    'b (agent)': { node: 7 },
    'c (agent)': { spoke: true },
    'd (agent)': { node: FORGER, spoke: 'yes' },
  });
  assert.equal(names.changed, false);
  assert.equal(names.claim('voce', 'agent', FORGER), 'taken');
  assert.equal(names.holder('voce', 'human'), COLEGA);
  for (const junk of ['colega', 'a', 'b', 'c']) assert.equal(names.holder(junk, 'agent'), undefined, junk);
  names.claim('colega', 'agent', COLEGA);
  assert.equal(names.changed, true);
  assert.deepEqual(names.saved(), {
    'voce (agent)': { node: VOCE, spoke: true },
    'voce (human)': { node: COLEGA },
    'd (agent)': { node: FORGER },
    'colega (agent)': { node: COLEGA },
  });
  assert.equal(names.changed, false);
});

test('forget lets a name go, both kinds: the next key holds it', () => {
  const names = new KnownNames({ 'voce (agent)': VOCE, 'voce (human)': { node: COLEGA, spoke: true } });
  assert.equal(names.forget('Voce'), true);
  assert.equal(names.changed, true);
  assert.deepEqual(names.saved(), {});
  assert.equal(names.claim('voce', 'agent', FORGER), 'new');
  assert.equal(names.forget('nobody'), false);
  assert.equal(names.changed, true, 'the claim after forget is still to be saved');
  names.saved();
  assert.equal(names.forget('nobody'), false);
  assert.equal(names.changed, false, 'forgetting nobody changes nothing');
});

/** KnownNames full of `m0`..`m1023`, saved (m0 shown least recently). */
function fullNames(): KnownNames {
  const names = new KnownNames();
  for (let i = 0; i < MAX_KNOWN_NAMES; i++) assert.equal(names.claim(`m${i}`, 'agent', key(i)), 'new');
  names.saved();
  return names;
}

test('past 1,024 names, a new one takes the place of the name shown least recently; every name is saved', () => {
  const names = fullNames();
  assert.equal(names.judge('new0', 'agent', FORGER), 'new');
  assert.equal(names.changed, false, 'judging changes nothing');
  assert.equal(names.holder('m0', 'agent'), key(0));
  // m0 is shown again (its key's hello): m1 is now the one shown least recently.
  assert.equal(names.claim('M0', 'agent', key(0)), 'held');
  assert.equal(names.changed, true, 'the order is saved too');
  assert.equal(names.claim('new0', 'agent', FORGER), 'new');
  assert.equal(names.holder('m1', 'agent'), undefined);
  assert.equal(names.holder('m0', 'agent'), key(0));
  const saved = names.saved();
  assert.equal(Object.keys(saved).length, MAX_KNOWN_NAMES, 'never more than the cap, never in memory only');
  assert.deepEqual(
    Object.keys(saved).slice(-2),
    ['m0 (agent)', 'new0 (agent)'],
    'least recently shown first',
  );
  // What was saved comes back in the same order: after a restart, m2 goes next.
  const again = new KnownNames(saved);
  again.claim('new1', 'agent', FORGER);
  assert.equal(again.holder('m2', 'agent'), undefined);
  assert.equal(again.holder('m3', 'agent'), key(3));
  // The name shown last shown again changes nothing to save.
  again.saved();
  assert.equal(again.claim('new1', 'agent', FORGER), 'held');
  assert.equal(again.changed, false);
});

test('a name that spoke, and a spared key’s name, are never given up; with no other, a new name is refused', () => {
  const names = fullNames();
  for (let i = 0; i < MAX_KNOWN_NAMES - 2; i++) assert.equal(names.pin(`m${i}`, 'agent', key(i)), true);
  const spared = (node: string) => node === key(MAX_KNOWN_NAMES - 2);
  // A flood of new names: each takes the place of the last name neither spoke nor spared.
  for (let i = 0; i < 3 * MAX_KNOWN_NAMES; i++) {
    const verdict = names.judge(`forged${i}`, 'agent', key(100_000 + i), spared);
    assert.equal(names.claim(`forged${i}`, 'agent', key(100_000 + i), spared), verdict);
    assert.equal(verdict, 'new');
  }
  for (let i = 0; i < MAX_KNOWN_NAMES - 1; i++) assert.equal(names.holder(`m${i}`, 'agent'), key(i), `m${i}`);
  assert.equal(names.holder(`m${MAX_KNOWN_NAMES - 1}`, 'agent'), undefined);
  // Once the newest forged name spoke too, nothing is left to give up: new names are refused.
  const last = 3 * MAX_KNOWN_NAMES - 1;
  assert.equal(names.pin(`forged${last}`, 'agent', key(100_000 + last)), true);
  names.saved();
  assert.equal(names.judge('dave', 'agent', COLEGA, spared), 'full');
  assert.equal(names.claim('dave', 'agent', COLEGA, spared), 'full');
  assert.equal(names.holder('dave', 'agent'), undefined);
  assert.equal(names.changed, false);
  // The spared key's name is given up once its key is not spared any more.
  assert.equal(names.claim('dave', 'agent', COLEGA), 'new');
  assert.equal(names.holder(`m${MAX_KNOWN_NAMES - 2}`, 'agent'), undefined);
  // A held name and a taken one are answered as ever, full or not.
  assert.equal(names.claim('m0', 'agent', key(0)), 'held');
  assert.equal(names.judge('m0', 'agent', FORGER), 'taken');
});

test('pin: only by the key that holds the name, once; unpin undoes it; own holds and pins', () => {
  const names = new KnownNames({ 'voce (agent)': VOCE });
  assert.equal(names.pin('colega', 'agent', COLEGA), false, 'a name nobody holds');
  assert.equal(names.pin('voce', 'agent', FORGER), false, 'another key');
  assert.equal(names.changed, false);
  assert.equal(names.pin('Voce', 'agent', VOCE), true);
  assert.equal(names.changed, true);
  assert.equal(names.pin('voce', 'agent', VOCE), false, 'pinned already');
  assert.deepEqual(names.saved(), { 'voce (agent)': { node: VOCE, spoke: true } });
  names.unpin('voce', 'agent', FORGER);
  names.unpin('colega', 'agent', COLEGA);
  assert.equal(names.changed, false);
  names.unpin('voce', 'agent', VOCE);
  assert.equal(names.changed, true);
  assert.deepEqual(names.saved(), { 'voce (agent)': { node: VOCE } });
  names.unpin('voce', 'agent', VOCE);
  assert.equal(names.changed, false, 'not pinned: nothing to undo');
  names.own('colega', 'human', COLEGA);
  assert.deepEqual(names.saved(), {
    'voce (agent)': { node: VOCE },
    'colega (human)': { node: COLEGA, spoke: true },
  });
});

test('a names.json longer than the cap is read up to the cap', () => {
  const saved: Record<string, string> = {};
  for (let i = 0; i <= MAX_KNOWN_NAMES; i++) saved[`m${i} (agent)`] = key(i);
  saved['junk (agent)'] = 7 as unknown as string;
  const names = new KnownNames(saved);
  assert.equal(Object.keys(names.saved()).length, MAX_KNOWN_NAMES);
  assert.equal(names.holder(`m${MAX_KNOWN_NAMES - 1}`, 'agent'), key(MAX_KNOWN_NAMES - 1));
  assert.equal(names.holder(`m${MAX_KNOWN_NAMES}`, 'agent'), undefined);
  // The last name read is the one shown last: showing it again changes nothing.
  assert.equal(names.claim(`m${MAX_KNOWN_NAMES - 1}`, 'agent', key(MAX_KNOWN_NAMES - 1)), 'held');
  assert.equal(names.changed, false);
});

test('the last name read is the one shown last, whatever junk follows it; under the cap any name fits', () => {
  const names = new KnownNames({ 'voce (agent)': { node: VOCE, spoke: true }, 'junk (agent)': 7 });
  assert.equal(names.claim('voce', 'agent', VOCE), 'held');
  assert.equal(names.changed, false);
  // Every name held spoke or is spared, but there is room: a new name fits.
  assert.equal(
    names.judge('colega', 'agent', COLEGA, () => true),
    'new',
  );
  assert.equal(
    names.claim('colega', 'agent', COLEGA, () => true),
    'new',
  );
});

/** A NameGuard over `names`, and what it asked of the node. */
function guarding(
  names = new KnownNames({ 'voce (agent)': VOCE }),
  mayTell = () => true,
  spared = (_node: string) => false,
) {
  let now = NOW;
  const seen = {
    held: 0,
    refused: [] as { impostor: Impostor; first: boolean }[],
    full: [] as string[],
    told: [] as string[],
  };
  const guard = new NameGuard(names, {
    now: () => now,
    held: () => seen.held++,
    spared,
    refused: (impostor, first) => seen.refused.push({ impostor: { ...impostor }, first }),
    full: (name, kind, node, first) => seen.full.push(`${name} (${kind}) ${node.slice(0, 4)} ${first}`),
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

test('whom we told is remembered per key, and forgotten all at once past 64 keys', () => {
  const { guard, seen, advance } = guarding();
  guard.owns('voce', 'agent', key(1));
  guard.owns('voce', 'agent', key(2));
  guard.owns('voce', 'agent', key(1));
  assert.equal(seen.told.length, 2, 'two keys, each told once');
  for (let i = 3; i <= MAX_IMPOSTORS + 1; i++) guard.owns('voce', 'agent', key(i));
  assert.equal(seen.told.length, MAX_IMPOSTORS + 1);
  advance(1_000);
  // The 65th key made room by forgetting whom we told: key 1 is told again, within 30 s.
  guard.owns('voce', 'agent', key(1));
  assert.equal(seen.told.length, MAX_IMPOSTORS + 2);
  guard.owns('voce', 'agent', key(MAX_IMPOSTORS + 1));
  assert.equal(seen.told.length, MAX_IMPOSTORS + 2, 'the 65th was remembered after the clearing');
});

test('our name taken: remembered from the first member that says so', () => {
  const { guard } = guarding();
  assert.equal(guard.nameTakenBy(), undefined);
  assert.equal(guard.nameTaken('colega'), true, 'the first time is logged');
  assert.equal(guard.nameTaken('terceiro'), false);
  assert.equal(guard.nameTakenBy(), 'colega');
});

test('admits judges a hello as owns would, holding nothing; owns holds', () => {
  const { guard, names, seen } = guarding();
  assert.equal(guard.admits('colega', 'agent', COLEGA), true);
  assert.equal(names.holder('colega', 'agent'), undefined, 'admitted, not held');
  assert.equal(seen.held, 0);
  assert.equal(guard.admits('voce', 'agent', VOCE), true);
  assert.equal(guard.admits('voce', 'agent', FORGER), false);
  assert.deepEqual(
    guard.impostors().map((i) => `${i.name} ${i.frames}`),
    ['voce 1'],
    'an impostor’s hello is refused and remembered',
  );
  assert.deepEqual(seen.told, ['ffff -']);
  assert.equal(guard.owns('colega', 'agent', COLEGA), true);
  assert.equal(names.holder('colega', 'agent'), COLEGA);
  assert.equal(seen.held, 1);
});

test('with no place for a new name, its frames are refused (the first one reported), and nobody holds it', () => {
  const names = fullNames();
  for (let i = 0; i < MAX_KNOWN_NAMES; i++) names.pin(`m${i}`, 'agent', key(i));
  const { guard, seen } = guarding(names);
  seen.held = 0;
  assert.equal(guard.admits('dave', 'agent', COLEGA), false);
  assert.equal(guard.owns('dave', 'agent', COLEGA, '0000000001'), false);
  assert.equal(guard.owns('eve', 'human', FORGER), false);
  assert.deepEqual(seen.full, [
    'dave (agent) bbbb true',
    'dave (agent) bbbb false',
    'eve (human) ffff false',
  ]);
  assert.equal(names.holder('dave', 'agent'), undefined);
  assert.equal(seen.held, 0);
  assert.deepEqual(seen.refused, [], 'not an impostor');
  assert.deepEqual(seen.told, []);
  // The names held are answered as ever.
  assert.equal(guard.owns('m5', 'agent', key(5)), true);
  assert.equal(guard.owns('m5', 'agent', FORGER), false);
  assert.equal(seen.refused.length, 1);
});

test('the guard spares the keys it is told to: their names are not given up', () => {
  const names = fullNames();
  const { guard, seen } = guarding(
    names,
    () => true,
    (node) => node === key(0),
  );
  assert.equal(guard.owns('dave', 'agent', COLEGA), true);
  assert.equal(names.holder('m0', 'agent'), key(0), 'spared');
  assert.equal(names.holder('m1', 'agent'), undefined);
  guard.hold('dave', 'human', FORGER);
  assert.equal(names.holder('m0', 'agent'), key(0), 'spared');
  assert.equal(names.holder('m2', 'agent'), undefined);
  assert.equal(seen.held, 2);
});

test('hold: a name nobody held is held from now on; one held by another key stays its, quietly', () => {
  const { guard, names, seen } = guarding();
  guard.hold('voce', 'human', COLEGA);
  assert.equal(names.holder('voce', 'human'), COLEGA);
  assert.equal(seen.held, 1);
  guard.hold('voce', 'human', COLEGA);
  guard.hold('voce', 'agent', FORGER);
  assert.equal(seen.held, 1);
  assert.equal(names.holder('voce', 'agent'), VOCE);
  assert.deepEqual(guard.impostors(), []);
  assert.deepEqual(seen.told, []);
});

test('spoke: the name is pinned while its message is kept, and let go again if it could not be', async () => {
  const { guard, names, seen } = guarding();
  guard.owns('colega', 'agent', COLEGA);
  names.saved();
  seen.held = 0;
  guard.spoke('colega', 'agent', COLEGA, Promise.resolve(true));
  assert.deepEqual(names.saved()['colega (agent)'], { node: COLEGA, spoke: true }, 'pinned at once');
  assert.equal(seen.held, 1);
  await Promise.resolve();
  assert.deepEqual(names.saved()['colega (agent)'], { node: COLEGA, spoke: true });
  guard.spoke('colega', 'agent', COLEGA, Promise.resolve(false));
  await Promise.resolve();
  assert.deepEqual(names.saved()['colega (agent)'], { node: COLEGA, spoke: true }, 'pinned before: stays');
  assert.equal(seen.held, 1);

  guard.owns('terceiro', 'agent', FORGER);
  seen.held = 0;
  let fail: (ok: boolean) => void = () => {};
  guard.spoke('terceiro', 'agent', FORGER, new Promise<boolean>((resolve) => (fail = resolve)));
  assert.deepEqual(names.saved()['terceiro (agent)'], { node: FORGER, spoke: true });
  fail(false);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(names.saved()['terceiro (agent)'], { node: FORGER }, 'not kept: as it was');
  assert.equal(seen.held, 2, 'saved after each change');
  guard.spoke('voce', 'agent', FORGER, Promise.resolve(true));
  assert.deepEqual(names.saved()['voce (agent)'], { node: VOCE }, 'another key’s name is not pinned');
});
