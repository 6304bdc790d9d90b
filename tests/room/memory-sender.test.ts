// The sending half of a person's say (memory-sender.ts, issue 41): what it holds, whom it tells of
// each confirmation, what it sends again and which acks and refusals are its own — the room node
// routes an ack to the person's says first and to the agent's outbox only when they say "not mine".
// With the real Confirmations a `send` waits on, which records who confirmed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Confirmations } from '../../src/client/room/confirmations.js';
import { MemorySender } from '../../src/client/room/memory-sender.js';
import type { Envelope } from '../../src/client/wire/messages.js';

function envelope(id: string, to?: string): Envelope {
  return {
    id,
    from: 'ana',
    node: 'a'.repeat(64),
    kind: 'human',
    ...(to !== undefined ? { to } : {}),
    ts: 1_700_000_000_000,
    body: `say ${id}`,
  };
}

test('a held say: each member that confirms it is told once, whatever the case of its name; the first ack answers the waiter', async () => {
  const confirmations = new Confirmations();
  const sender = new MemorySender(confirmations);
  const say = envelope('0123456789');
  const heard: string[] = [];
  const waiting = confirmations.wait(say, 5_000);
  sender.hold(say, (by) => heard.push(by));
  assert.deepEqual(sender.toResend(), [say]);
  assert.equal(sender.onAck(say.id, 'Bia'), true);
  assert.equal(sender.onAck(say.id, 'bia'), true, 'a second ack of the same member is still this say’s');
  assert.equal(sender.onAck(say.id, 'caio'), true);
  assert.deepEqual(heard, ['Bia', 'caio']);
  assert.deepEqual(await waiting, { ackedBy: 'Bia', refusedBy: null });
  // Confirmed: not sent again.
  assert.deepEqual(sender.toResend(), []);
});

test('a say to one member: only that member confirms it or refuses it; others’ acks and refusals are still this say’s, and change nothing', async () => {
  const confirmations = new Confirmations();
  const sender = new MemorySender(confirmations);
  const say = envelope('abcdef0123', 'bia');
  const heard: string[] = [];
  sender.hold(say, (by) => heard.push(by));
  const waiting = confirmations.wait(say, 5_000);
  assert.equal(sender.onAck(say.id, 'caio'), true);
  assert.equal(sender.onRefused(say.id, 'caio'), true);
  assert.deepEqual(heard, []);
  assert.deepEqual(sender.toResend(), [say], 'nobody it is for confirmed it: sent again');
  assert.equal(sender.onRefused(say.id, 'Bia'), true);
  assert.deepEqual(await waiting, { ackedBy: null, refusedBy: 'Bia' });
});

test('ids it does not hold are not its own: acks and refusals say so, and a forgotten say is neither answered nor sent again', () => {
  const confirmations = new Confirmations();
  const sender = new MemorySender(confirmations);
  assert.equal(sender.onAck('ffffffffff', 'bia'), false);
  assert.equal(sender.onRefused('ffffffffff', 'bia'), false);
  sender.forget('ffffffffff');
  const say = envelope('1111111111');
  const heard: string[] = [];
  sender.hold(say, (by) => heard.push(by));
  sender.forget(say.id);
  assert.equal(
    confirmations.acked(say.id, 'bia'),
    true,
    'forgotten: its confirmations are no longer recorded',
  );
  assert.equal(sender.onAck(say.id, 'bia'), false);
  assert.equal(sender.onRefused(say.id, 'bia'), false);
  assert.deepEqual(heard, []);
  assert.deepEqual(sender.toResend(), []);
});

test('queue (a say run’s own member): kept at once, in memory, and each confirmation goes to the one listener with its id; nobody is owed it', async () => {
  const confirmations = new Confirmations();
  const told: string[] = [];
  const sender = new MemorySender(confirmations, (id, by) => told.push(`${id} ${by}`));
  const say = envelope('2222222222');
  assert.equal(sender.queue(say), undefined, 'in memory: nothing to wait for before the first broadcast');
  assert.deepEqual(sender.toResend(), [say]);
  assert.equal(sender.onAck(say.id, 'bia'), true);
  assert.deepEqual(told, ['2222222222 bia']);
  assert.deepEqual(sender.owedNow(), []);
  await sender.moreAcks();
});
