// The times a frame carries, checked where frames are parsed (ADR 0119): within JavaScript's Date
// range (±8.64e15 ms) and no further ahead of the receiver's clock than FUTURE_SKEW_MS; as old as
// the Unix epoch, because a message re-sent from an outbox or caught up carries the time it was
// written. A message dated 9e15 (a safe integer, past Date's range) was taken by every member and
// broke papo web's page for good (issue 44, W3).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { isPapoError } from '../../src/client/errors.js';
import type { LinkPath } from '../../src/client/member-api.js';
import type { TransportEvents } from '../../src/client/room/links.js';
import { RoomNode } from '../../src/client/room/room-node.js';
import { FrameCodec } from '../../src/client/wire/frame-codec.js';
import { checkedEnvelope, type Frame, type MsgFrame, newMessageId } from '../../src/client/wire/frames.js';
import { generateIdentity } from '../../src/client/wire/identity.js';
import { deriveRoomKeys, generateSecret } from '../../src/client/wire/room-crypto.js';
import { memoryState } from '../support/memory-state.js';

/** Past this, `new Date(ms)` is an invalid date and `toISOString()` throws (ECMA-262, "Time Values"). */
const PAST_DATE = 9e15;
const MINUTE = 60_000;
const keys = deriveRoomKeys(generateSecret());
const sender = generateIdentity();
const senderCodec = new FrameCodec(keys.frameKey, keys.topic, sender);
const receiver = new FrameCodec(keys.frameKey, keys.topic, generateIdentity());

function msgAt(ts: number): MsgFrame {
  return { t: 'msg', id: newMessageId(), from: 'colega', node: sender.nodeId, kind: 'agent', ts, body: 'oi' };
}

function refusedAsTime(f: () => unknown, key: string): void {
  assert.throws(f, (err: unknown) => {
    assert.ok(isPapoError(err), String(err));
    assert.equal(err.code, 'invalid_frame');
    assert.match(err.message, new RegExp(`${key} is not a time`));
    return true;
  });
}

test('a frame dated past Date’s range is refused where the wire is opened: msg, missed, hello and have', () => {
  refusedAsTime(() => receiver.open(senderCodec.signAndSeal(msgAt(PAST_DATE))), 'ts');
  refusedAsTime(() => receiver.open(senderCodec.signAndSeal({ ...msgAt(PAST_DATE), t: 'missed' })), 'ts');
  const hello: Frame = {
    t: 'hello',
    node: sender.nodeId,
    name: 'colega',
    kind: 'agent',
    ephemeral: false,
    ts: PAST_DATE,
  };
  refusedAsTime(() => receiver.open(senderCodec.signAndSeal(hello)), 'ts');
  refusedAsTime(
    () =>
      receiver.open(senderCodec.signAndSeal({ t: 'have', node: sender.nodeId, since: PAST_DATE, ids: [] })),
    'since',
  );
  // The largest safe integer too, and the first millisecond past Date's range.
  refusedAsTime(() => receiver.open(senderCodec.signAndSeal(msgAt(Number.MAX_SAFE_INTEGER))), 'ts');
  refusedAsTime(() => receiver.open(senderCodec.signAndSeal(msgAt(8.64e15 + 1))), 'ts');
});

test('ahead of our clock by more than the skew is refused; any past time, the epoch included, is taken', () => {
  const now = Date.now();
  refusedAsTime(() => receiver.open(senderCodec.signAndSeal(msgAt(now + 11 * MINUTE)), now), 'ts');
  assert.equal(receiver.open(senderCodec.signAndSeal(msgAt(now + 9 * MINUTE)), now).t, 'msg');
  // Catch-up and outboxes re-send what was written long ago, with the time it was written.
  for (const old of [0, 1, now - 365 * 24 * 60 * MINUTE])
    assert.equal(receiver.open(senderCodec.signAndSeal(msgAt(old)), now).t, 'msg');
  // The receiver's clock decides, not the process's: a clock an hour behind refuses what is 11
  // minutes ahead of it.
  refusedAsTime(
    () => receiver.open(senderCodec.signAndSeal(msgAt(now - 49 * MINUTE)), now - 60 * MINUTE),
    'ts',
  );
});

test('a message papo stored before these checks is still read back from the profile (the page shows it as a placeholder)', () => {
  const stored = {
    id: 'aaaaaaaaa1',
    from: 'colega',
    node: sender.nodeId,
    kind: 'agent',
    ts: PAST_DATE,
    body: 'x',
  };
  assert.equal(checkedEnvelope(stored)?.ts, PAST_DATE);
});

class Recorder extends EventEmitter<TransportEvents> {
  send(): boolean {
    return true;
  }
  neighbours(): string[] {
    return ['ab'.repeat(32)];
  }
  path(): LinkPath | undefined {
    return 'direct';
  }
}

test('a room node drops a message dated past Date’s range or too far ahead of its own clock, and stores an old one', async () => {
  // The node's clock an hour behind the machine's: what it refuses is judged by its own clock.
  const now = Date.now() - 60 * MINUTE;
  const transport = new Recorder();
  const state = memoryState();
  const self = generateIdentity();
  const node = new RoomNode({
    name: 'voce',
    kind: 'agent',
    nodeId: self.nodeId,
    roomId: keys.roomId,
    codec: new FrameCodec(keys.frameKey, keys.topic, self),
    transport,
    state,
    now: () => now,
  });
  await node.start();
  try {
    const peer = transport.neighbours()[0] as string;
    const far = msgAt(PAST_DATE);
    const ahead = msgAt(now + 11 * MINUTE);
    const old = msgAt(now - 30 * 24 * 60 * MINUTE);
    for (const m of [far, ahead, old]) transport.emit('link-message', peer, senderCodec.signAndSeal(m));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(node.dropped.invalid, 2);
    assert.deepEqual(
      state.inbox.map((m) => m.ts),
      [old.ts],
    );
  } finally {
    await node.close();
  }
});
