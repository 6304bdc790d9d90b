// The outbox's bookkeeping (ADR 0063): who a message is owed to when it is sent, how each ack
// takes a name off, when it leaves the outbox, and what `papo forget` does to it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ackCounts,
  afterAck,
  envelopeOfQueued,
  forgetInOutbox,
  isQueuedMessageList,
  owedAtSend,
  owedSummary,
  type QueuedMessage,
} from '../../src/client/store/outbox.js';
import type { Envelope } from '../../src/client/wire/messages.js';

const base: Envelope = {
  id: '3f9a1c07b2',
  from: 'voce',
  node: 'a'.repeat(64),
  kind: 'agent',
  ts: 1,
  body: 'hi',
};

test('owed at send: every known member but the sender, each name once, case-insensitively', () => {
  assert.deepEqual(owedAtSend(['colega', 'terceiro', 'Colega', 'VOCE'], 'voce'), ['colega', 'terceiro']);
  // Knowing nobody (or only oneself): no list, the first-ack rule (docs/delivery.md, "The rules").
  assert.equal(owedAtSend([], 'voce'), undefined);
  assert.equal(owedAtSend(['voce'], 'voce'), undefined);
  // With `to`: the recipient alone, known or not.
  assert.deepEqual(owedAtSend(['colega', 'terceiro'], 'voce', 'Terceiro'), ['Terceiro']);
  assert.deepEqual(owedAtSend([], 'voce', 'terceiro'), ['terceiro']);
});

test('each owed ack takes its name off; the message leaves when nobody is owed', () => {
  const q: QueuedMessage = { ...base, owed: ['colega', 'terceiro'] };
  assert.equal(ackCounts(q, 'quarto'), false);
  assert.equal(afterAck(q, 'quarto'), q, 'an ack from someone not owed changes nothing');
  const one = afterAck(q, 'COLEGA');
  assert.deepEqual(one?.owed, ['terceiro']);
  assert.deepEqual(q.owed, ['colega', 'terceiro'], 'the entry is not changed in place');
  assert.equal(afterAck(one as QueuedMessage, 'colega'), one, 'a second ack from colega does nothing');
  assert.equal(afterAck(one as QueuedMessage, 'terceiro'), null);
});

test('no owed list: the book rules (first ack clears; with `to`, only the recipient)', () => {
  assert.equal(afterAck({ ...base }, 'anyone'), null);
  const to: QueuedMessage = { ...base, to: 'terceiro' };
  assert.equal(afterAck(to, 'colega'), to);
  assert.equal(afterAck(to, 'Terceiro'), null);
});

test('the envelope of a queued message has no owed field (the frame stays the same)', () => {
  assert.deepEqual(envelopeOfQueued({ ...base, owed: ['colega'] }), base);
});

test('forget: the name leaves every owed list, messages owed only to it leave the outbox', () => {
  const outbox: QueuedMessage[] = [
    { ...base, id: '0000000001', owed: ['colega', 'terceiro'] },
    { ...base, id: '0000000002', owed: ['Terceiro'] },
    { ...base, id: '0000000003', owed: ['colega'] },
    { ...base, id: '0000000004', to: 'terceiro' },
    { ...base, id: '0000000005' },
  ];
  const { outbox: after, released } = forgetInOutbox(outbox, 'terceiro');
  assert.equal(released, 3);
  assert.deepEqual(
    after.map((m) => [m.id, m.owed]),
    [
      ['0000000001', ['colega']],
      ['0000000003', ['colega']],
      ['0000000005', undefined],
    ],
  );
  assert.deepEqual(forgetInOutbox(outbox, 'nobody').outbox, outbox);
});

test('summary: who the queue waits for, most first; "" for the first to confirm', () => {
  const outbox: QueuedMessage[] = [
    { ...base, id: '0000000001', owed: ['colega', 'terceiro'] },
    { ...base, id: '0000000002', owed: ['Terceiro'] },
    { ...base, id: '0000000003' },
  ];
  assert.deepEqual(owedSummary(outbox), [
    { name: 'terceiro', count: 2 },
    { name: '', count: 1 },
    { name: 'colega', count: 1 },
  ]);
});

test('outbox.json: old files (no owed) and new ones are read; a bad owed is refused', () => {
  assert.ok(isQueuedMessageList([base, { ...base, owed: ['colega'] }]));
  assert.ok(isQueuedMessageList([]));
  assert.ok(!isQueuedMessageList({}));
  assert.ok(!isQueuedMessageList([{ ...base, owed: 'colega' }]));
  assert.ok(!isQueuedMessageList([{ ...base, owed: [1] }]));
  // Every entry and every name is checked, not the first that passes (found by mutation testing).
  assert.ok(!isQueuedMessageList([{ ...base, owed: ['colega', 1] }]));
  assert.ok(!isQueuedMessageList([base, { ...base, owed: ['colega', null] }]));
  // An entry that is no object at all.
  for (const entry of [null, 5, 'colega', true]) {
    assert.ok(!isQueuedMessageList([entry]), String(entry));
    assert.ok(!isQueuedMessageList([base, entry]), String(entry));
  }
});
