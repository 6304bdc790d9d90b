// The per-recipient outbox and catch-up inside one room node (ADR 0063), with an in-memory state
// and a transport that records what the node sends to each of two neighbours: who a message is
// owed to, which acks count, and what the catch-up frames do and do not do (one answer per link,
// never forwarded, no sign of life for the original sender, nothing for ephemeral members).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PapoError } from '../../src/client/errors.js';
import { RoomNode, type RoomNodeOptions } from '../../src/client/room/room-node.js';
import type { QueuedMessage } from '../../src/client/store/outbox.js';
import type { MemberState } from '../../src/client/store/profile-store.js';
import type { FrameCodec, SignedFrame } from '../../src/client/wire/frame-codec.js';
import { envelopeOf, type Frame, MAX_SEALED_FRAME_BYTES, msgFrame } from '../../src/client/wire/frames.js';
import { generateIdentity, type Identity } from '../../src/client/wire/identity.js';
import type { Envelope, LogEntry } from '../../src/client/wire/messages.js';
import { generateSecret } from '../../src/client/wire/room-crypto.js';
import { type MemoryState, memoryState } from '../support/memory-state.js';
import { RecordingTransport, roomCodecs } from '../support/recording-transport.js';

// Every frame is signed by its node's key (ADR 0064): each member here has one.
const KEYS = {
  self: generateIdentity(),
  colega: generateIdentity(),
  terceiro: generateIdentity(),
  voce: generateIdentity(),
  quarto: generateIdentity(),
  whoever: generateIdentity(),
  // People (`papo say`): voce's, and Self's own, each under their agent's name, kind human.
  pessoa: generateIdentity(),
  dono: generateIdentity(),
};
const SELF = KEYS.self.nodeId;
const COLEGA = KEYS.colega.nodeId;
const TERCEIRO = KEYS.terceiro.nodeId;
const VOCE = KEYS.voce.nodeId;
const TOPIC = 'e'.repeat(64);
const ROOM_KEY = generateSecret();
const byNode = new Map<string, Identity>(Object.values(KEYS).map((k) => [k.nodeId, k]));
/** The key of a member by name (acks name who sends them). */
const byName = (name: string): Identity => KEYS[name.toLowerCase() as keyof typeof KEYS];
const codecs = roomCodecs(ROOM_KEY, TOPIC);
const codecOf = (node: string): FrameCodec => codecs(byNode.get(node) as Identity);

function setup(
  state: MemoryState | null,
  t: { after: (fn: () => unknown) => void },
  extra: Partial<RoomNodeOptions> = {},
) {
  const transport = new RecordingTransport([COLEGA, TERCEIRO]);
  const node = new RoomNode({
    ...extra,
    name: 'Self',
    kind: state ? 'agent' : 'human',
    nodeId: SELF,
    roomId: '7a2e64ec',
    codec: codecOf(SELF),
    transport,
    state,
    memberSince: 1_000,
  });
  t.after(() => node.close());
  // The node's timers do not hold the process (unref); this does while a test awaits them.
  const alive = setInterval(() => {}, 1000);
  t.after(() => clearInterval(alive));
  const framesTo = (peer: string): SignedFrame[] =>
    transport.sent.filter((s) => s.peer === peer).map((s) => codecOf(COLEGA).open(s.data));
  /** A frame from a member, signed by its key: an ack's by `by`, a digest's by the link's peer; a
   * missed message keeps the signature its sender gave it. */
  const from = (peer: string, frame: { t: Frame['t'] } & Record<string, unknown>) => {
    let bytes: Uint8Array;
    if (frame.t === 'missed') bytes = codecOf(peer).seal(frame as unknown as SignedFrame);
    else {
      const node =
        frame.t === 'ack'
          ? byName(frame.by as string).nodeId
          : frame.t === 'have'
            ? peer
            : (frame.node as string);
      bytes = codecOf(node).signAndSeal({ ...frame, node } as unknown as Frame);
    }
    transport.emit('link-message', peer, bytes);
  };
  const hello = (peer: string, node: string, name: string, ephemeral = false) =>
    from(peer, { t: 'hello', node, name, kind: 'agent', ephemeral, ts: Date.now() });
  return { node, transport, framesTo, from, hello };
}

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

/** A message from voce, signed by voce's key as voce's papo would. */
function envelope(id: string, extra: Partial<Envelope> = {}): Envelope {
  const raw: Envelope = {
    id,
    from: 'voce',
    node: VOCE,
    kind: 'agent',
    ts: Date.now(),
    body: `body ${id}`,
    ...extra,
  };
  return envelopeOf(codecOf(VOCE).sign(msgFrame(raw)));
}

test('a message to the room is owed to every member known; each owed ack counts once, others not at all', async (t) => {
  const state = memoryState();
  state.peers = {
    [COLEGA]: { name: 'colega', kind: 'agent', lastSeen: 0 },
    [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 },
  };
  const { node, framesTo, from } = setup(state, t);
  await node.start();
  const delivered: string[] = [];
  node.on('delivered', ({ by }) => delivered.push(by));
  const sending = node.send({ body: 'to everyone' }, 300);
  await tick();
  const sent = framesTo(COLEGA).find((f) => f.t === 'msg') as { id: string };
  assert.deepEqual(
    state.outbox.map((q: QueuedMessage) => q.owed),
    [['colega', 'terceiro']],
  );
  from(COLEGA, { t: 'ack', id: sent.id, by: 'quarto' }); // not owed: nothing
  from(COLEGA, { t: 'ack', id: sent.id, by: 'COLEGA' });
  from(COLEGA, { t: 'ack', id: sent.id, by: 'colega' }); // again: nothing
  const result = await sending;
  assert.equal(result.ackedBy, 'COLEGA');
  assert.deepEqual(result.acked, ['COLEGA']);
  assert.deepEqual(result.owed, ['terceiro']);
  assert.deepEqual(node.queuedFor(), [{ name: 'terceiro', count: 1 }]);
  assert.deepEqual(
    state.log.filter((e) => e.ev === 'delivered').map((e) => e.ev === 'delivered' && e.by),
    ['COLEGA'],
  );
  from(TERCEIRO, { t: 'ack', id: sent.id, by: 'terceiro' });
  await tick();
  assert.equal(node.queuedCount(), 0);
  assert.deepEqual(delivered, ['COLEGA', 'terceiro']);
});

test('knowing nobody, the first ack clears a message to the room (the book); forget empties owed lists', async (t) => {
  const state = memoryState();
  const { node, framesTo, from } = setup(state, t);
  await node.start();
  const sending = node.send({ body: 'anyone?' }, 300);
  await tick();
  const sent = framesTo(COLEGA).find((f) => f.t === 'msg') as { id: string };
  assert.equal(state.outbox[0]?.owed, undefined);
  from(COLEGA, { t: 'ack', id: sent.id, by: 'whoever' });
  assert.equal((await sending).ackedBy, 'whoever');
  assert.equal(node.queuedCount(), 0);

  state.peers = { [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 } };
  await node.send({ body: 'to terceiro, who left' }, 50);
  assert.equal(node.queuedCount(), 1);
  assert.deepEqual(await node.forget('Terceiro'), { released: 1, peers: 1 });
  assert.equal(node.queuedCount(), 0);
  assert.deepEqual(state.peers, {});
});

test('a message owed only to offline members is not re-sent to the others; it is to a neighbour it is owed to', async (t) => {
  const state = memoryState();
  state.peers = { [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 } };
  const { node, transport, framesTo } = setup(state, t);
  transport.links = [COLEGA];
  await node.start();
  await node.send({ body: 'for terceiro later' }, 50);
  transport.sent = [];
  transport.emit('link-open', COLEGA);
  assert.deepEqual(
    framesTo(COLEGA).map((f) => f.t),
    ['hello', 'have'],
  );
  transport.links = [COLEGA, TERCEIRO];
  transport.emit('link-open', TERCEIRO);
  assert.deepEqual(
    framesTo(TERCEIRO).map((f) => f.t),
    ['hello', 'msg', 'have'],
  );
});

test('catch-up: a digest on every new link; what the peer lacks and may read, once per link, to that link only', async (t) => {
  const log: LogEntry[] = [
    { ev: 'in', msg: envelope('0000000001') },
    { ev: 'in', msg: envelope('0000000002', { to: 'Self' }) },
    { ev: 'in', msg: envelope('0000000003', { to: 'terceiro' }) },
    { ev: 'in', msg: envelope('0000000004', { ts: Date.now() - 60_000 }) }, // before the peer joined
  ];
  const state = memoryState({ log: log });
  const { node, transport, framesTo, from, hello } = setup(state, t);
  await node.start();
  const digest = framesTo(COLEGA).find((f) => f.t === 'have');
  assert.deepEqual(digest && digest.t === 'have' && digest.ids, [
    '0000000001',
    '0000000002',
    '0000000003',
    '0000000004',
  ]);
  transport.sent = [];
  hello(TERCEIRO, TERCEIRO, 'terceiro');
  from(TERCEIRO, { t: 'have', since: Date.now() - 30_000, ids: ['0000000001'] });
  from(TERCEIRO, { t: 'have', since: 0, ids: [] }); // a second digest on the same link: no answer
  await tick();
  const missed = framesTo(TERCEIRO).filter((f) => f.t === 'missed') as Envelope[];
  assert.deepEqual(
    missed.map((m) => m.id),
    ['0000000003'],
  );
  assert.deepEqual(
    missed[0],
    { t: 'missed', ...(log[2] as { msg: Envelope }).msg },
    'the envelope as stored',
  );
  assert.ok(
    !framesTo(COLEGA).some((f) => f.t === 'have' || f.t === 'missed'),
    'neither the digest nor the answer is forwarded',
  );
  // The link closes and opens again: a new link, a new answer.
  transport.emit('link-close', TERCEIRO);
  transport.sent = [];
  from(TERCEIRO, { t: 'have', since: 0, ids: [] });
  await tick();
  assert.deepEqual(
    framesTo(TERCEIRO)
      .filter((f) => f.t === 'missed')
      .map((f) => f.t === 'missed' && f.id),
    ['0000000001', '0000000003', '0000000004'],
  );
  // An ephemeral member (papo say) gets nothing.
  transport.sent = [];
  hello(COLEGA, COLEGA, 'colega', true);
  from(COLEGA, { t: 'have', since: 0, ids: [] });
  await tick();
  assert.ok(!framesTo(COLEGA).some((f) => f.t === 'missed'));
});

test('a missed message is stored and acked, not forwarded, and says nothing about its sender being online', async (t) => {
  const state = memoryState();
  const { node, framesTo, from, hello, transport } = setup(state, t);
  await node.start();
  hello(COLEGA, VOCE, 'voce'); // voce's hello, forwarded by colega
  assert.equal(node.members().find((m) => m.name === 'voce')?.online, true);
  transport.emit('peer-left', VOCE);
  assert.equal(node.members().find((m) => m.name === 'voce')?.online, false);
  transport.sent = [];
  const missed = envelope('00000000aa');
  from(COLEGA, { t: 'missed', ...missed });
  await tick();
  assert.deepEqual(
    state.inbox.map((m) => m.id),
    [missed.id],
  );
  assert.ok(
    framesTo(TERCEIRO).some((f) => f.t === 'ack' && f.id === missed.id),
    'the ack is broadcast',
  );
  assert.ok(!framesTo(TERCEIRO).some((f) => f.t === 'missed'), 'the missed frame is not forwarded');
  assert.equal(node.members().find((m) => m.name === 'voce')?.online, false);
  // A second copy (another member also had it) is acked again, not stored again.
  from(TERCEIRO, { t: 'missed', ...missed });
  await tick();
  assert.equal(state.inbox.length, 1);
});

test('an ephemeral member sends no digest', async (t) => {
  const { node, framesTo } = setup(null, t);
  await node.start();
  assert.deepEqual(
    framesTo(COLEGA).map((f) => f.t),
    ['hello'],
  );
});

// The durable delivery's other rules (durable-delivery.ts), through the room node as papo mcp
// drives it: found unchecked by mutation testing (ADR 0080).

/** A message from `name`, signed by its key (colega, terceiro or voce). */
function msgOf(name: 'colega' | 'terceiro' | 'voce', id: string, extra: Partial<Envelope> = {}): Envelope {
  const raw: Envelope = {
    id,
    from: name,
    node: byName(name).nodeId,
    kind: 'agent',
    ts: Date.now(),
    body: `body ${id}`,
    ...extra,
  };
  return envelopeOf(codecOf(raw.node).sign(msgFrame(raw)));
}

/** A memory state whose inbox also forgets what is read. */
function readableState(): MemoryState {
  const state = memoryState();
  state.removeFromInbox = async (ids) => {
    const drop = new Set(ids);
    state.inbox = state.inbox.filter((m) => !drop.has(m.id));
  };
  return state;
}

test('the inbox: read, restored without doubles, and a reply reads the earlier messages of its sender', async (t) => {
  const state = readableState();
  const { node, from } = setup(state, t);
  await node.start();
  const [a, b, c, d] = [
    msgOf('voce', '00000000a1'),
    msgOf('colega', '00000000b1'),
    msgOf('voce', '00000000a2'),
    msgOf('voce', '00000000a3'),
  ];
  for (const m of [a, b, c, d]) from(COLEGA, { t: 'msg', ...m });
  await tick();
  const ids = () => node.unread().map((m) => m.id);
  assert.deepEqual(ids(), [a.id, b.id, c.id, d.id]);
  await node.markRepliedTo('ffffffffff');
  assert.deepEqual(ids(), [a.id, b.id, c.id, d.id], 'a reply to no unread message reads nothing');
  // Replying to c reads c and what voce sent before it; colega's message and voce's later one stay.
  await node.markRepliedTo(c.id);
  assert.deepEqual(ids(), [b.id, d.id]);
  await node.consume([]);
  await node.consume([b.id]);
  assert.deepEqual(ids(), [d.id]);
  // A read that failed to reach the agent puts messages back, each once.
  await node.restore([]);
  await node.restore([d, b]);
  assert.deepEqual(ids(), [d.id, b.id]);
  assert.deepEqual(
    (await node.history(2)).map((e) => e.ev === 'in' && e.msg.id),
    [c.id, d.id],
  );
});

test('a message for another member is neither stored nor acked; one for us by any case of our name is', async (t) => {
  const state = memoryState();
  const { node, framesTo, from } = setup(state, t);
  await node.start();
  from(COLEGA, { t: 'msg', ...msgOf('voce', '00000000c1', { to: 'terceiro' }) });
  from(COLEGA, { t: 'msg', ...msgOf('voce', '00000000c2', { to: 'SELF' }) });
  await tick();
  assert.deepEqual(
    state.inbox.map((m) => m.id),
    ['00000000c2'],
  );
  assert.deepEqual(
    framesTo(TERCEIRO)
      .filter((f) => f.t === 'ack')
      .map((f) => f.t === 'ack' && f.id),
    ['00000000c2'],
  );
});

test('a full inbox refuses the message and tells the room why; another store failure only logs', async (t) => {
  const lines: string[] = [];
  const state = memoryState();
  let failure: Error = new PapoError('inbox_full', 'the inbox holds 1000 unread messages (1 bytes)');
  state.addToInbox = async () => {
    throw failure;
  };
  const { node, framesTo, from } = setup(state, t, { log: (line) => lines.push(line) });
  await node.start();
  from(COLEGA, { t: 'msg', ...msgOf('voce', '00000000d1') });
  await tick();
  const refused = framesTo(TERCEIRO).filter((f) => f.t === 'refused');
  assert.equal(refused.length, 1);
  const { sig: _sig, ...frame } = refused[0] as SignedFrame;
  assert.deepEqual(frame, { t: 'refused', id: '00000000d1', by: 'Self', node: SELF, why: 'inbox_full' });
  assert.ok(
    lines.includes('could not store message 00000000d1: the inbox holds 1000 unread messages (1 bytes)'),
  );
  failure = new Error('disk on fire');
  from(COLEGA, { t: 'msg', ...msgOf('voce', '00000000d2') });
  await tick();
  assert.equal(
    framesTo(TERCEIRO).filter((f) => f.t === 'refused').length,
    1,
    'no refusal for another failure',
  );
  assert.ok(!framesTo(TERCEIRO).some((f) => f.t === 'ack'), 'nothing stored, nothing acked');
  assert.ok(lines.includes('could not store message 00000000d2: disk on fire'));
});

test('a log that cannot be written loses a history line, not the message: it is stored and acked', async (t) => {
  const lines: string[] = [];
  const state = memoryState();
  state.appendLog = async () => {
    throw new Error('log unwritable');
  };
  const { node, framesTo, from } = setup(state, t, { log: (line) => lines.push(line) });
  await node.start();
  from(COLEGA, { t: 'msg', ...msgOf('voce', '00000000e1') });
  await tick();
  assert.deepEqual(
    state.inbox.map((m) => m.id),
    ['00000000e1'],
  );
  assert.ok(framesTo(TERCEIRO).some((f) => f.t === 'ack' && f.id === '00000000e1'));
  assert.ok(lines.includes('could not log message 00000000e1: log unwritable'));
  // A send whose log line fails after the outbox was written still goes out (the outbox holds it).
});

test('a refusal counts only from the member a message is for', async (t) => {
  const state = memoryState();
  const { node, framesTo, from } = setup(state, t);
  await node.start();
  const sending = node.send({ body: 'for colega', to: 'colega' }, 2000);
  await tick();
  const sent = framesTo(COLEGA).find((f) => f.t === 'msg') as { id: string };
  from(COLEGA, { t: 'refused', id: 'ffffffffff', by: 'colega', node: COLEGA, why: 'inbox_full' });
  from(COLEGA, { t: 'refused', id: sent.id, by: 'terceiro', node: TERCEIRO, why: 'inbox_full' });
  from(COLEGA, { t: 'refused', id: sent.id, by: 'colega', node: COLEGA, why: 'inbox_full' });
  const result = await sending;
  assert.deepEqual([result.ackedBy, result.refusedBy], [null, 'colega']);
  assert.equal(node.queuedCount(), 1, 'still queued: it goes once colega has read');
});

test('after the first ack a send waits for the others online it is owed to, not for those offline', async (t) => {
  const state = memoryState();
  state.peers = {
    [COLEGA]: { name: 'colega', kind: 'agent', lastSeen: 0 },
    [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 },
  };
  const { node, transport, framesTo, from, hello } = setup(state, t);
  transport.links = [COLEGA];
  await node.start();
  // Terceiro offline: colega's ack ends the send; terceiro's later ack is not in its result.
  const first = node.send({ body: 'one' }, 5000);
  await tick();
  const one = framesTo(COLEGA).find((f) => f.t === 'msg') as { id: string };
  from(COLEGA, { t: 'ack', id: one.id, by: 'colega' });
  setTimeout(() => from(COLEGA, { t: 'ack', id: one.id, by: 'terceiro' }), 30);
  const r1 = await first;
  assert.deepEqual([r1.acked, r1.owed], [['colega'], ['terceiro']]);
  await tick(60);
  // Both online: the send waits for terceiro too (up to a second).
  transport.links = [COLEGA, TERCEIRO];
  transport.emit('link-open', TERCEIRO);
  hello(COLEGA, COLEGA, 'colega');
  hello(TERCEIRO, TERCEIRO, 'terceiro');
  const second = node.send({ body: 'two' }, 5000);
  await tick();
  const two = framesTo(COLEGA).filter((f) => f.t === 'msg')[1] as { id: string };
  from(COLEGA, { t: 'ack', id: two.id, by: 'colega' });
  setTimeout(() => from(TERCEIRO, { t: 'ack', id: two.id, by: 'terceiro' }), 30);
  const r2 = await second;
  assert.deepEqual([r2.acked, r2.owed], [['colega', 'terceiro'], []]);
  // Owed lists are per message: the second message's are not the first's.
  assert.deepEqual(node.queuedFor(), []);
});

test('a send whose ack came when its time was up does not wait for the others', async (t) => {
  const state = memoryState();
  state.peers = {
    [COLEGA]: { name: 'colega', kind: 'agent', lastSeen: 0 },
    [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 },
  };
  let clock = 1_000_000;
  const { node, framesTo, from, hello } = setup(state, t, { now: () => clock });
  await node.start();
  hello(COLEGA, COLEGA, 'colega');
  hello(TERCEIRO, TERCEIRO, 'terceiro');
  const sending = node.send({ body: 'late' }, 5000);
  await tick();
  const sent = framesTo(COLEGA).find((f) => f.t === 'msg') as { id: string };
  clock += 5000; // exactly the send's time: nothing left to wait
  from(COLEGA, { t: 'ack', id: sent.id, by: 'colega' });
  setTimeout(() => from(TERCEIRO, { t: 'ack', id: sent.id, by: 'terceiro' }), 30);
  const result = await sending;
  assert.deepEqual([result.acked, result.owed], [['colega'], ['terceiro']]);
  await tick(60);
});

test('forget writes the outbox only when it released something', async (t) => {
  const state = memoryState();
  let saves = 0;
  state.saveOutbox = async () => {
    saves++;
  };
  state.peers = { [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 } };
  const { node } = setup(state, t);
  await node.start();
  await node.send({ body: 'for terceiro' }, 20);
  assert.equal(saves, 1);
  assert.deepEqual(await node.forget('nobody'), { released: 0, peers: 0 });
  assert.equal(saves, 1);
  assert.deepEqual(await node.forget('terceiro'), { released: 1, peers: 1 });
  assert.equal(saves, 2);
});

test('a digest is answered again on the same link once 25 s have passed, and from a peer not yet met', async (t) => {
  const log: LogEntry[] = [{ ev: 'in', msg: envelope('00000000f1') }];
  const lines: string[] = [];
  let clock = Date.now();
  const state = memoryState({ log: log });
  const { node, transport, framesTo, from } = setup(state, t, {
    now: () => clock,
    log: (l) => lines.push(l),
  });
  await node.start();
  transport.sent = [];
  // No hello from terceiro yet: its digest is answered all the same.
  from(TERCEIRO, { t: 'have', since: 0, ids: [] });
  await tick();
  const missed = () => framesTo(TERCEIRO).filter((f) => f.t === 'missed').length;
  assert.equal(missed(), 1);
  assert.ok(
    lines.includes(`catch-up: sending 1 of 1 missed messages to ${TERCEIRO.slice(0, 10)}`),
    lines.join('\n'),
  );
  clock += 24_999;
  from(TERCEIRO, { t: 'have', since: 0, ids: [] });
  await tick();
  assert.equal(missed(), 1, 'not within 25 s');
  clock += 1;
  from(TERCEIRO, { t: 'have', since: 0, ids: [] });
  await tick();
  assert.equal(missed(), 2, 'at 25 s');
  // A digest that lacks nothing gets nothing, and no line.
  clock += 25_000;
  const before = lines.length;
  from(TERCEIRO, { t: 'have', since: 0, ids: ['00000000f1'] });
  await tick();
  assert.equal(missed(), 2);
  assert.equal(lines.length, before);
});

test('what the log and the outbox keep: a sent message logged as out, a failed write taking only its own message back', async (t) => {
  const lines: string[] = [];
  const state = memoryState();
  state.peers = { [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 } };
  const { node, transport, framesTo, from } = setup(state, t, { log: (l) => lines.push(l) });
  transport.links = [COLEGA];
  await node.start();
  const first = await node.send({ body: 'kept' }, 20);
  assert.deepEqual(
    state.log.map((e) => e.ev === 'out' && e.msg.id),
    [first.id],
  );
  assert.equal((state.log[0] as { msg: Envelope }).msg.body, 'kept');
  state.saveOutbox = async () => {
    throw new Error('disk full');
  };
  await assert.rejects(node.send({ body: 'lost' }, 20), /disk full/);
  assert.deepEqual(
    state.outbox.map((m) => m.id),
    [first.id],
    'only the message whose write failed is taken back',
  );
  // An ack whose outbox write fails: said in the log, the message stays as it was.
  from(COLEGA, { t: 'ack', id: first.id, by: 'terceiro' });
  await tick();
  assert.ok(lines.includes('could not update the outbox: disk full'), lines.join('\n'));
  assert.ok(framesTo(COLEGA).some((f) => f.t === 'msg'));
});

test('acks and refusals change only the message they name, among several queued', async (t) => {
  const state = memoryState();
  state.peers = {
    [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 },
    [VOCE]: { name: 'voce', kind: 'agent', lastSeen: 0 },
  };
  const { node, transport, from } = setup(state, t);
  transport.links = [COLEGA];
  await node.start();
  const a = await node.send({ body: 'a' }, 20);
  const b = await node.send({ body: 'b' }, 20);
  const c = await node.send({ body: 'c', to: 'voce' }, 20);
  assert.deepEqual(
    state.outbox.map((m) => m.owed),
    [['terceiro', 'voce'], ['terceiro', 'voce'], ['voce']],
  );
  from(COLEGA, { t: 'ack', id: b.id, by: 'terceiro' });
  await tick();
  assert.deepEqual(
    state.outbox.map((m) => [m.id, m.owed]),
    [
      [a.id, ['terceiro', 'voce']],
      [b.id, ['voce']],
      [c.id, ['voce']],
    ],
  );
  from(COLEGA, { t: 'ack', id: b.id, by: 'voce' });
  await tick();
  assert.deepEqual(
    state.outbox.map((m) => m.id),
    [a.id, c.id],
  );
});

test('a store failure that is not a full inbox refuses nothing', async (t) => {
  const state = memoryState();
  state.addToInbox = async () => {
    throw new PapoError('io', 'disk gone');
  };
  const { node, framesTo, from } = setup(state, t);
  await node.start();
  from(COLEGA, { t: 'msg', ...msgOf('voce', '00000000d3') });
  await tick();
  assert.ok(!framesTo(TERCEIRO).some((f) => f.t === 'refused' || f.t === 'ack'));
});

test('catch-up vouches only for signed messages; a log that cannot be read at start is said, not fatal', async (t) => {
  const { sig: _sig, ...unsigned } = envelope('00000000f2');
  const log: LogEntry[] = [
    { ev: 'in', msg: unsigned },
    { ev: 'in', msg: envelope('00000000f3') },
  ];
  const state = memoryState({ log: log });
  const { node, transport, framesTo, from } = setup(state, t);
  await node.start();
  transport.sent = [];
  from(TERCEIRO, { t: 'have', since: 0, ids: [] });
  await tick();
  assert.deepEqual(
    framesTo(TERCEIRO)
      .filter((f) => f.t === 'missed')
      .map((f) => f.t === 'missed' && f.id),
    ['00000000f3'],
  );
  const lines: string[] = [];
  const broken = memoryState();
  broken.readLogTail = async () => {
    throw new Error('log unreadable');
  };
  const other = setup(broken, t, { log: (l) => lines.push(l) });
  await other.node.start();
  assert.ok(lines.includes('could not read the log for catch-up: log unreadable'), lines.join('\n'));
});

test('a reply to the oldest unread message reads it', async (t) => {
  const state = readableState();
  const { node, from } = setup(state, t);
  await node.start();
  const [a, b] = [msgOf('voce', '00000000a7'), msgOf('voce', '00000000a8')];
  for (const m of [a, b]) from(COLEGA, { t: 'msg', ...m });
  await tick();
  await node.markRepliedTo(a.id);
  assert.deepEqual(
    node.unread().map((m) => m.id),
    [b.id],
  );
});

/** A person's message (kind human) under `from`, signed by the person's own key. */
function personMsg(key: Identity, from: string, id: string): Envelope {
  const raw: Envelope = { id, from, node: key.nodeId, kind: 'human', ts: Date.now(), body: `said ${id}` };
  return envelopeOf(codecOf(key.nodeId).sign(msgFrame(raw)));
}

test("a reply reads the earlier messages of its sender's kind only: the person's words under the agent's name stay", async (t) => {
  const state = readableState();
  const { node, from } = setup(state, t);
  await node.start();
  const [a, said, c] = [
    msgOf('voce', '00000000a4'),
    personMsg(KEYS.pessoa, 'voce', '00000000a5'),
    msgOf('voce', '00000000a6'),
  ];
  for (const m of [a, said, c]) from(COLEGA, { t: 'msg', ...m });
  await tick();
  assert.deepEqual(
    node.unread().map((m) => [m.id, m.kind]),
    [
      [a.id, 'agent'],
      [said.id, 'human'],
      [c.id, 'agent'],
    ],
  );
  await node.markRepliedTo(c.id);
  assert.deepEqual(
    node.unread().map((m) => m.id),
    [said.id],
  );
});

test('among several queued messages, an ack, a refusal and a send result concern the message named', async (t) => {
  const state = memoryState();
  state.peers = {
    [COLEGA]: { name: 'colega', kind: 'agent', lastSeen: 0 },
    [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 },
  };
  const { node, transport, framesTo, from } = setup(state, t);
  transport.links = [COLEGA];
  await node.start();
  // First in the outbox: a message neither colega's ack nor its refusal counts for.
  await node.send({ body: 'for voce', to: 'voce' }, 20);
  const toRoom = node.send({ body: 'to the room' }, 2000);
  await tick();
  const sentIds = () => framesTo(COLEGA).flatMap((f) => (f.t === 'msg' ? [f.id] : []));
  const roomId = sentIds()[1] as string;
  from(COLEGA, { t: 'ack', id: roomId, by: 'colega' });
  const r1 = await toRoom;
  assert.deepEqual([r1.ackedBy, r1.acked, r1.owed], ['colega', ['colega'], ['terceiro']]);
  const toColega = node.send({ body: 'for colega', to: 'colega' }, 2000);
  await tick();
  from(COLEGA, { t: 'refused', id: sentIds()[2] as string, by: 'colega', node: COLEGA, why: 'inbox_full' });
  const r2 = await toColega;
  assert.deepEqual([r2.ackedBy, r2.refusedBy, r2.owed], [null, 'colega', ['colega']]);
  assert.deepEqual(
    state.outbox.map((m) => m.owed),
    [['voce'], ['terceiro'], ['colega']],
  );
});

test('two acks of one message in the same turn: the second finds it gone and changes nothing', async (t) => {
  const lines: string[] = [];
  const state = memoryState();
  const { node, framesTo, from } = setup(state, t, { log: (l) => lines.push(l) });
  await node.start();
  const sending = node.send({ body: 'for colega', to: 'colega' }, 2000);
  await tick();
  const sent = framesTo(COLEGA).find((f) => f.t === 'msg') as { id: string };
  // Two copies of colega's ack (it got our message twice), both before the outbox is written.
  from(COLEGA, { t: 'ack', id: sent.id, by: 'colega' });
  from(TERCEIRO, { t: 'ack', id: sent.id, by: 'colega' });
  assert.equal((await sending).ackedBy, 'colega');
  await tick();
  assert.equal(node.queuedCount(), 0);
  assert.deepEqual(state.log.filter((e) => e.ev === 'delivered').length, 1);
  assert.deepEqual(lines, [], 'no failed outbox update');
});

test('catch-up of a message whose msg frame is 64 KiB exactly: the longer missed frame is too large, said and skipped', async (t) => {
  const ts = Date.now();
  const sealedBytes = (m: Envelope) => codecOf(VOCE).seal(msgFrame(m) as SignedFrame).length;
  // A `"` takes two characters in the frame's JSON and one byte of the body: the frame's size is
  // tuned to the byte without passing the body's 48 KiB.
  const base = envelope('0000000b01', { ts, body: 'x' });
  const need = MAX_SEALED_FRAME_BYTES - (sealedBytes(base) - 1);
  const quotes = need - 48 * 1024 + 16;
  const big = envelope('0000000b01', { ts, body: `${'"'.repeat(quotes)}${'x'.repeat(need - 2 * quotes)}` });
  assert.equal(sealedBytes(big), MAX_SEALED_FRAME_BYTES, 'the msg frame is at the limit');
  assert.throws(() => codecOf(VOCE).seal({ ...big, t: 'missed' } as SignedFrame), /larger than 64 KiB/);
  const small = envelope('0000000b02', { ts });
  const lines: string[] = [];
  const state = memoryState({
    log: [
      { ev: 'in', msg: big },
      { ev: 'in', msg: small },
    ],
  });
  const { node, transport, framesTo, from } = setup(state, t, { log: (l) => lines.push(l) });
  await node.start();
  transport.sent = [];
  from(TERCEIRO, { t: 'have', since: 0, ids: [] });
  await tick();
  assert.deepEqual(
    framesTo(TERCEIRO).flatMap((f) => (f.t === 'missed' ? [f.id] : [])),
    [small.id],
  );
  assert.ok(
    lines.includes('catch-up: could not send 0000000b01: sealed frame larger than 64 KiB'),
    lines.join('\n'),
  );
});

/** A memory state that keeps held messages too (the review gate, ADR 0081). */
function reviewedState(holds: (m: Envelope) => boolean): MemoryState & { held: Envelope[] } {
  const state = readableState() as MemoryState & { held: Envelope[]; review: MemberState['review'] };
  state.held = [];
  state.addToHeld = async (m) => {
    state.held.push(m);
  };
  state.removeFromHeld = async (ids) => {
    const drop = new Set(ids);
    state.held = state.held.filter((m) => !drop.has(m.id));
  };
  state.review = { reviewing: () => true, holds };
  return state;
}

test("the review gate: what it holds is kept in held/, logged and acked as held; the person's own words reach the agent", async (t) => {
  const state = reviewedState(() => true);
  const { node, framesTo, from, transport } = setup(state, t);
  const events: string[] = [];
  node.on('held', (m) => events.push(`held ${m.id}`));
  node.on('message', (m) => events.push(`message ${m.id}`));
  await node.start();
  assert.equal(node.reviewing(), true);
  assert.equal((framesTo(COLEGA).find((f) => f.t === 'hello') as { review?: true }).review, true);
  transport.sent = [];
  const fromAgent = msgOf('voce', '00000000b5');
  const fromPerson = personMsg(KEYS.pessoa, 'voce', '00000000b6'); // voce's person, not ours
  const fromOwn = personMsg(KEYS.dono, 'self', '00000000b7'); // our person's papo say
  for (const m of [fromAgent, fromPerson, fromOwn]) from(COLEGA, { t: 'msg', ...m });
  await tick();
  assert.deepEqual(
    node.held().map((m) => m.id),
    [fromAgent.id, fromPerson.id],
  );
  assert.deepEqual(
    node.unread().map((m) => m.id),
    [fromOwn.id],
  );
  assert.deepEqual(events, [`held ${fromAgent.id}`, `held ${fromPerson.id}`, `message ${fromOwn.id}`]);
  assert.deepEqual(
    state.log.map((e) => e.ev === 'in' && [e.msg.id, e.held]),
    [
      [fromAgent.id, true],
      [fromPerson.id, true],
      [fromOwn.id, undefined],
    ],
  );
  assert.deepEqual(
    framesTo(TERCEIRO).flatMap((f) => (f.t === 'ack' ? [f.id] : [])),
    [fromAgent.id, fromPerson.id, fromOwn.id],
    'held or not, each is acked',
  );
  // The person approves one: the agent gets it as a new message.
  events.length = 0;
  const outcome = await node.decide({ approve: [fromPerson.id], reject: [] });
  assert.deepEqual(
    outcome.approved.map((m) => m.id),
    [fromPerson.id],
  );
  assert.deepEqual(events, [`message ${fromPerson.id}`]);
  assert.deepEqual(
    node.unread().map((m) => m.id),
    [fromOwn.id, fromPerson.id],
  );
  assert.deepEqual(
    node.held().map((m) => m.id),
    [fromAgent.id],
  );
});

test('at start, held messages whose decision a crash cut short are finished', async (t) => {
  const [kept, rejected] = [msgOf('voce', '00000000b8'), msgOf('voce', '00000000b9')];
  const state = reviewedState(() => true);
  state.held = [kept, rejected];
  state.log.push({ ev: 'review', id: rejected.id, decision: 'rejected', ts: 1 });
  const { node } = setup(state, t);
  await node.start();
  assert.deepEqual(
    node.held().map((m) => m.id),
    [kept.id],
  );
});
