// The per-recipient outbox and catch-up inside one room node (ADR 0063), with an in-memory state
// and a transport that records what the node sends to each of two neighbours: who a message is
// owed to, which acks count, and what the catch-up frames do and do not do (one answer per link,
// never forwarded, no sign of life for the original sender, nothing for ephemeral members).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { FrameCodec, type SignedFrame } from '../../src/client/frame-codec.js';
import { envelopeOf, type Frame, msgFrame } from '../../src/client/frames.js';
import { generateIdentity, type Identity } from '../../src/client/identity.js';
import type { LinkPath } from '../../src/client/member-api.js';
import type { Envelope, LogEntry } from '../../src/client/messages.js';
import type { QueuedMessage } from '../../src/client/outbox.js';
import { generateSecret } from '../../src/client/room-crypto.js';
import { type NodeState, RoomNode, type TransportEvents } from '../../src/client/room-node.js';

// Every frame is signed by its node's key (ADR 0064): each member here has one.
const KEYS = {
  self: generateIdentity(),
  colega: generateIdentity(),
  terceiro: generateIdentity(),
  voce: generateIdentity(),
  quarto: generateIdentity(),
  whoever: generateIdentity(),
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
const codecs = new Map<string, FrameCodec>();
function codecOf(node: string): FrameCodec {
  let codec = codecs.get(node);
  if (!codec) {
    codec = new FrameCodec(ROOM_KEY, TOPIC, byNode.get(node) as Identity);
    codecs.set(node, codec);
  }
  return codec;
}

class Recorder extends EventEmitter<TransportEvents> {
  sent: { peer: string; data: Uint8Array }[] = [];
  links = [COLEGA, TERCEIRO];
  send(peer: string, data: Uint8Array): boolean {
    this.sent.push({ peer, data });
    return true;
  }
  neighbours(): string[] {
    return this.links;
  }
  path(): LinkPath | undefined {
    return 'direct';
  }
}

type MemoryState = NodeState & { inbox: Envelope[]; log: LogEntry[] };

function memoryState(log: LogEntry[] = []): MemoryState {
  const state: MemoryState = {
    inbox: [],
    log,
    outbox: [],
    peers: {},
    addToInbox: async (m) => {
      state.inbox.push(m);
    },
    removeFromInbox: async () => {},
    held: [],
    addToHeld: async () => {},
    removeFromHeld: async () => {},
    review: { reviewing: () => false, holds: () => false },
    saveOutbox: async () => {},
    savePeers: async () => {},
    saveNames: async () => {},
    appendLog: async (e) => {
      state.log.push(e);
    },
    readLogTail: async (n) => state.log.slice(-n),
    inboundIds: async () => state.log.flatMap((e) => (e.ev === 'in' ? [e.msg.id] : [])),
  };
  return state;
}

function setup(state: MemoryState | null, t: { after: (fn: () => unknown) => void }) {
  const transport = new Recorder();
  const node = new RoomNode({
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
    from(peer, { t: 'hello', node, name, kind: 'agent', ephemeral });
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
  const state = memoryState(log);
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
