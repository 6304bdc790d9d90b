// Presence: a member that closes leaves the signal server's topic, and the others see it offline
// at once instead of 75 s later (its "goodbye"); it is online again when it comes back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitLinked } from '../support/members.js';
import { memberEnv } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { openAgent, signalServer } from './helpers.js';

test('a member that closes is offline for the others right away, and online again when back', {
  timeout: 60_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const ana = await openAgent(t, room.members.Ana, memberEnv());
  const bia = await openAgent(t, room.members.Bia);
  await waitLinked(ana, bia);
  await waitFor('Bia online for Ana', () => ana.member.onlineNames().includes('Bia'));

  const offline: string[] = [];
  ana.member.on('offline', (m) => offline.push(m.name));
  await bia.member.close();
  // Well inside the 75 s presence window: only the goodbye can make this true.
  await waitFor('Bia offline for Ana', () => !ana.member.onlineNames().includes('Bia'), 10_000);
  assert.deepEqual(offline, ['Bia']);
  assert.equal(ana.member.members().find((m) => m.name === 'Bia')?.online, false);

  const again = await openAgent(t, room.members.Bia);
  await waitLinked(ana, again);
  await waitFor('Bia online again', () => ana.member.onlineNames().includes('Bia'));
});
