// When a durable member writes peers.json and names.json (ADR 0062): at most every 5 s after a
// change a person would see (a flood of changes costs one write), with every heartbeat, on close
// if something was not written yet, and names.json only when a name changed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { KnownNames } from '../../src/client/room/member-names.js';
import { PEERS_SAVE_INTERVAL_MS, PeersSave } from '../../src/client/room/peers-save.js';
import { ManualClock } from '../support/manual-clock.js';

const NOW = 1_800_000_000_000;
const VOCE = 'a'.repeat(64);
const COLEGA = 'b'.repeat(64);

/** A PeersSave over a state that records its writes, on a manual clock and a queue of writes. */
function saving(options: { failPeers?: boolean } = {}) {
  const clock = new ManualClock(NOW);
  const writes: string[] = [];
  const names = new KnownNames({ 'voce (agent)': VOCE });
  const logs: string[] = [];
  let writesQueue: Promise<unknown> = Promise.resolve();
  const save = new PeersSave({
    state: {
      async savePeers() {
        if (options.failPeers) throw new Error('disk full');
        writes.push('peers.json');
      },
      async saveNames(saved) {
        writes.push(`names.json ${Object.keys(saved).join(', ')}`);
      },
    },
    names,
    serial: <T>(work: () => Promise<T>) => {
      const next = writesQueue.then(work, work);
      writesQueue = next.catch(() => {});
      return next;
    },
    clock,
    log: (line) => logs.push(line),
  });
  /** Lets the queued writes run. */
  const settle = async () => {
    await writesQueue;
    await turn();
  };
  return { clock, writes, names, logs, save, settle };
}

test('a change is written 5 s later, once, however many changes come meanwhile', async () => {
  const { clock, writes, save, settle } = saving();
  save.soon();
  clock.advance(1_000);
  for (let i = 0; i < 5_000; i++) save.soon();
  clock.advance(PEERS_SAVE_INTERVAL_MS - 1_000 - 1);
  await settle();
  assert.deepEqual(writes, [], 'nothing before 5 s');
  clock.advance(1);
  await settle();
  assert.deepEqual(writes, ['peers.json']);
  clock.advance(60_000);
  await settle();
  assert.deepEqual(writes, ['peers.json'], 'nothing more without a new change');
  // A change after the write is written 5 s after it.
  save.soon();
  clock.advance(PEERS_SAVE_INTERVAL_MS);
  await settle();
  assert.deepEqual(writes, ['peers.json', 'peers.json']);
});

test('names.json is written with peers.json only when a name changed', async () => {
  const { clock, writes, names, save, settle } = saving();
  save.soon();
  clock.advance(PEERS_SAVE_INTERVAL_MS);
  await settle();
  assert.deepEqual(writes, ['peers.json']);
  assert.equal(names.claim('colega', 'agent', COLEGA), 'new');
  save.soon();
  clock.advance(PEERS_SAVE_INTERVAL_MS);
  await settle();
  assert.deepEqual(writes, ['peers.json', 'peers.json', 'names.json voce (agent), colega (agent)']);
  assert.equal(names.changed, false);
});

test('the heartbeat writes at once, changed or not', async () => {
  const { writes, names, save, settle } = saving();
  save.now();
  await settle();
  assert.deepEqual(writes, ['peers.json']);
  names.claim('colega', 'agent', COLEGA);
  save.now();
  await settle();
  assert.deepEqual(writes, ['peers.json', 'peers.json', 'names.json voce (agent), colega (agent)']);
});

test('close writes what was not written yet, once, and nothing after', async () => {
  const { clock, writes, save, settle } = saving();
  save.soon();
  clock.advance(1_000);
  save.close();
  await settle();
  assert.deepEqual(writes, ['peers.json'], 'the pending change, at close');
  assert.equal(clock.pending, 0, 'the timed write is cancelled');
  save.soon();
  save.close();
  clock.advance(60_000);
  await settle();
  assert.deepEqual(writes, ['peers.json'], 'after close, nothing more');
});

test('close with nothing changed writes nothing; with a name changed, writes both files', async () => {
  const quiet = saving();
  quiet.save.close();
  await quiet.settle();
  assert.deepEqual(quiet.writes, []);

  const named = saving();
  named.names.claim('colega', 'agent', COLEGA);
  named.save.close();
  await named.settle();
  assert.deepEqual(named.writes, ['peers.json', 'names.json voce (agent), colega (agent)']);
});

test('close after the timed write writes nothing more', async () => {
  const { clock, writes, save, settle } = saving();
  save.soon();
  clock.advance(PEERS_SAVE_INTERVAL_MS);
  save.close();
  await settle();
  assert.deepEqual(writes, ['peers.json']);
});

test('a timed write that fails is logged, and the next change is written again', async () => {
  const { clock, logs, save, settle } = saving({ failPeers: true });
  save.soon();
  clock.advance(PEERS_SAVE_INTERVAL_MS);
  await settle();
  assert.deepEqual(logs, ['could not save peers.json: disk full']);
  save.soon();
  clock.advance(PEERS_SAVE_INTERVAL_MS);
  await settle();
  assert.equal(logs.length, 2);
});
