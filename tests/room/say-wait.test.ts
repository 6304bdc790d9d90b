// What `papo say`, `papo status` and `papo web` wait on (person-say.ts's waitFor): a hello from a
// member that is already online by its link (one known from peers.json) changes liveMembers() with
// no 'online' event, so the room node says it heard the hello ('heard'), and the wait checks then
// instead of at its next 100 ms tick (in a profile its agent had used, every say paid that tick).
// The wait, with the timers stopped, wakes on the event alone; and a real RoomNode emits it for a
// returning member it knows, over real links.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mock, test } from 'node:test';
import type { RoomMember, RoomMemberEvents } from '../../src/client/member-api.js';
import { type SayRoom, waitFor as waitForRoom } from '../../src/client/person/person-say.js';
import { openAgent, signalServer } from '../member/helpers.js';
import { waitLinked } from '../support/members.js';
import { memberEnv } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';

test('the wait wakes on a heard hello, with no tick to find it', async (t) => {
  mock.timers.enable({ apis: ['setInterval', 'setTimeout'] });
  t.after(() => mock.timers.reset());
  const member = new EventEmitter<RoomMemberEvents>();
  const room = {
    member: member as RoomMember,
    probe: { onSignalState: () => () => {} },
  } as unknown as SayRoom;
  let live = 0;
  const waiting = waitForRoom(room, 3000, () => live >= 1);
  const pending = () => new Promise((resolve) => setImmediate(() => resolve('pending')));
  assert.equal(await Promise.race([waiting, pending()]), 'pending');
  live = 1;
  member.emit('heard', 'b1a');
  assert.equal(await Promise.race([waiting, pending()]), true, 'woken by the event, the timers stopped');
  assert.equal(member.listenerCount('heard'), 0, 'its listeners gone');
});

test('a returning member Ana knows: its hello comes to her as heard, the member live by then', {
  timeout: 60_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const ana = await openAgent(t, room.members.Ana, memberEnv());
  const first = await openAgent(t, room.members.Bia);
  await waitLinked(ana, first);
  await waitFor('Bia live for Ana', () => ana.member.liveMembers().some((m) => m.name === 'Bia'));
  await first.member.close();
  await waitFor('Bia gone', () => !ana.member.onlineNames().includes('Bia'), 10_000);

  // Bia comes back: each hello Ana hears of her, and whether she was live for Ana at that moment.
  const heard: Array<{ node: string; live: boolean }> = [];
  ana.member.on('heard', (node) =>
    heard.push({ node, live: ana.member.liveMembers().some((m) => m.node === node) }),
  );
  const again = await openAgent(t, room.members.Bia);
  await waitFor('Bia’s hello heard by Ana', () => heard.some((h) => h.node === again.member.nodeId));
  assert.ok(
    heard.filter((h) => h.node === again.member.nodeId).every((h) => h.live),
    'live when heard',
  );
});
