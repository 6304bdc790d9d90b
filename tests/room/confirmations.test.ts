// Who confirmed what this member sent (confirmations.ts), the one record of it (issue 41): an ack
// answers every wait for that message; a refusal (the recipient's inbox is full, ADR 0062) ends the
// wait at once for a message with `to` and is reported at the timeout for one to the room (another
// member may still ack); the timeout and the member closing end the wait without an ack. While a
// message is followed, each member that confirms it is recorded once, until its last follower lets go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Confirmations } from '../../src/client/room/confirmations.js';
import type { Envelope } from '../../src/client/wire/messages.js';

const toRoom: Envelope = {
  id: '3f9a1c07b2',
  from: 'voce',
  node: 'a'.repeat(64),
  kind: 'agent',
  ts: 1,
  body: 'hi',
};
const toTerceiro: Envelope = { ...toRoom, id: '3f9a1c07b3', to: 'terceiro' };

/** Long enough never to be reached by a test that does not wait for it. */
const LONG_MS = 60_000;

/**
 * Awaits a wait that ends at its timeout: the waiters' timers are unref'd (they never keep a
 * member's process alive), so the test holds the event loop meanwhile.
 */
async function timedOut<T>(wait: Promise<T>): Promise<T> {
  const hold = setInterval(() => {}, 1_000);
  try {
    return await wait;
  } finally {
    clearInterval(hold);
  }
}

test('the first ack answers every wait for the message', async () => {
  const confirmations = new Confirmations();
  const one = confirmations.wait(toRoom, LONG_MS);
  const two = confirmations.wait(toRoom, LONG_MS);
  const other = confirmations.wait(toTerceiro, 30);
  confirmations.acked(toRoom.id, 'colega');
  confirmations.acked(toRoom.id, 'terceiro');
  assert.deepEqual(await one, { ackedBy: 'colega', refusedBy: null });
  assert.deepEqual(await two, { ackedBy: 'colega', refusedBy: null });
  assert.deepEqual(
    await timedOut(other),
    { ackedBy: null, refusedBy: null },
    'an ack for another message is not this one',
  );
});

test('nobody acks in time: the wait ends without an ack, and a late ack changes nothing', async () => {
  const confirmations = new Confirmations();
  const started = Date.now();
  const answer = await timedOut(confirmations.wait(toRoom, 30));
  assert.deepEqual(answer, { ackedBy: null, refusedBy: null });
  assert.ok(Date.now() - started >= 25, 'not before the timeout');
  confirmations.acked(toRoom.id, 'colega');
  confirmations.refused(toRoom.id, 'colega');
});

test('a refusal of a message to one member ends the wait at once', async () => {
  const confirmations = new Confirmations();
  const wait = confirmations.wait(toTerceiro, LONG_MS);
  confirmations.refused(toTerceiro.id, 'terceiro');
  assert.deepEqual(await wait, { ackedBy: null, refusedBy: 'terceiro' });
  // Its waiter is forgotten: an ack that comes later answers nobody.
  confirmations.acked(toTerceiro.id, 'terceiro');
});

test('a refusal of a message to the room waits: an ack from another member still answers', async () => {
  const confirmations = new Confirmations();
  const wait = confirmations.wait(toRoom, LONG_MS);
  confirmations.refused(toRoom.id, 'terceiro');
  let settled = false;
  void wait.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, false, 'a refusal alone does not end a wait on the room');
  confirmations.acked(toRoom.id, 'colega');
  assert.deepEqual(await wait, { ackedBy: 'colega', refusedBy: null });
});

test('a refusal of a message to the room is reported at the timeout, the first refusal', async () => {
  const confirmations = new Confirmations();
  const wait = confirmations.wait(toRoom, 30);
  confirmations.refused(toRoom.id, 'terceiro');
  confirmations.refused(toRoom.id, 'quarto');
  assert.deepEqual(await timedOut(wait), { ackedBy: null, refusedBy: 'terceiro' });
});

test('closing ends every wait without an ack, with the refusal heard so far', async () => {
  const confirmations = new Confirmations();
  const plain = confirmations.wait(toRoom, LONG_MS);
  const refused = confirmations.wait({ ...toRoom, id: '3f9a1c07b4' }, LONG_MS);
  confirmations.refused('3f9a1c07b4', 'terceiro');
  confirmations.close();
  assert.deepEqual(await plain, { ackedBy: null, refusedBy: null });
  assert.deepEqual(await refused, { ackedBy: null, refusedBy: 'terceiro' });
  // Nothing left to answer.
  confirmations.acked(toRoom.id, 'colega');
});

test('a followed message records each member that confirms it once, whatever the case of its name, in order', () => {
  const confirmations = new Confirmations();
  const unfollow = confirmations.follow(toRoom.id);
  assert.deepEqual(confirmations.by(toRoom.id), []);
  assert.equal(confirmations.acked(toRoom.id, 'Colega'), true);
  assert.equal(confirmations.acked(toRoom.id, 'colega'), false, 'the same member again');
  assert.equal(confirmations.acked(toRoom.id, 'terceiro'), true);
  assert.equal(confirmations.acked(toTerceiro.id, 'terceiro'), true, 'another message, not followed');
  assert.deepEqual(confirmations.by(toRoom.id), ['Colega', 'terceiro']);
  assert.deepEqual(confirmations.by(toTerceiro.id), [], 'a message nobody follows records nothing');
  // The list handed out is a copy: the record is not changed through it.
  confirmations.by(toRoom.id).push('intruso');
  assert.deepEqual(confirmations.by(toRoom.id), ['Colega', 'terceiro']);
  unfollow();
  assert.deepEqual(confirmations.by(toRoom.id), []);
  assert.equal(confirmations.acked(toRoom.id, 'colega'), true, 'let go: no longer recorded');
});

test('two follow one message (a send and the sender that holds it): the record goes when the last lets go, each letting go once', () => {
  const confirmations = new Confirmations();
  const send = confirmations.follow(toRoom.id);
  const sender = confirmations.follow(toRoom.id);
  confirmations.acked(toRoom.id, 'colega');
  send();
  send();
  assert.deepEqual(confirmations.by(toRoom.id), ['colega'], 'one follower left: still recorded');
  assert.equal(confirmations.acked(toRoom.id, 'colega'), false);
  sender();
  assert.deepEqual(confirmations.by(toRoom.id), []);
  // Followed again from scratch: a new record.
  const again = confirmations.follow(toRoom.id);
  assert.deepEqual(confirmations.by(toRoom.id), []);
  assert.equal(confirmations.acked(toRoom.id, 'colega'), true);
  again();
});

test('a wait that ends (its timeout, or a refusal of a message to one member) lets go of itself only: another wait for the same message is still answered', async () => {
  const confirmations = new Confirmations();
  const short = confirmations.wait(toRoom, 30);
  const long = confirmations.wait(toRoom, LONG_MS);
  assert.deepEqual(await timedOut(short), { ackedBy: null, refusedBy: null });
  confirmations.acked(toRoom.id, 'colega');
  assert.deepEqual(await long, { ackedBy: 'colega', refusedBy: null });

  const first = confirmations.wait(toTerceiro, 30);
  assert.deepEqual(await timedOut(first), { ackedBy: null, refusedBy: null });
  const second = confirmations.wait(toTerceiro, LONG_MS);
  const third = confirmations.wait(toTerceiro, 30);
  assert.deepEqual(await timedOut(third), { ackedBy: null, refusedBy: null });
  confirmations.refused(toTerceiro.id, 'terceiro');
  assert.deepEqual(await second, { ackedBy: null, refusedBy: 'terceiro' });
});
