// Who waits for a sent message's first ack (ack-waiters.ts): an ack answers every wait for that
// message; a refusal (the recipient's inbox is full, ADR 0062) ends the wait at once for a message
// with `to` and is reported at the timeout for one to the room (another member may still ack);
// the timeout and the member closing end the wait without an ack.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AckWaiters } from '../../src/client/room/ack-waiters.js';
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
  const waiters = new AckWaiters();
  const one = waiters.wait(toRoom, LONG_MS);
  const two = waiters.wait(toRoom, LONG_MS);
  const other = waiters.wait(toTerceiro, 30);
  waiters.acked(toRoom.id, 'colega');
  waiters.acked(toRoom.id, 'terceiro');
  assert.deepEqual(await one, { ackedBy: 'colega', refusedBy: null });
  assert.deepEqual(await two, { ackedBy: 'colega', refusedBy: null });
  assert.deepEqual(
    await timedOut(other),
    { ackedBy: null, refusedBy: null },
    'an ack for another message is not this one',
  );
});

test('nobody acks in time: the wait ends without an ack, and a late ack changes nothing', async () => {
  const waiters = new AckWaiters();
  const started = Date.now();
  const answer = await timedOut(waiters.wait(toRoom, 30));
  assert.deepEqual(answer, { ackedBy: null, refusedBy: null });
  assert.ok(Date.now() - started >= 25, 'not before the timeout');
  waiters.acked(toRoom.id, 'colega');
  waiters.refused(toRoom.id, 'colega');
});

test('a refusal of a message to one member ends the wait at once', async () => {
  const waiters = new AckWaiters();
  const wait = waiters.wait(toTerceiro, LONG_MS);
  waiters.refused(toTerceiro.id, 'terceiro');
  assert.deepEqual(await wait, { ackedBy: null, refusedBy: 'terceiro' });
  // Its waiter is forgotten: an ack that comes later answers nobody.
  waiters.acked(toTerceiro.id, 'terceiro');
});

test('a refusal of a message to the room waits: an ack from another member still answers', async () => {
  const waiters = new AckWaiters();
  const wait = waiters.wait(toRoom, LONG_MS);
  waiters.refused(toRoom.id, 'terceiro');
  let settled = false;
  void wait.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, false, 'a refusal alone does not end a wait on the room');
  waiters.acked(toRoom.id, 'colega');
  assert.deepEqual(await wait, { ackedBy: 'colega', refusedBy: null });
});

test('a refusal of a message to the room is reported at the timeout, the first refusal', async () => {
  const waiters = new AckWaiters();
  const wait = waiters.wait(toRoom, 30);
  waiters.refused(toRoom.id, 'terceiro');
  waiters.refused(toRoom.id, 'quarto');
  assert.deepEqual(await timedOut(wait), { ackedBy: null, refusedBy: 'terceiro' });
});

test('closing ends every wait without an ack, with the refusal heard so far', async () => {
  const waiters = new AckWaiters();
  const plain = waiters.wait(toRoom, LONG_MS);
  const refused = waiters.wait({ ...toRoom, id: '3f9a1c07b4' }, LONG_MS);
  waiters.refused('3f9a1c07b4', 'terceiro');
  waiters.close();
  assert.deepEqual(await plain, { ackedBy: null, refusedBy: null });
  assert.deepEqual(await refused, { ackedBy: null, refusedBy: 'terceiro' });
  // Nothing left to answer.
  waiters.acked(toRoom.id, 'colega');
});
