// The durable delivery (durable-delivery.ts) on its own, in a small fake of the room node around it
// (its DeliveryHost: who is online, who is linked, a clock, what is sent), for what the room node
// cannot show: a neighbour that is linked but not counted online, the 30 s heartbeat, the wait for
// the others' acks without its one-second bound, the catch-up pacer's timer after close, and an
// agent's message under our own name (the room node drops it before delivery). The rules that a
// room node can show are in tests/member/group-rules.test.ts. Fast: run once per mutant (ADR 0080).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import type { RoomMemberEvents } from '../../src/client/member-api.js';
import { Confirmations } from '../../src/client/room/confirmations.js';
import type { DeliveryHost } from '../../src/client/room/delivery.js';
import { DurableDelivery } from '../../src/client/room/durable-delivery.js';
import type { LivePeer } from '../../src/client/room/presence.js';
import type { QueuedMessage } from '../../src/client/store/outbox.js';
import { FrameCodec, type SignedFrame } from '../../src/client/wire/frame-codec.js';
import { envelopeOf, msgFrame } from '../../src/client/wire/frames.js';
import { generateIdentity } from '../../src/client/wire/identity.js';
import type { Envelope, LogEntry } from '../../src/client/wire/messages.js';
import { generateSecret } from '../../src/client/wire/room-crypto.js';
import { memoryState } from '../support/memory-state.js';

const TOPIC = 'd'.repeat(64);
const ROOM_KEY = generateSecret();
const SELF = generateIdentity();
const VOCE = generateIdentity();
const COLEGA = generateIdentity().nodeId;
const TERCEIRO = generateIdentity().nodeId;
const codec = new FrameCodec(ROOM_KEY, TOPIC, SELF);
const reader = new FrameCodec(ROOM_KEY, TOPIC, generateIdentity());

/** The room node as the delivery sees it; `sent` holds every frame it sent, opened. */
function fakeHost() {
  const env = {
    online: [] as string[],
    live: new Map<string, LivePeer>(),
    neighbours: [] as string[],
    closed: false,
    clock: Date.now(),
    lines: [] as string[],
    /** `to`: a peer (sendTo), `*` (broadcast) or `link <peer>` (links.send, the heartbeat's). */
    sent: [] as { to: string; frame: SignedFrame }[],
    events: new EventEmitter<RoomMemberEvents>(),
  };
  let writes: Promise<unknown> = Promise.resolve();
  const host: DeliveryHost = {
    name: 'Self',
    nodeId: SELF.nodeId,
    codec,
    links: {
      send: (peer, data) => {
        env.sent.push({ to: `link ${peer}`, frame: reader.open(data) });
        return true;
      },
      neighbours: () => env.neighbours,
    },
    sendTo: (peer, sealed) => env.sent.push({ to: peer, frame: reader.open(sealed) }),
    broadcast: (sealed) => env.sent.push({ to: '*', frame: reader.open(sealed) }),
    events: env.events,
    confirmations: new Confirmations(),
    serial: <T>(work: () => Promise<T>) => {
      const next = writes.then(work, work);
      writes = next.catch(() => {});
      return next;
    },
    onlineNames: () => env.online,
    live: (node) => env.live.get(node),
    isClosed: () => env.closed,
    now: () => env.clock,
    log: (line) => env.lines.push(line),
  };
  return { host, env };
}

/** Every promise callback and write of the memory state has run (they take no timers). */
const settled = () => new Promise((r) => setImmediate(r));

function queued(id: string, owed?: string[]): QueuedMessage {
  return {
    id,
    from: 'Self',
    node: SELF.nodeId,
    kind: 'agent',
    ts: 1,
    body: `body ${id}`,
    ...(owed ? { owed } : {}),
  };
}

/** A message from voce, signed by voce's key. */
function fromVoce(id: string, extra: Partial<Envelope> = {}): Envelope {
  const raw: Envelope = {
    id,
    from: 'voce',
    node: VOCE.nodeId,
    kind: 'agent',
    ts: Date.now(),
    body: id,
    ...extra,
  };
  return envelopeOf(new FrameCodec(ROOM_KEY, TOPIC, VOCE).sign(msgFrame(raw)));
}

test('the outbox goes again to a neighbour it is owed to even when presence does not count it online', async () => {
  const state = memoryState();
  const { host, env } = fakeHost();
  const delivery = new DurableDelivery(host, state, 0);
  await delivery.start();
  state.outbox = [
    queued('00000000a1', ['quarto', 'terceiro']),
    queued('00000000a2', ['voce']),
    queued('00000000a3'), // sent knowing nobody: the first ack clears it
    queued('00000000a4', ['quinto']),
  ];
  state.peers = { [TERCEIRO]: { name: 'Terceiro', kind: 'agent', lastSeen: 0 } };
  env.online = ['VOCE']; // voce is online through another neighbour
  env.live.set(COLEGA, { name: 'colega', kind: 'agent', ephemeral: false, lastSeen: 0 });
  const ids = (peer: string) => delivery.toResend(peer).map((m) => m.id);
  // Terceiro: known from peers.json, linked, not (yet) heard from in this session.
  assert.deepEqual(ids(TERCEIRO), ['00000000a1', '00000000a2', '00000000a3']);
  // Colega is owed none of them: only what someone online is owed, and what nobody is tracked for.
  assert.deepEqual(ids(COLEGA), ['00000000a2', '00000000a3']);
  assert.ok(
    delivery.toResend(TERCEIRO).every((m) => !('owed' in m)),
    'the envelope goes, not the owed list',
  );
  // Its name as heard in this session is preferred to the one peers.json remembers.
  env.live.set(TERCEIRO, { name: 'quinto', kind: 'agent', ephemeral: false, lastSeen: 0 });
  assert.deepEqual(ids(TERCEIRO), ['00000000a2', '00000000a3', '00000000a4']);
});

test('the heartbeat sends every neighbour the digest of what this member holds', async () => {
  const held = fromVoce('00000000b1');
  const state = memoryState({ log: [{ ev: 'in', msg: held }] });
  const { host, env } = fakeHost();
  const delivery = new DurableDelivery(host, state, 5_000);
  await delivery.start();
  env.neighbours = [COLEGA, TERCEIRO];
  delivery.heartbeat();
  assert.deepEqual(
    env.sent.map((s) => s.to),
    [`link ${COLEGA}`, `link ${TERCEIRO}`],
  );
  for (const { frame } of env.sent) {
    const { sig, ...digest } = frame;
    assert.equal(typeof sig, 'string');
    assert.deepEqual(digest, {
      t: 'have',
      since: Math.max(5_000, env.clock - 24 * 60 * 60 * 1000),
      ids: [held.id],
      node: SELF.nodeId,
    });
  }
});

test('after the first ack, the wait for the others online ends with the last ack it needs, not at its time', async () => {
  const state = memoryState();
  const { host, env } = fakeHost();
  const delivery = new DurableDelivery(host, state, 0);
  await delivery.start();
  state.outbox = [queued('00000000c1', ['colega', 'quarto', 'terceiro', 'voce'])];
  env.online = ['colega', 'terceiro', 'quarto']; // voce is offline
  delivery.onAck('00000000c1', 'colega');
  await settled();
  let ended = false;
  // A minute: only the acks can end it within this test.
  void delivery.moreAcks('00000000c1', 60_000).then(() => {
    ended = true;
  });
  await settled();
  assert.equal(ended, false, 'terceiro and quarto are online and owed it');
  delivery.onAck('00000000c1', 'terceiro');
  await settled();
  assert.deepEqual(delivery.owedNow('00000000c1'), ['quarto', 'voce']);
  assert.equal(ended, false, 'quarto is still online and owed it');
  delivery.onAck('00000000c1', 'voce-not-owed');
  await settled();
  assert.equal(ended, false);
  delivery.onAck('00000000c1', 'quarto');
  await settled();
  assert.equal(ended, true, 'only voce, offline, is owed it now');
  assert.deepEqual(delivery.owedNow('00000000c1'), ['voce']);
  assert.equal(env.events.listenerCount('delivered'), 0, 'the ended wait listens no more');
});

test('with no time left the wait for more acks ends at once; a wait its time ended leaves no listener', async (t) => {
  const state = memoryState();
  const { host, env } = fakeHost();
  const delivery = new DurableDelivery(host, state, 0);
  await delivery.start();
  state.outbox = [queued('00000000c3', ['colega', 'terceiro'])];
  env.online = ['colega', 'terceiro'];
  let ended = false;
  void delivery.moreAcks('00000000c3', 0).then(() => {
    ended = true;
  });
  // Within this turn (no timer, no I/O): an ack written meanwhile is not waited for.
  await Promise.resolve();
  assert.equal(ended, true);
  assert.equal(env.events.listenerCount('delivered'), 0);
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let timedOut = false;
  void delivery.moreAcks('00000000c3', 500).then(() => {
    timedOut = true;
  });
  assert.equal(env.events.listenerCount('delivered'), 1);
  t.mock.timers.tick(499);
  await Promise.resolve();
  assert.equal(timedOut, false);
  t.mock.timers.tick(1);
  await Promise.resolve();
  assert.equal(timedOut, true);
  assert.equal(env.events.listenerCount('delivered'), 0);
});

test('the wait for more acks ends at the next ack once the node closed', async () => {
  const state = memoryState();
  const { host, env } = fakeHost();
  const delivery = new DurableDelivery(host, state, 0);
  await delivery.start();
  state.outbox = [queued('00000000c2', ['colega', 'terceiro', 'quarto'])];
  env.online = ['colega', 'terceiro', 'quarto'];
  let ended = false;
  void delivery.moreAcks('00000000c2', 60_000).then(() => {
    ended = true;
  });
  delivery.onAck('00000000c2', 'colega');
  await settled();
  assert.equal(ended, false);
  env.closed = true;
  delivery.onAck('00000000c2', 'terceiro');
  await settled();
  assert.equal(ended, true);
});

test('once closed, the catch-up queued for a neighbour is not sent', async (t) => {
  // 60 messages: the pacer sends 50 at once and the rest on its next tick (100 ms, mocked here).
  const log: LogEntry[] = Array.from({ length: 60 }, (_, i) => ({
    ev: 'in' as const,
    msg: fromVoce(`00000001${String(i).padStart(2, '0')}`),
  }));
  const missedTo = (env: { sent: { to: string; frame: SignedFrame }[] }) =>
    env.sent.filter((s) => s.to === TERCEIRO && s.frame.t === 'missed').length;
  const run = async (close: boolean) => {
    const { host, env } = fakeHost();
    const delivery = new DurableDelivery(host, memoryState({ log: [...log] }), 0);
    await delivery.start();
    delivery.onHave(TERCEIRO, { t: 'have', node: TERCEIRO, since: 0, ids: [] });
    assert.equal(missedTo(env), 50);
    if (close) delivery.close();
    env.clock += 1_000;
    t.mock.timers.tick(100);
    return missedTo(env);
  };
  t.mock.timers.enable({ apis: ['setTimeout'] });
  assert.equal(await run(false), 60, 'open, the rest goes on the next tick');
  assert.equal(await run(true), 50, 'closed, nothing more');
});

test("only the person's own words under our name skip the review; an agent's message under it is held", async () => {
  const state = memoryState();
  state.review = { reviewing: () => true, holds: () => true };
  const { host, env } = fakeHost();
  const delivery = new DurableDelivery(host, state, 0);
  await delivery.start();
  const own = (id: string, kind: 'human' | 'agent'): Envelope => ({
    id,
    from: 'self',
    node: VOCE.nodeId,
    kind,
    ts: 1,
    body: id,
  });
  delivery.onMsg(own('00000000e1', 'human'));
  delivery.onMsg(own('00000000e2', 'agent'));
  await settled();
  assert.deepEqual(
    delivery.unread().map((m) => m.id),
    ['00000000e1'],
  );
  assert.deepEqual(
    delivery.held().map((m) => m.id),
    ['00000000e2'],
  );
  assert.equal(env.sent.filter((s) => s.frame.t === 'ack').length, 2, 'both stored, both acked');
});

test('an ack or a refusal is the outbox’s only for an id it holds, counted or not; an id it does not hold is left to the other sender (the person’s says)', async () => {
  const state = memoryState();
  const { host, env } = fakeHost();
  const delivery = new DurableDelivery(host, state, 0);
  await delivery.start();
  state.outbox = [queued('00000000b1', ['voce'])];
  const acked: string[] = [];
  env.events.on('delivered', ({ id, by }) => acked.push(`${id} ${by}`));
  // Not ours: told so, and nothing happens.
  assert.equal(delivery.onAck('00000000ff', 'voce'), false);
  assert.equal(delivery.onRefused('00000000ff', 'voce'), false);
  // Ours, from a member it is not owed to: ours, and the outbox keeps it.
  assert.equal(delivery.onAck('00000000b1', 'colega'), true);
  assert.equal(delivery.onRefused('00000000b1', 'colega'), true);
  await settled();
  assert.deepEqual(acked, []);
  assert.equal(state.outbox.length, 1);
  // Ours, from the one it is owed to: delivered.
  assert.equal(delivery.onAck('00000000b1', 'Voce'), true);
  await settled();
  await settled();
  assert.deepEqual(acked, ['00000000b1 Voce']);
  assert.deepEqual(state.outbox, []);
});
