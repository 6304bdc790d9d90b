// The review gate's allow rules bound to the room's keys (src/client/room/review-binding.ts, ADR
// 0095), read from a real names.json: `allow NAME` takes the keys that hold the name now,
// `allow --people` the persons of the agents the room knows, and `papo review` tells when another
// key holds a rule's name.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { memberRule, peopleRule, roomKeys, ruleMoved } from '../../src/client/room/review-binding.js';
import { NAMES_FILE } from '../../src/client/store/profile-files.js';
import { tempDir } from '../support/files.js';

/** Obviously fake node ids. */
const key = (c: string) => c.repeat(64);

test('names.json read for the rules: each name’s agent and person key; the names of agents; entries papo would not write are left out', async (t) => {
  const dir = tempDir(t, 'papo-binding-');
  // No names.json: the room knows nobody.
  const none = await roomKeys(dir);
  assert.deepEqual(none.agents, []);
  assert.equal(memberRule(none, 'dave'), undefined);
  assert.deepEqual(peopleRule(none, 'voce'), []);
  writeFileSync(
    join(dir, NAMES_FILE),
    JSON.stringify({
      'voce (agent)': key('1'),
      'voce (human)': key('2'),
      'dave (agent)': key('3'),
      'dave (human)': key('4'),
      // An agent whose person the room never showed; a person whose agent it never showed.
      'eve (agent)': key('5'),
      'ana (human)': key('6'),
      // Not papo's: a name of another shape, a key of another shape, a kind papo does not have.
      'a b (agent)': key('7'),
      'bob (agent)': 'not-a-key',
      'bob (human)': key('8'),
      'cy (robot)': key('9'),
      'Zed (agent)': key('a'),
    }),
  );
  const keys = await roomKeys(dir);
  assert.deepEqual(keys.agents.sort(), ['bob', 'dave', 'eve', 'voce']);
  // Any letter case, as names compare.
  assert.deepEqual(memberRule(keys, 'Dave'), { name: 'Dave', agent: key('3'), human: key('4') });
  assert.deepEqual(memberRule(keys, 'eve'), { name: 'eve', agent: key('5') });
  assert.deepEqual(memberRule(keys, 'ana'), { name: 'ana', human: key('6') });
  assert.deepEqual(memberRule(keys, 'bob'), { name: 'bob', human: key('8') });
  assert.equal(memberRule(keys, 'frank'), undefined);
  // The persons of the agents the room knows, not our own, not one without a person key, not a
  // person without an agent.
  assert.deepEqual(
    peopleRule(keys, 'VOCE').sort((a, b) => a.name.localeCompare(b.name)),
    [
      { name: 'bob', key: key('8') },
      { name: 'dave', key: key('4') },
    ],
  );
  // A rule tells when another key holds its name now; a kind the rule or the room does not know
  // tells nothing.
  assert.equal(ruleMoved(keys, { name: 'dave', agent: key('3'), human: key('4') }), false);
  assert.equal(ruleMoved(keys, { name: 'dave', agent: key('0'), human: key('4') }), true);
  assert.equal(ruleMoved(keys, { name: 'dave', agent: key('3'), human: key('0') }), true);
  assert.equal(ruleMoved(keys, { name: 'dave' }), false);
  assert.equal(ruleMoved(keys, { name: 'frank', agent: key('0') }), false);
  assert.equal(ruleMoved(keys, { name: 'eve', agent: key('5'), human: key('0') }), false);
});

test('a names.json that is not an object is not read as names: the error says so', async (t) => {
  const dir = tempDir(t, 'papo-binding-');
  writeFileSync(join(dir, NAMES_FILE), '["dave (agent)"]');
  await assert.rejects(roomKeys(dir), { code: 'profile_corrupt' });
});
