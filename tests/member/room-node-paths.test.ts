// The room node's delivery paths that only `papo mcp` processes drove before (issue 41): the
// person's handed says (RoomNode.sayAsPerson, ADR 0102), `papo forget`, an ack or a refusal under a
// name its key does not hold (an impostor's, ADR 0064), and a `name_taken` refusal of our own name.
// In process, fast enough to run once per mutant (ADR 0080): a real RoomNode with an in-memory
// state (the failures a disk rarely shows injected there), a transport that records what it sends
// to each of two neighbours, and every frame sealed and signed by a real key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PapoError } from '../../src/client/errors.js';
import { KnownNames, MAX_KNOWN_NAMES } from '../../src/client/room/member-names.js';
import {
  MAX_KNOWN_PEERS,
  ONLINE_WINDOW_MS,
  RoomNode,
  type RoomNodeOptions,
} from '../../src/client/room/room-node.js';
import type { NameRecord } from '../../src/client/store/profile-store.js';
import type { FrameCodec, SignedFrame } from '../../src/client/wire/frame-codec.js';
import { type Frame, MAX_ABOUT_CHARS, MAX_BODY_BYTES } from '../../src/client/wire/frames.js';
import { generateIdentity, type Identity } from '../../src/client/wire/identity.js';
import { generateSecret } from '../../src/client/wire/room-crypto.js';
import { type MemoryState, memoryState } from '../support/memory-state.js';
import { RecordingTransport, roomCodecs } from '../support/recording-transport.js';

const KEYS = {
  self: generateIdentity(),
  /** Self's person: the key of the says `papo say` hands to Self. */
  dono: generateIdentity(),
  colega: generateIdentity(),
  terceiro: generateIdentity(),
  /** A key that claims a name another key holds. */
  impostor: generateIdentity(),
  /** A newcomer taking a name that was let go. */
  novo: generateIdentity(),
};
const SELF = KEYS.self.nodeId;
const DONO = KEYS.dono.nodeId;
const COLEGA = KEYS.colega.nodeId;
const TERCEIRO = KEYS.terceiro.nodeId;
const IMPOSTOR = KEYS.impostor.nodeId;
const TOPIC = 'f'.repeat(64);
const ROOM_KEY = generateSecret();
const codecOf = roomCodecs(ROOM_KEY, TOPIC);
/** Opens what the node sent (the signature is checked against the key the frame names). */
const reader = codecOf(KEYS.colega);

interface Setup {
  node: RoomNode;
  transport: RecordingTransport;
  lines: string[];
  framesTo(peer: string): SignedFrame[];
  /** A frame signed by `key` (its node id in `node`), arriving over `peer`'s link. */
  from(peer: string, key: Identity, frame: Record<string, unknown> & { t: Frame['t'] }): void;
  /** A hello of `key`'s, over its own link (terceiro's, else colega's) or `over`, forwarded. */
  hello(key: Identity, name: string, extra?: Record<string, unknown>, over?: string): void;
}

type Extra = Omit<Partial<RoomNodeOptions>, 'personCodec' | 'person'> & {
  /** null: the member has no person's key (default: dono's). */
  personCodec?: FrameCodec | null;
  /** null: its hellos name no person (default: dono's key). */
  person?: string | null;
};

/** Self, an agent whose person's key is dono's, linked to colega and terceiro. */
function setup(
  state: MemoryState | null,
  t: { after: (fn: () => unknown) => void },
  extra: Extra = {},
): Setup {
  const transport = new RecordingTransport([COLEGA, TERCEIRO]);
  const lines: string[] = [];
  const { personCodec = codecOf(KEYS.dono), person = DONO, ...rest } = extra;
  const node = new RoomNode({
    name: 'Self',
    kind: 'agent',
    nodeId: SELF,
    roomId: '7a2e64ec',
    codec: codecOf(KEYS.self),
    transport,
    state,
    ...(person ? { person } : {}),
    ...(personCodec ? { personCodec } : {}),
    log: (line) => lines.push(line),
    ...rest,
  });
  t.after(() => node.close());
  // The node's timers do not hold the process (unref); this does while a test awaits them.
  const alive = setInterval(() => {}, 1000);
  t.after(() => clearInterval(alive));
  const framesTo = (peer: string) =>
    transport.sent.filter((s) => s.peer === peer).map((s) => reader.open(s.data));
  const from: Setup['from'] = (peer, key, frame) =>
    transport.emit(
      'link-message',
      peer,
      codecOf(key).signAndSeal({ ...frame, node: key.nodeId } as unknown as Frame),
    );
  const hello: Setup['hello'] = (key, name, more = {}, over = key === KEYS.terceiro ? TERCEIRO : COLEGA) =>
    from(over, key, {
      t: 'hello',
      name,
      kind: 'agent',
      ephemeral: false,
      ts: Date.now(),
      ...more,
    });
  return { node, transport, lines, framesTo, from, hello };
}

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

/** The frames of type `t` sent to `peer`, without their signatures. */
function sentOf(s: Setup, peer: string, t: Frame['t']): Record<string, unknown>[] {
  return s
    .framesTo(peer)
    .filter((f) => f.t === t)
    .map((f) => {
      const { sig: _sig, ...rest } = f;
      return rest;
    });
}

// ---- the person's handed says (sayAsPerson) -----------------------------------------------------

test("a say handed by the person goes out under the person's key, with the say's id and time; the agent keeps it and confirms first, then each member once", async (t) => {
  const state = memoryState();
  const s = setup(state, t);
  await s.node.start();
  s.transport.sent = [];
  const heard: string[] = [];
  const ts = Date.now() - 5;
  const result = await s.node.sayAsPerson({ body: 'from the terminal', id: '00000000a1', ts }, 2000, (by) =>
    heard.push(by),
  );
  assert.deepEqual(result, { id: '00000000a1', ackedBy: 'Self', refusedBy: null });
  assert.deepEqual(heard, ['Self']);
  const said = {
    t: 'msg',
    id: '00000000a1',
    from: 'Self',
    node: DONO,
    kind: 'human',
    ts,
    body: 'from the terminal',
  };
  for (const peer of [COLEGA, TERCEIRO]) assert.deepEqual(sentOf(s, peer, 'msg'), [said]);
  // On the agent's disk as the person's words, read by the agent (never held), logged, acked.
  assert.deepEqual(
    state.inbox.map((m) => [m.id, m.kind, m.node]),
    [['00000000a1', 'human', DONO]],
  );
  assert.deepEqual(
    state.log.map((e) => e.ev === 'in' && e.msg.id),
    ['00000000a1'],
  );
  assert.deepEqual(sentOf(s, COLEGA, 'ack'), [{ t: 'ack', id: '00000000a1', by: 'Self', node: SELF }]);
  assert.ok(s.lines.includes('sending 00000000a1 for the person'), s.lines.join('\n'));
  // Each member that confirms is heard once, after the say's first answer too; the outbox is not
  // the say's: nothing queued, nothing logged as delivered.
  s.from(COLEGA, KEYS.colega, { t: 'ack', id: '00000000a1', by: 'colega' });
  s.from(TERCEIRO, KEYS.colega, { t: 'ack', id: '00000000a1', by: 'COLEGA' });
  s.from(TERCEIRO, KEYS.terceiro, { t: 'ack', id: '00000000a1', by: 'terceiro' });
  assert.deepEqual(heard, ['Self', 'colega', 'terceiro']);
  assert.equal(s.node.queuedCount(), 0);
  assert.ok(!state.log.some((e) => e.ev === 'delivered'));
  // The agent's own send is still confirmed by its acks (the say's sender did not take them).
  const sending = s.node.send({ body: 'the agent speaks' }, 2000);
  await tick();
  const sent = sentOf(s, COLEGA, 'msg')[1] as { id: string; node: string };
  assert.equal(sent.node, SELF);
  s.from(COLEGA, KEYS.colega, { t: 'ack', id: sent.id, by: 'colega' });
  assert.equal((await sending).ackedBy, 'colega');
});

test('a say its agent could not keep: nobody confirms it in its time, it is sent again with the same signature on a link that opens, until a member confirms it', async (t) => {
  const state = memoryState({ failInbox: true });
  const s = setup(state, t);
  await s.node.start();
  s.transport.sent = [];
  const heard: string[] = [];
  const result = await s.node.sayAsPerson({ body: 'nobody yet' }, 60, (by) => heard.push(by));
  assert.deepEqual([result.ackedBy, result.refusedBy], [null, null]);
  assert.match(result.id, /^[0-9a-f]{10}$/);
  assert.deepEqual(heard, [], 'the agent did not confirm what it could not store');
  assert.equal(state.inbox.length, 0);
  const first = s.framesTo(COLEGA).find((f) => f.t === 'msg') as SignedFrame & { id: string; node: string };
  assert.equal(first.id, result.id);
  assert.equal(first.node, DONO);
  // A link opens (or opens again): the say goes with the person's signature, as first sent.
  s.transport.sent = [];
  s.transport.emit('link-open', COLEGA);
  const again = s.framesTo(COLEGA).filter((f) => f.t === 'msg');
  assert.deepEqual(again, [first]);
  s.from(COLEGA, KEYS.colega, { t: 'ack', id: result.id, by: 'colega' });
  assert.deepEqual(heard, ['colega']);
  s.transport.sent = [];
  s.transport.emit('link-open', TERCEIRO);
  assert.deepEqual(
    s.framesTo(TERCEIRO).map((f) => f.t),
    ['hello', 'have'],
    'confirmed: not sent again',
  );
});

test('a say is held for late acks a second past its wait, and then forgotten', async (t) => {
  // The node's timers on a clock moved by hand (its intervals stay real: they are unref'd).
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const state = memoryState({ failInbox: true });
  const s = setup(state, t);
  await s.node.start();
  const heard: string[] = [];
  const saying = s.node.sayAsPerson({ body: 'late ones' }, 50, (by) => heard.push(by));
  await new Promise((r) => setImmediate(r));
  t.mock.timers.tick(50);
  const { id, ackedBy } = await saying;
  assert.equal(ackedBy, null);
  const resent = () => {
    s.transport.sent = [];
    s.transport.emit('link-open', TERCEIRO);
    return s.framesTo(TERCEIRO).flatMap((f) => (f.t === 'msg' ? [f.id] : []));
  };
  t.mock.timers.tick(999);
  assert.deepEqual(resent(), [id], 'still held a second past its wait');
  t.mock.timers.tick(1);
  assert.deepEqual(resent(), [], 'forgotten: not sent again');
  s.from(COLEGA, KEYS.colega, { t: 'ack', id, by: 'colega' });
  assert.deepEqual(heard, [], 'a forgotten say hears no ack');
});

test('a say to one member: only its ack or refusal counts, a refusal ends it at once; the agent keeps no copy of it', async (t) => {
  const state = memoryState();
  const s = setup(state, t);
  await s.node.start();
  s.transport.sent = [];
  const heard: string[] = [];
  const started = Date.now();
  const saying = s.node.sayAsPerson({ body: 'for colega', to: 'colega', replyTo: '00000000ff' }, 5000, (by) =>
    heard.push(by),
  );
  await tick();
  const [said] = sentOf(s, TERCEIRO, 'msg') as { id: string }[];
  assert.ok(said);
  assert.deepEqual(
    { ...said, id: '', ts: 0 },
    {
      t: 'msg',
      id: '',
      from: 'Self',
      node: DONO,
      kind: 'human',
      to: 'colega',
      reply_to: '00000000ff',
      ts: 0,
      body: 'for colega',
    },
  );
  s.from(TERCEIRO, KEYS.terceiro, { t: 'ack', id: said.id, by: 'terceiro' });
  s.from(TERCEIRO, KEYS.terceiro, { t: 'refused', id: said.id, by: 'terceiro', why: 'inbox_full' });
  await tick();
  assert.deepEqual(heard, []);
  s.from(COLEGA, KEYS.colega, { t: 'refused', id: said.id, by: 'colega', why: 'inbox_full' });
  const result = await saying;
  assert.deepEqual(result, { id: said.id, ackedBy: null, refusedBy: 'colega' });
  assert.ok(Date.now() - started < 2000, 'the refusal ended the say, not its time');
  assert.deepEqual(state.inbox, []);
  assert.deepEqual(
    sentOf(s, COLEGA, 'ack').filter((f) => f.by === 'Self'),
    [],
    'the agent acks no say that is not for it',
  );
});

test('a say or a send goes out: the members it is for are waited on to answer (a quiet link after 6 s), the others not', async (t) => {
  let clock = Date.now();
  const state = memoryState({ failInbox: true });
  const s = setup(state, t, { now: () => clock });
  await s.node.start();
  s.hello(KEYS.colega, 'colega');
  s.hello(KEYS.terceiro, 'terceiro');
  const quiet = () => s.node.members().map((m) => [m.name, m.quietSeconds]);
  await s.node.sayAsPerson({ body: 'to colega', to: 'colega' }, 20, () => {});
  clock += 6_000;
  assert.deepEqual(quiet(), [
    ['colega', 6],
    ['terceiro', undefined],
  ]);
  // Anything on the link answers; a send to the room waits on both.
  s.from(COLEGA, KEYS.colega, {
    t: 'hello',
    name: 'colega',
    kind: 'agent',
    ephemeral: false,
    ts: Date.now() + 1,
  });
  await s.node.send({ body: 'to the room' }, 20);
  clock += 7_000;
  assert.deepEqual(quiet(), [
    ['colega', 7],
    ['terceiro', 7],
  ]);
  // A say to the room too.
  s.from(COLEGA, KEYS.colega, {
    t: 'hello',
    name: 'colega',
    kind: 'agent',
    ephemeral: false,
    ts: Date.now() + 2,
  });
  s.from(TERCEIRO, KEYS.terceiro, {
    t: 'hello',
    name: 'terceiro',
    kind: 'agent',
    ephemeral: false,
    ts: Date.now() + 2,
  });
  await s.node.sayAsPerson({ body: 'to the room' }, 20, () => {});
  clock += 6_000;
  assert.deepEqual(quiet(), [
    ['colega', 6],
    ['terceiro', 6],
  ]);
});

test('a member that cannot speak for its person refuses a say: no person key, a say run of its own, or closed', async (t) => {
  const cases: [string, MemoryState | null, Extra][] = [
    ['no person key', memoryState(), { personCodec: null }],
    ['a say run (nothing kept)', null, { kind: 'human' }],
    ['closed', memoryState(), {}],
  ];
  for (const [label, state, extra] of cases) {
    const s = setup(state, t, extra);
    await s.node.start();
    if (label === 'closed') await s.node.close();
    s.transport.sent = [];
    await assert.rejects(
      s.node.sayAsPerson({ body: 'hello' }, 50, () => {}),
      (err: unknown) =>
        err instanceof PapoError &&
        err.code === 'io' &&
        err.message === 'this room member does not speak for its person',
      label,
    );
    assert.deepEqual(s.transport.sent, [], label);
  }
});

test('a say or a send is checked first: a body empty or over 48 KiB, or a `to` that is no name, goes nowhere', async (t) => {
  const state = memoryState();
  const s = setup(state, t);
  await s.node.start();
  s.transport.sent = [];
  const bad: [string, { body: string; to?: string }, RegExp][] = [
    ['empty', { body: '' }, /body empty or over 48 KiB/],
    ['48 KiB and a byte', { body: 'x'.repeat(MAX_BODY_BYTES + 1) }, /body empty or over 48 KiB/],
    ['to no name', { body: 'hi', to: 'not a name!' }, /invalid `to`/],
  ];
  for (const [label, input, message] of bad) {
    await assert.rejects(
      s.node.send(input, 20),
      (e: unknown) => e instanceof RangeError && message.test(e.message),
      label,
    );
    await assert.rejects(
      s.node.sayAsPerson(input, 20, () => {}),
      (e: unknown) => e instanceof RangeError && message.test(e.message),
      label,
    );
  }
  assert.deepEqual(s.transport.sent, []);
  assert.equal(state.outbox.length, 0);
  // 48 KiB exactly goes.
  const full = await s.node.sayAsPerson({ body: 'y'.repeat(MAX_BODY_BYTES) }, 20, () => {});
  assert.equal(full.ackedBy, 'Self');
  assert.equal((sentOf(s, COLEGA, 'msg')[0] as { body: string }).body.length, MAX_BODY_BYTES);
});

test('a say whose agent closes before anyone confirmed it fails: its papo say sends it itself', async (t) => {
  const state = memoryState({ failInbox: true });
  const s = setup(state, t);
  await s.node.start();
  const saying = s.node.sayAsPerson({ body: 'cut short' }, 5000, () => {});
  await tick();
  await s.node.close();
  await assert.rejects(
    saying,
    (e: unknown) => e instanceof PapoError && e.code === 'io' && e.message === 'the room member closed',
  );
  // The agent's send, closed: refused at once.
  await assert.rejects(
    s.node.send({ body: 'too late' }, 20),
    (e: unknown) => e instanceof PapoError && e.code === 'io' && e.message === 'the room member is closed',
  );
});

// ---- impostors: an ack or a refusal under a name its key does not hold -----------------------------

test('an ack under a name another key holds is an impostor’s: it confirms neither a send nor a say; the impostor is told once, logged once, remembered', async (t) => {
  const state = memoryState();
  const s = setup(state, t);
  await s.node.start();
  s.hello(KEYS.colega, 'colega');
  s.transport.sent = [];
  const sending = s.node.send({ body: 'for colega', to: 'colega' }, 60);
  const heard: string[] = [];
  const saying = s.node.sayAsPerson({ body: 'the person, for colega', to: 'colega' }, 60, (by) =>
    heard.push(by),
  );
  await tick();
  // The say goes out at once, the send once its outbox is written: found by their keys.
  const msgs = sentOf(s, COLEGA, 'msg') as { id: string; node: string }[];
  const sent = msgs.find((m) => m.node === SELF);
  const said = msgs.find((m) => m.node === DONO);
  assert.ok(sent && said);
  s.from(COLEGA, KEYS.impostor, { t: 'ack', id: sent.id, by: 'colega' });
  s.from(COLEGA, KEYS.impostor, { t: 'ack', id: said.id, by: 'colega' });
  s.from(COLEGA, KEYS.impostor, { t: 'refused', id: sent.id, by: 'colega', why: 'inbox_full' });
  assert.deepEqual([(await sending).ackedBy, (await sending).refusedBy], [null, null]);
  assert.deepEqual([(await saying).ackedBy, (await saying).refusedBy], [null, null]);
  assert.deepEqual(heard, []);
  assert.equal(s.node.queuedCount(), 1, 'still owed to colega');
  assert.equal(s.node.dropped.impostor, 3);
  assert.deepEqual(
    s.node.impostors().map((i) => [i.name, i.kind, i.node, i.frames]),
    [['colega', 'agent', IMPOSTOR, 3]],
  );
  // Told once (not once a frame), by a refusal that names the key; an ack names no message. (The
  // impostor's own frames are forwarded: only Self's refusals are looked at.)
  assert.deepEqual(
    sentOf(s, TERCEIRO, 'refused').filter((f) => f.by === 'Self'),
    [{ t: 'refused', for: IMPOSTOR, by: 'Self', node: SELF, why: 'name_taken' }],
  );
  const said1 = `refused frames from ${IMPOSTOR.slice(0, 10)}: it claims colega (agent), which another key holds`;
  assert.deepEqual(
    s.lines.filter((l) => l.startsWith('refused frames')),
    [said1],
  );
  await tick();
  const noted = state.log.filter((e) => e.ev === 'impostor');
  assert.equal(noted.length, 1);
  assert.deepEqual(
    { ...noted[0], ts: 0 },
    { ev: 'impostor', name: 'colega', kind: 'agent', node: IMPOSTOR, ts: 0 },
  );
  const when = (noted[0] as { ts: number }).ts;
  assert.ok(Math.abs(when - Date.now()) < 5_000, `noted at ${when}`);
  // The real colega's ack still counts.
  s.from(COLEGA, KEYS.colega, { t: 'ack', id: sent.id, by: 'colega' });
  await tick();
  assert.equal(s.node.queuedCount(), 0);
});

test('an impostor’s message is not kept, and the refusal it gets names the message', async (t) => {
  const state = memoryState();
  const s = setup(state, t);
  await s.node.start();
  s.hello(KEYS.colega, 'colega');
  s.transport.sent = [];
  s.from(COLEGA, KEYS.impostor, {
    t: 'msg',
    id: '00000000b1',
    from: 'colega',
    kind: 'agent',
    ts: Date.now(),
    body: 'I am colega',
  });
  await tick();
  assert.deepEqual(state.inbox, []);
  assert.deepEqual(sentOf(s, TERCEIRO, 'refused'), [
    { t: 'refused', id: '00000000b1', for: IMPOSTOR, by: 'Self', node: SELF, why: 'name_taken' },
  ]);
  assert.deepEqual(sentOf(s, TERCEIRO, 'ack'), []);
});

test('a say run’s member refuses an impostor without telling it (it keeps nothing, speaks for nobody)', async (t) => {
  const s = setup(null, t, { kind: 'human', personCodec: null });
  await s.node.start();
  s.hello(KEYS.colega, 'colega');
  s.transport.sent = [];
  const sending = s.node.send({ body: 'for colega', to: 'colega' }, 40);
  await tick();
  const [sent] = sentOf(s, COLEGA, 'msg') as { id: string }[];
  assert.ok(sent);
  s.from(COLEGA, KEYS.impostor, { t: 'ack', id: sent.id, by: 'colega' });
  assert.equal((await sending).ackedBy, null);
  assert.equal(s.node.dropped.impostor, 1);
  assert.deepEqual(sentOf(s, TERCEIRO, 'refused'), []);
  // Nothing written: no impostor note, and no peers.json when it closes.
  await s.node.close();
  assert.deepEqual(
    s.lines.filter((l) => l.startsWith('could not')),
    [],
  );
});

// ---- name_taken: another key holds our name ------------------------------------------------------

test('a name_taken refusal from the member it names says our name is another key’s, once; it ends no send', async (t) => {
  const state = memoryState();
  const s = setup(state, t);
  await s.node.start();
  s.hello(KEYS.colega, 'colega');
  s.hello(KEYS.terceiro, 'terceiro');
  const sending = s.node.send({ body: 'for colega', to: 'colega' }, 60);
  await tick();
  const [sent] = sentOf(s, COLEGA, 'msg') as { id: string }[];
  assert.ok(sent);
  // About another key, or from a key that does not hold the name it signs: nothing.
  s.from(COLEGA, KEYS.colega, { t: 'refused', id: sent.id, for: IMPOSTOR, by: 'colega', why: 'name_taken' });
  s.from(COLEGA, KEYS.impostor, { t: 'refused', id: sent.id, for: SELF, by: 'colega', why: 'name_taken' });
  assert.equal(s.node.nameTakenBy(), undefined);
  s.from(COLEGA, KEYS.colega, { t: 'refused', id: sent.id, for: SELF, by: 'colega', why: 'name_taken' });
  s.from(TERCEIRO, KEYS.terceiro, {
    t: 'refused',
    id: sent.id,
    for: SELF,
    by: 'terceiro',
    why: 'name_taken',
  });
  assert.equal(s.node.nameTakenBy(), 'colega');
  assert.deepEqual(
    s.lines.filter((l) => l.includes('refuses our frames')),
    ['colega refuses our frames: the name Self (agent) belongs to another key'],
  );
  const result = await sending;
  assert.deepEqual([result.ackedBy, result.refusedBy], [null, null], 'not a refusal of the message');
  assert.equal(s.node.queuedCount(), 1);
});

// ---- papo forget -------------------------------------------------------------------------------

test('forget lets a member go: out of the known members and every owed list, its names let go so a new key may take them; the others stay', async (t) => {
  const state = memoryState();
  const saved: Record<string, NameRecord>[] = [];
  let peersSaved = 0;
  state.saveNames = async (names) => {
    saved.push(names);
  };
  state.savePeers = async () => {
    peersSaved++;
  };
  const s = setup(state, t);
  s.transport.links = [COLEGA];
  await s.node.start();
  s.hello(KEYS.colega, 'colega');
  // Terceiro, heard through colega, with its person's key.
  s.from(COLEGA, KEYS.terceiro, {
    t: 'hello',
    name: 'terceiro',
    kind: 'agent',
    ephemeral: false,
    ts: Date.now(),
    person: KEYS.novo.nodeId,
  });
  s.transport.emit('peer-left', TERCEIRO);
  await s.node.send({ body: 'to the room' }, 20);
  assert.deepEqual(
    state.outbox.map((m) => m.owed),
    [['colega', 'terceiro']],
  );
  saved.length = 0;
  peersSaved = 0;
  // One message no longer waits for terceiro (it still does for colega).
  assert.deepEqual(await s.node.forget('TERCEIRO'), { released: 1, peers: 1 });
  assert.deepEqual(
    state.outbox.map((m) => m.owed),
    [['colega']],
  );
  assert.deepEqual(Object.keys(state.peers), [COLEGA]);
  assert.equal(peersSaved, 1);
  assert.equal(saved.length, 1);
  assert.deepEqual(Object.keys(saved[0] ?? {}).sort(), ['colega (agent)', 'self (agent)']);
  assert.deepEqual(
    s.node.members().map((m) => m.name),
    ['colega'],
  );
  // A new key may hold the name now: its hello is heard, nobody is an impostor.
  s.hello(KEYS.novo, 'terceiro');
  assert.deepEqual(
    s.node.members().map((m) => [m.name, m.node]),
    [
      ['colega', COLEGA],
      ['terceiro', KEYS.novo.nodeId],
    ],
  );
  assert.deepEqual(s.node.impostors(), []);
  // A name nobody holds: nothing written.
  assert.deepEqual(await s.node.forget('nobody'), { released: 0, peers: 0 });
  assert.equal(peersSaved, 1);
  assert.equal(saved.length, 1);
});

test('forget on a say run’s member or a closed one does nothing', async (t) => {
  const ephemeral = setup(null, t, { kind: 'human', personCodec: null });
  await ephemeral.node.start();
  assert.deepEqual(await ephemeral.node.forget('colega'), { released: 0, peers: 0 });
  const state = memoryState();
  state.peers = { [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 } };
  const s = setup(state, t);
  await s.node.start();
  await s.node.close();
  assert.deepEqual(await s.node.forget('terceiro'), { released: 0, peers: 0 });
  assert.deepEqual(Object.keys(state.peers), [TERCEIRO]);
});

// ---- the rest of the node: what every mutant of room-node.ts needs a test to notice ---------------

/** A message from colega, signed by its key. */
function colegaMsg(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> & { t: 'msg' } {
  return { t: 'msg', id, from: 'colega', kind: 'agent', ts: Date.now(), body: `body ${id}`, ...extra };
}

test('a new member: nothing dropped, the network of a transport with nothing to report, its about and neighbours as given', async (t) => {
  const s = setup(memoryState(), t, { about: 'tests here' });
  await s.node.start();
  assert.deepEqual(s.node.dropped, {
    open: 0,
    invalid: 0,
    signature: 0,
    flood: 0,
    impostor: 0,
    stale: 0,
    names: 0,
  });
  assert.deepEqual(await s.node.network(), {
    signalUrl: '',
    signal: { joined: true, everJoined: true, peers: [], dropped: {} },
    transport: { state: 'running', restarts: 0, failing: false, stallSeconds: 0 },
  });
  assert.equal(s.node.about, 'tests here');
  assert.deepEqual(s.node.neighbours(), [COLEGA, TERCEIRO]);
  assert.equal(s.node.ephemeral, false);
  // Its hello names its person's key and says what it is about (cut to MAX_ABOUT_CHARS).
  const [hello] = sentOf(s, COLEGA, 'hello');
  assert.deepEqual(
    { ...hello, ts: 0 },
    {
      t: 'hello',
      node: SELF,
      name: 'Self',
      about: 'tests here',
      kind: 'agent',
      ephemeral: false,
      ts: 0,
      person: DONO,
    },
  );
  const long = setup(null, t, {
    kind: 'human',
    personCodec: null,
    person: null,
    about: 'a'.repeat(MAX_ABOUT_CHARS + 1),
  });
  await long.node.start();
  const [short] = sentOf(long, COLEGA, 'hello');
  assert.equal((short as { about: string }).about, 'a'.repeat(MAX_ABOUT_CHARS));
  assert.equal(long.node.ephemeral, true);
  assert.equal((short as { ephemeral: boolean }).ephemeral, true);
  assert.ok(!('person' in (short as object)));
});

test('frames that do not open, check or validate are dropped and counted by reason; a flood past a neighbour’s budget is counted', async (t) => {
  const s = setup(memoryState(), t);
  await s.node.start();
  s.transport.emit('link-message', COLEGA, new Uint8Array(200).fill(7));
  // Signed by colega, claiming terceiro's key.
  const signed = codecOf(KEYS.colega).sign({
    t: 'hello',
    node: COLEGA,
    name: 'x',
    kind: 'agent',
    ephemeral: false,
    ts: 1,
  } as Frame);
  // (Twice, sealed anew each time: so that each reason's count is its own.)
  for (let i = 0; i < 2; i++)
    s.transport.emit(
      'link-message',
      COLEGA,
      codecOf(KEYS.colega).seal({ ...signed, node: TERCEIRO } as SignedFrame),
    );
  s.transport.emit('link-message', COLEGA, new Uint8Array(64 * 1024 + 1));
  assert.deepEqual([s.node.dropped.open, s.node.dropped.signature, s.node.dropped.invalid], [1, 2, 1]);
  assert.equal(
    s.lines.filter((l) => l.startsWith(`dropped a frame from ${COLEGA.slice(0, 10)}: `)).length,
    4,
    s.lines.join('\n'),
  );
  assert.deepEqual(s.node.members(), []);
  for (let i = 0; i < 1100; i++)
    s.transport.emit('link-message', TERCEIRO, new Uint8Array(64).fill(i % 256).fill(i >> 8, 0, 1));
  assert.ok(s.node.dropped.flood > 0);
  assert.equal(s.node.dropped.open + s.node.dropped.flood, 1101);
  assert.ok(
    s.lines.includes(`dropping frames from ${TERCEIRO.slice(0, 10)}: more than 200 a second`),
    s.lines.join('\n'),
  );
});

test('hellos: our own is ignored, a copy sealed again is stale, an impostor’s is refused, an ephemeral one under a held name is answered but not a member; an agent’s names its person’s key', async (t) => {
  const state = memoryState();
  const s = setup(state, t);
  s.transport.links = [COLEGA];
  const heard: string[] = [];
  const online: string[] = [];
  const offline: string[] = [];
  s.node.on('heard', (n) => heard.push(n));
  s.node.on('online', (m) => online.push(m.name));
  s.node.on('offline', (m) => offline.push(m.name));
  await s.node.start();
  s.hello(KEYS.self, 'Self');
  assert.deepEqual([heard, s.node.liveMembers()], [[], []]);
  const ts = Date.now();
  const colegaHello = codecOf(KEYS.colega).sign({
    t: 'hello',
    node: COLEGA,
    name: 'colega',
    kind: 'agent',
    ephemeral: false,
    ts,
  } as Frame);
  s.transport.emit('link-message', COLEGA, codecOf(KEYS.colega).seal(colegaHello));
  assert.deepEqual(heard, [COLEGA]);
  assert.deepEqual(online, ['colega']);
  s.transport.emit('link-message', COLEGA, codecOf(KEYS.colega).seal(colegaHello));
  assert.equal(s.node.dropped.stale, 1);
  assert.ok(
    s.lines.some((l) =>
      l.startsWith(`dropped a hello of ${COLEGA.slice(0, 10)} signed at ${ts} (our clock: `),
    ),
    s.lines.join('\n'),
  );
  assert.deepEqual(heard, [COLEGA]);
  // Terceiro, through colega, naming its person's key; then gone from the topic.
  s.from(COLEGA, KEYS.terceiro, {
    t: 'hello',
    name: 'terceiro',
    kind: 'agent',
    ephemeral: false,
    ts: Date.now(),
    person: KEYS.novo.nodeId,
  });
  assert.deepEqual(online, ['colega', 'terceiro']);
  s.transport.emit('peer-left', TERCEIRO);
  assert.deepEqual(offline, ['terceiro']);
  // A hello under colega's name from another key: refused, not a member.
  s.hello(KEYS.impostor, 'colega');
  assert.equal(s.node.dropped.impostor, 1);
  // An ephemeral hello (a say run) under colega's name from another key: answered, not live, not an impostor.
  s.transport.sent = [];
  s.from(COLEGA, KEYS.impostor, {
    t: 'hello',
    name: 'colega',
    kind: 'agent',
    ephemeral: true,
    ts: Date.now() + 1,
  });
  assert.equal(s.node.dropped.impostor, 1);
  assert.ok(!s.node.liveMembers().some((m) => m.node === IMPOSTOR));
  assert.equal(sentOf(s, COLEGA, 'hello').length, 1, 'answered');
  // An ephemeral hello under a name nobody holds: live, not a member, and it holds nothing.
  s.from(COLEGA, KEYS.impostor, {
    t: 'hello',
    name: 'pessoa',
    kind: 'human',
    ephemeral: true,
    ts: Date.now() + 2,
  });
  assert.ok(s.node.liveMembers().some((m) => m.node === IMPOSTOR && m.name === 'pessoa'));
  assert.deepEqual(
    s.node.members().map((m) => m.name),
    ['colega', 'terceiro'],
  );
  s.hello(KEYS.dono, 'pessoa', { kind: 'human' });
  assert.equal(s.node.dropped.impostor, 1);
  // Terceiro's person's words are its key's alone.
  s.from(COLEGA, KEYS.impostor, colegaMsg('00000000c1', { from: 'terceiro', kind: 'human' }));
  s.from(COLEGA, KEYS.novo, colegaMsg('00000000c2', { from: 'terceiro', kind: 'human' }));
  await tick();
  assert.equal(s.node.dropped.impostor, 2);
  assert.deepEqual(
    state.inbox.map((m) => m.id),
    ['00000000c2'],
  );
});

test('a message is forwarded once to the other neighbours and makes its sender online again; our own coming back is not kept; a digest speaks only for its neighbour', async (t) => {
  const state = memoryState();
  const s = setup(state, t);
  await s.node.start();
  // (Signed a second before its message: a signed time counts once, later ones only.)
  s.from(COLEGA, KEYS.novo, {
    t: 'hello',
    name: 'voce',
    kind: 'agent',
    ephemeral: false,
    ts: Date.now() - 1000,
  });
  s.transport.emit('peer-left', KEYS.novo.nodeId);
  const voce = () => s.node.members().find((m) => m.name === 'voce')?.online;
  assert.equal(voce(), false);
  s.transport.sent = [];
  s.from(COLEGA, KEYS.novo, colegaMsg('00000000d1', { from: 'voce' }));
  await tick();
  assert.equal(voce(), true, 'heard from first-hand');
  assert.deepEqual(
    sentOf(s, TERCEIRO, 'msg').map((f) => f.id),
    ['00000000d1'],
  );
  assert.deepEqual(sentOf(s, COLEGA, 'msg'), [], 'not back to where it came from');
  assert.deepEqual(
    sentOf(s, TERCEIRO, 'ack').map((f) => f.id),
    ['00000000d1'],
  );
  // The same bytes again (a neighbour forwarding what we have): dropped unopened, not acked again.
  const again = codecOf(KEYS.novo).signAndSeal({
    ...colegaMsg('00000000d2', { from: 'voce' }),
    node: KEYS.novo.nodeId,
  } as unknown as Frame);
  s.transport.emit('link-message', COLEGA, again);
  await tick();
  s.transport.emit('link-message', TERCEIRO, again);
  await tick();
  assert.deepEqual(
    sentOf(s, TERCEIRO, 'ack').map((f) => f.id),
    ['00000000d1', '00000000d2'],
  );
  // Ours, coming back: not kept, not acked.
  const mine = await s.node.send({ body: 'mine' }, 20);
  s.transport.sent = [];
  const echoed = (state.outbox[0] as unknown as Record<string, unknown>) ?? {};
  s.transport.emit(
    'link-message',
    COLEGA,
    codecOf(KEYS.self).seal({ t: 'msg', ...echoed } as unknown as SignedFrame),
  );
  await tick();
  assert.ok(!state.inbox.some((m) => m.id === mine.id));
  assert.deepEqual(sentOf(s, TERCEIRO, 'ack'), []);
  // A digest signed by terceiro over colega's link: not colega's, not answered.
  s.transport.sent = [];
  s.from(COLEGA, KEYS.terceiro, { t: 'have', since: 0, ids: [] });
  await tick();
  assert.deepEqual(sentOf(s, COLEGA, 'missed'), []);
  s.from(TERCEIRO, KEYS.terceiro, { t: 'have', since: 0, ids: [] });
  await tick();
  assert.deepEqual(
    sentOf(s, TERCEIRO, 'missed').map((f) => f.id),
    ['00000000d1', '00000000d2', mine.id],
  );
});

test('a queued message of papo 0.1, unsigned, is signed when sent again; a signed one goes with its own signature', async (t) => {
  const state = memoryState();
  const old = {
    id: '00000000e1',
    from: 'Self',
    node: SELF,
    kind: 'agent' as const,
    ts: Date.now(),
    body: 'old',
  };
  const signed = codecOf(KEYS.self).sign({ t: 'msg', ...old, id: '00000000e2' });
  const { t: _t, ...signedEnvelope } = signed;
  state.outbox = [old, signedEnvelope];
  const s = setup(state, t);
  await s.node.start();
  const resent = s.framesTo(COLEGA).filter((f) => f.t === 'msg') as SignedFrame[];
  assert.deepEqual(
    resent.map((f) => [f.t === 'msg' && f.id, f.t === 'msg' && f.node]),
    [
      ['00000000e1', SELF],
      ['00000000e2', SELF],
    ],
  );
  assert.equal(resent[1]?.sig, signed.sig);
});

test('the heartbeat: every 30 s our hello, what is not confirmed and our digest go to each neighbour, and peers.json is written; with no neighbour nothing goes', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval', 'setTimeout'] });
  const state = memoryState();
  let peersSaved = 0;
  state.savePeers = async () => {
    peersSaved++;
  };
  state.peers = { [COLEGA]: { name: 'colega', kind: 'agent', lastSeen: 0 } };
  state.outbox = [{ ...envelopeFor('00000000f1'), owed: ['colega'] }];
  const s = setup(state, t);
  await s.node.start();
  s.transport.sent = [];
  t.mock.timers.tick(29_999);
  assert.deepEqual(
    s.framesTo(COLEGA).map((f) => f.t),
    [],
  );
  t.mock.timers.tick(1);
  await new Promise((r) => setImmediate(r));
  for (const peer of [COLEGA, TERCEIRO])
    assert.deepEqual(
      s.framesTo(peer).map((f) => f.t),
      ['hello', 'msg', 'have'],
      peer,
    );
  assert.equal(peersSaved, 1);
  s.transport.links = [];
  s.transport.sent = [];
  t.mock.timers.tick(30_000);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(s.transport.sent, []);
  assert.equal(peersSaved, 1);
  // A say run's member beats too: its hello, nothing of a queue or a digest.
  const run = setup(null, t, { kind: 'human', personCodec: null });
  await run.node.start();
  run.transport.sent = [];
  t.mock.timers.tick(30_000);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    run.framesTo(COLEGA).map((f) => f.t),
    ['hello'],
  );
  assert.deepEqual(run.lines, []);
});

/** A message of Self's own, signed. */
function envelopeFor(id: string) {
  const { t: _t, ...envelope } = codecOf(KEYS.self).sign({
    t: 'msg',
    id,
    from: 'Self',
    node: SELF,
    kind: 'agent',
    ts: Date.now(),
    body: `body ${id}`,
  });
  return envelope;
}

test('what a person sees changed is written within 5 s: a name that spoke here, a hello of a new member; our review turned on is announced at the next presence change', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval', 'setTimeout'] });
  const state = memoryState();
  let peersSaved = 0;
  const names: Record<string, NameRecord>[] = [];
  state.savePeers = async () => {
    peersSaved++;
  };
  state.saveNames = async (saved) => {
    names.push(saved);
  };
  let reviewing = false;
  state.review = { reviewing: () => reviewing, holds: () => false };
  const s = setup(state, t);
  await s.node.start();
  const settle = () => new Promise((r) => setImmediate(r));
  // A message from a key new here: its name is held, and never given up once the message is kept.
  s.from(COLEGA, KEYS.colega, colegaMsg('00000000c5'));
  await settle();
  t.mock.timers.tick(4_999);
  await settle();
  assert.equal(peersSaved, 0);
  t.mock.timers.tick(1);
  await settle();
  assert.equal(peersSaved, 1);
  assert.deepEqual(names.at(-1)?.['colega (agent)'], { node: COLEGA, spoke: true });
  // A hello of a new member: peers.json again 5 s later.
  s.hello(KEYS.terceiro, 'terceiro');
  t.mock.timers.tick(5_000);
  await settle();
  assert.equal(peersSaved, 2);
  // Terceiro's hello again: seen, nothing changed, nothing written; with a new `about`, written.
  s.hello(KEYS.terceiro, 'terceiro', { ts: Date.now() + 1 });
  t.mock.timers.tick(5_000);
  await settle();
  assert.equal(peersSaved, 2);
  s.hello(KEYS.terceiro, 'terceiro', { ts: Date.now() + 2, about: 'new work' });
  t.mock.timers.tick(5_000);
  await settle();
  assert.equal(peersSaved, 3);
  s.transport.sent = [];
  reviewing = true;
  s.transport.emit('link-close', TERCEIRO);
  const hellos = sentOf(s, COLEGA, 'hello');
  assert.equal(hellos.length, 1);
  assert.equal(hellos[0]?.review, true);
  // Announced once: the next change sends nothing more.
  s.transport.emit('link-close', TERCEIRO);
  assert.equal(sentOf(s, COLEGA, 'hello').length, 1);
  // With no neighbour there is nobody to tell.
  s.transport.links = [];
  reviewing = false;
  s.transport.sent = [];
  s.transport.emit('link-close', TERCEIRO);
  assert.deepEqual(s.transport.sent, []);
});

test('every second, presence: a member heard through another goes offline once its window has passed', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  let clock = Date.now();
  const s = setup(memoryState(), t, { now: () => clock });
  s.transport.links = [COLEGA];
  const offline: string[] = [];
  s.node.on('offline', (m) => offline.push(m.name));
  await s.node.start();
  s.hello(KEYS.terceiro, 'terceiro', {}, COLEGA);
  clock += ONLINE_WINDOW_MS + 1;
  assert.deepEqual(offline, []);
  t.mock.timers.tick(1_000);
  assert.deepEqual(offline, ['terceiro']);
});

test('a newcomer’s hello is answered with ours and what waits to be confirmed; a say run’s hello with ours alone', async (t) => {
  const state = memoryState();
  state.outbox = [envelopeFor('00000000c6')];
  const s = setup(state, t);
  await s.node.start();
  s.transport.sent = [];
  s.hello(KEYS.colega, 'colega');
  // Ours only (colega's hello is forwarded to terceiro too).
  const ours = (peer: string) =>
    s
      .framesTo(peer)
      .filter((f) => f.node === SELF)
      .map((f) => f.t);
  for (const peer of [COLEGA, TERCEIRO]) assert.deepEqual(ours(peer), ['hello', 'msg'], peer);
  s.transport.sent = [];
  s.hello(KEYS.novo, 'pessoa', { kind: 'human', ephemeral: true }, TERCEIRO);
  assert.deepEqual(ours(TERCEIRO), ['hello']);
});

test('a closed member sends nothing and takes nothing; closing twice closes once', async (t) => {
  const state = memoryState();
  let closes = 0;
  const s = setup(state, t, {
    onClose: async () => {
      closes++;
    },
  });
  s.transport.links = [COLEGA];
  const offline: string[] = [];
  s.node.on('offline', (m) => offline.push(m.name));
  await s.node.start();
  s.hello(KEYS.terceiro, 'terceiro', {}, COLEGA);
  await s.node.close();
  await s.node.close();
  assert.equal(closes, 1);
  s.transport.sent = [];
  s.transport.emit('link-open', COLEGA);
  s.from(COLEGA, KEYS.colega, colegaMsg('00000000c7'));
  // Terceiro leaves the topic: a closed member reports nobody going offline.
  s.transport.emit('peer-left', TERCEIRO);
  await tick();
  assert.deepEqual(s.transport.sent, []);
  assert.deepEqual(state.inbox, []);
  assert.deepEqual(offline, []);
});

test('a peers.json that cannot be written is said, not fatal', async (t) => {
  const state = memoryState();
  state.savePeers = async () => {
    throw new Error('disk full');
  };
  const s = setup(state, t);
  await s.node.start();
  s.hello(KEYS.colega, 'colega');
  await s.node.close();
  assert.ok(s.lines.includes('could not save peers.json: disk full'), s.lines.join('\n'));
});

test('no hello goes out for a review that did not change, even on a neighbour that came without a link-open', async (t) => {
  const s = setup(memoryState(), t);
  s.transport.links = [];
  await s.node.start();
  s.transport.links = [COLEGA];
  s.transport.emit('peer-left', TERCEIRO);
  assert.deepEqual(s.transport.sent, []);
});

test('a send its recipient refuses returns at once: it waits for no more acks', async (t) => {
  const s = setup(memoryState(), t);
  await s.node.start();
  s.hello(KEYS.colega, 'colega');
  const started = Date.now();
  const sending = s.node.send({ body: 'for colega', to: 'colega' }, 5000);
  await tick();
  const [sent] = sentOf(s, COLEGA, 'msg') as { id: string }[];
  assert.ok(sent);
  s.from(COLEGA, KEYS.colega, { t: 'refused', id: sent.id, by: 'colega', why: 'inbox_full' });
  const result = await sending;
  assert.deepEqual([result.ackedBy, result.refusedBy, result.owed], [null, 'colega', ['colega']]);
  assert.ok(Date.now() - started < 600, `${Date.now() - started} ms`);
});

test('a say confirmed just before its agent closes is delivered, not failed', async (t) => {
  const state = memoryState({ failInbox: true });
  const s = setup(state, t);
  await s.node.start();
  const saying = s.node.sayAsPerson({ body: 'just in time' }, 5000, () => {});
  await tick();
  const [said] = sentOf(s, COLEGA, 'msg') as { id: string }[];
  assert.ok(said);
  // The ack and the close in the same turn: the say learns of both at once.
  s.from(COLEGA, KEYS.colega, { t: 'ack', id: said.id, by: 'colega' });
  const closing = s.node.close();
  assert.deepEqual(await saying, { id: said.id, ackedBy: 'colega', refusedBy: null });
  await closing;
});

test('an ephemeral hello from the key that holds its name is a live say run; past the cap of members, a hello is not heard and holds nothing', async (t) => {
  const names = new KnownNames({ 'pessoa (human)': { node: KEYS.novo.nodeId } });
  const knownPeers = {};
  const s = setup(null, t, { kind: 'human', personCodec: null, names, knownPeers });
  await s.node.start();
  const heard: string[] = [];
  s.node.on('heard', (n) => heard.push(n));
  s.hello(KEYS.novo, 'pessoa', { kind: 'human', ephemeral: true });
  assert.deepEqual(
    s.node.liveMembers().map((m) => [m.name, m.node]),
    [['pessoa', KEYS.novo.nodeId]],
  );
  assert.deepEqual(heard, [KEYS.novo.nodeId]);
  // A say run remembers nobody: the members it was given are read, never written.
  s.hello(KEYS.colega, 'colega');
  assert.deepEqual(knownPeers, {});
  // MAX_KNOWN_PEERS members online: one more is not heard, and holds no name.
  for (let i = s.node.liveMembers().length; i < MAX_KNOWN_PEERS; i++)
    s.from(COLEGA, generateIdentity(), {
      t: 'hello',
      name: `m${i}`,
      kind: 'agent',
      ephemeral: false,
      ts: Date.now(),
    });
  assert.equal(s.node.liveMembers().length, MAX_KNOWN_PEERS);
  heard.length = 0;
  s.hello(KEYS.terceiro, 'terceiro', {}, COLEGA);
  assert.deepEqual(heard, []);
  assert.equal(names.holder('terceiro', 'agent'), undefined);
});

test('a say run’s member keeps nothing: no unread, held, queue or history; its decisions find nothing; frames of a durable member’s catch-up change nothing', async (t) => {
  const s = setup(null, t, { kind: 'human', personCodec: null });
  await s.node.start();
  s.transport.emit('link-close', COLEGA);
  s.from(COLEGA, KEYS.colega, { t: 'have', since: 0, ids: [] });
  s.from(COLEGA, KEYS.colega, colegaMsg('00000000a9'));
  await s.node.consume(['00000000a9']);
  await s.node.markRepliedTo('00000000a9');
  await s.node.restore([]);
  assert.deepEqual(
    [
      s.node.unread(),
      s.node.held(),
      s.node.reviewing(),
      s.node.queuedCount(),
      s.node.queuedFor(),
      await s.node.history(5),
    ],
    [[], [], false, 0, [], []],
  );
  assert.deepEqual(await s.node.decide({ approve: ['00000000a1'], reject: ['00000000a2'] }), {
    approved: [],
    rejected: [],
    unknown: ['00000000a1', '00000000a2'],
    full: [],
  });
  assert.deepEqual((await s.node.decide({ approve: 'all', reject: ['00000000a3'] })).unknown, ['00000000a3']);
  assert.deepEqual(sentOf(s, TERCEIRO, 'ack'), []);
  await s.node.close();
  await assert.rejects(
    s.node.decide({ approve: [], reject: [] }),
    (e: unknown) => e instanceof PapoError && e.code === 'io' && e.message === 'the room member is closed',
  );
});

test('names.json full: a new name is refused, said once; a known member’s name is not given up for it, another’s is', async (t) => {
  const saved: Record<string, NameRecord> = {};
  for (let i = 0; i < MAX_KNOWN_NAMES - 2; i++)
    saved[`n${i} (agent)`] = { node: `${i}`.padStart(64, '0'), spoke: true };
  // One name that never spoke, of a known member (spared), and one of nobody known (Self's own is the last).
  saved['terceiro (agent)'] = { node: TERCEIRO };
  const state = memoryState();
  state.peers = { [TERCEIRO]: { name: 'terceiro', kind: 'agent', lastSeen: 0 } };
  const names = new KnownNames(saved);
  const s = setup(state, t, { names });
  await s.node.start();
  s.hello(KEYS.colega, 'colega');
  s.from(COLEGA, KEYS.colega, colegaMsg('00000000b2'));
  assert.equal(s.node.dropped.names, 2);
  const full = `refused frames from ${COLEGA.slice(0, 10)} as colega (agent): names.json holds ${MAX_KNOWN_NAMES} names, each of a key that spoke here or of a known member (papo forget NAME makes room)`;
  assert.deepEqual(
    s.lines.filter((l) => l.includes('names.json holds')),
    [full],
  );
  assert.equal(names.holder('terceiro', 'agent'), TERCEIRO);
  // Terceiro forgotten as a member (not its name): its place may go to a newcomer.
  delete state.peers[TERCEIRO];
  s.from(COLEGA, KEYS.colega, colegaMsg('00000000b3'));
  await tick();
  assert.equal(s.node.dropped.names, 2);
  assert.equal(names.holder('colega', 'agent'), COLEGA);
  assert.equal(names.holder('terceiro', 'agent'), undefined);
  // A say run's member knows no peers of its own: a member live now is spared all the same.
  const live = new KnownNames(saved);
  const run = setup(null, t, { kind: 'human', personCodec: null, names: live });
  await run.node.start();
  run.hello(KEYS.terceiro, 'terceiro');
  run.hello(KEYS.colega, 'colega');
  assert.equal(run.node.dropped.names, 1);
  assert.equal(live.holder('terceiro', 'agent'), TERCEIRO);
});

test('an impostor note the log cannot take is said, not fatal', async (t) => {
  const state = memoryState();
  state.appendLog = async () => {
    throw new Error('log unwritable');
  };
  const s = setup(state, t);
  await s.node.start();
  s.hello(KEYS.colega, 'colega');
  s.from(COLEGA, KEYS.impostor, { t: 'ack', id: '0000000001', by: 'colega' });
  await tick();
  assert.ok(s.lines.includes('could not log the impostor note: log unwritable'), s.lines.join('\n'));
});
