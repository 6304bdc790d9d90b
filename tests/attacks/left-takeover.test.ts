// Finding 6 of the 2026-12-01 review (docs/security.md): anyone who knows a room's topic could push
// a member off the signal server. The server gives a peer id to the newest socket that joins as it
// (ADR 0021) and tells the older socket `left` for its own id; the member ignored that `left`, so
// it stayed off the topic, unreachable for anyone who joined after. Now it joins again, with a
// backoff. Real processes: `papo signal` and `papo mcp` members; the attacker is a raw WebSocket.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { decodeInvite } from '../../src/client/wire/invite.js';
import { deriveRoomKeys } from '../../src/client/wire/room-crypto.js';
import { startCliSignal, stop } from '../signal-server/processes.js';
import { type Member, startMember, waitLinked, waitMessage } from '../support/members.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { rawSignalClient } from './raw-signal.js';

const A = 'alpha-displaced';
const B = 'beta-late-joiner';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a member pushed off the signal server by a socket using its peer id joins again, with backoff', {
  timeout: 150_000,
}, async (t) => {
  const server = await startCliSignal({});
  t.after(() => stop(server.child));
  const setup = await makeRoom(null, { names: [A, B], signalUrl: server.url, label: 'takeover' });
  const members: Member[] = [];
  t.after(async () => {
    await Promise.all(members.map((m) => m.kill()));
    await setup.close();
  });
  const topic = deriveRoomKeys(decodeInvite(setup.invite).secret).topic;

  const a = await startMember(A, setup.homes[0] as string);
  members.push(a);
  // Learn A's node id the way an attacker would: join the topic and read the peer list.
  const spyId = `0${randomBytes(32).toString('hex').slice(1)}`;
  let idA: string | undefined;
  for (let i = 0; i < 100 && idA === undefined; i++) {
    const spy = await rawSignalClient(server.url);
    spy.ws.send(JSON.stringify({ t: 'join', topic, peer: spyId }));
    const peers = await waitFor('the peer list', () => spy.heard.find((m) => m.t === 'peers')?.peers, 20_000);
    idA = peers[0];
    spy.ws.terminate();
    if (idA === undefined) await sleep(200);
  }
  assert.ok(idA !== undefined, 'A joined the topic');

  // The attacker joins as A: the server gives it A's membership and tells A's socket `left`.
  const attacker = await rawSignalClient(server.url);
  t.after(() => attacker.ws.terminate());
  const leftA = () => attacker.heard.filter((m) => m.t === 'left' && m.peer === idA).length;
  attacker.ws.send(JSON.stringify({ t: 'join', topic, peer: idA }));
  await waitFor('the attacker holds A', () => attacker.heard.find((m) => m.t === 'peers'), 20_000);
  // A joins again: the attacker is now the older socket and hears `left` for the id it took.
  await waitFor('A to join again', () => (leftA() > 0 ? true : undefined), 15_000);

  // Someone who joins later still reaches A.
  const b = await startMember(B, setup.homes[1] as string);
  members.push(b);
  await waitLinked(a, B, 60_000);
  const first = `after-takeover-${randomBytes(6).toString('hex')}`;
  assert.match(await b.send(first, { to: A }), /^Delivered to alpha-displaced/);
  await waitMessage(a, first);

  // Two sockets fighting over one id: the attacker joins again every time it is pushed out. A
  // keeps coming back, but with backoff, not in a tight loop.
  const before = leftA();
  const fight = (data: Buffer) => {
    const m = JSON.parse(String(data)) as { t: string; peer?: string };
    if (m.t === 'left' && m.peer === idA) attacker.ws.send(JSON.stringify({ t: 'join', topic, peer: idA }));
  };
  attacker.ws.on('message', fight);
  attacker.ws.send(JSON.stringify({ t: 'join', topic, peer: idA }));
  await sleep(12_000);
  attacker.ws.off('message', fight);
  const rejoins = leftA() - before;
  t.diagnostic(`A joined again ${rejoins} times in 12 s of fighting`);
  assert.ok(rejoins >= 1, `A joined again during the fight (${rejoins})`);
  assert.ok(rejoins <= 8, `A joined again ${rejoins} times in 12 s: that is a tight loop`);

  // The attacker goes away; A is back on the topic and the room works.
  attacker.ws.terminate();
  const late = await rawSignalClient(server.url);
  t.after(() => late.ws.terminate());
  await waitFor(
    'A on the topic again',
    () => {
      if (late.heard.some((m) => m.t === 'peers' && m.peers?.includes(idA as string))) return true;
      late.heard.length = 0;
      late.ws.send(JSON.stringify({ t: 'join', topic, peer: spyId }));
      return undefined;
    },
    30_000,
  );
  const second = `after-fight-${randomBytes(6).toString('hex')}`;
  assert.match(await a.send(second, { to: B }), /^Delivered to beta-late-joiner/);
  await waitMessage(b, second);
});
