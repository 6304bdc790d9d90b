// Which signed times show that a member is alive (ADR 0093): within the window of our clock, either
// way, and later than the last one counted from the same key; ours only move forwards. Then, in a
// room node: a member whose clock is off by less than the window is heard, one off by more is not,
// and a hello of a papo older than ADR 0093 (no `ts`) is refused and said why, its messages still
// stored.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import type { LinkPath } from '../../src/client/member-api.js';
import { SIGNAL_WINDOW_MS } from '../../src/client/net/signal-seal.js';
import type { TransportEvents } from '../../src/client/room/links.js';
import { RoomNode } from '../../src/client/room/room-node.js';
import { MAX_SIGNED_TIMES, SIGNED_TIME_WINDOW_MS, SignedTimes } from '../../src/client/room/signed-times.js';
import { FrameCodec } from '../../src/client/wire/frame-codec.js';
import type { Frame } from '../../src/client/wire/frames.js';
import { generateIdentity } from '../../src/client/wire/identity.js';
import { generateSecret } from '../../src/client/wire/room-crypto.js';
import { memoryState } from '../support/memory-state.js';

const NOW = 1_800_000_000_000;
const W = SIGNED_TIME_WINDOW_MS;

function node(n: number): string {
  return n.toString(16).padStart(64, '0');
}

function times(start = NOW) {
  const clock = { now: start };
  return { clock, times: new SignedTimes(() => clock.now) };
}

test('the window is the signal seal’s: clocks that can link at all are within it', () => {
  assert.equal(SIGNED_TIME_WINDOW_MS, SIGNAL_WINDOW_MS);
});

test('a time counts within the window of our clock, either way, edges included', () => {
  const { times: t } = times();
  assert.equal(t.fresh(node(1), NOW - W - 1), false, 'a minute and a millisecond behind');
  assert.equal(t.fresh(node(2), NOW + W + 1), false, 'a minute and a millisecond ahead');
  assert.equal(t.fresh(node(1), NOW - W), true);
  assert.equal(t.fresh(node(2), NOW + W), true);
  assert.equal(t.fresh(node(3), NOW), true);
});

test('a time counts only when later than the last one counted from the same key', () => {
  const { clock, times: t } = times();
  assert.equal(t.fresh(node(1), NOW - 10), true);
  assert.equal(t.fresh(node(1), NOW - 10), false, 'the same time again: a copy');
  assert.equal(t.fresh(node(1), NOW - 11), false, 'an older one');
  assert.equal(t.fresh(node(1), NOW - 9), true);
  // Another key is judged apart.
  assert.equal(t.fresh(node(2), NOW - 20), true);
  // A time refused for the window is not remembered: an earlier one still counts after.
  assert.equal(t.fresh(node(3), NOW + W + 5), false);
  assert.equal(t.fresh(node(3), NOW), true);
  // Our clock moving on changes only the window.
  clock.now += W;
  assert.equal(t.fresh(node(1), NOW - 9), false, 'out of the window now');
  assert.equal(t.fresh(node(1), NOW + 1), true);
});

test('the times we sign only move forwards, whatever our clock does', () => {
  const { clock, times: t } = times();
  assert.equal(t.next(), NOW);
  assert.equal(t.next(), NOW + 1, 'twice in one millisecond');
  clock.now -= 5_000;
  assert.equal(t.next(), NOW + 2, 'the clock stepped back');
  clock.now = NOW + 100;
  assert.equal(t.next(), NOW + 100);
});

test('past MAX_SIGNED_TIMES keys, the one heard from longest ago is forgotten first', () => {
  // Four times the members remembered (ADR 0093): a room's members and a few hundred say runs.
  assert.equal(MAX_SIGNED_TIMES, 1024);
  const { times: t } = times();
  assert.equal(t.fresh(node(0), NOW - 2), true);
  assert.equal(t.fresh(node(1), NOW - 2), true);
  // node(0) is heard again: it is now the latest heard, node(1) the quietest.
  assert.equal(t.fresh(node(0), NOW - 1), true);
  for (let i = 2; i < MAX_SIGNED_TIMES; i++) assert.equal(t.fresh(node(i), NOW), true);
  // Exactly the cap: nothing forgotten yet.
  assert.equal(t.fresh(node(1), NOW - 2), false);
  assert.equal(t.fresh(node(0), NOW - 1), false);
  assert.equal(t.fresh(node(MAX_SIGNED_TIMES), NOW), true);
  assert.equal(t.fresh(node(1), NOW - 2), true, 'forgotten: its last time counts again');
  // node(1) came back in, so node(0), now the quietest, went.
  assert.equal(t.fresh(node(0), NOW - 1), true);
  assert.equal(t.fresh(node(MAX_SIGNED_TIMES), NOW), false, 'the newest keys are kept');
});

// ---- in a room node -------------------------------------------------------------------------

const TOPIC = 'f'.repeat(64);
const RELAY = node(99);

class Recorder extends EventEmitter<TransportEvents> {
  send(): boolean {
    return true;
  }
  neighbours(): string[] {
    return [RELAY];
  }
  path(): LinkPath | undefined {
    return 'direct';
  }
}

function room(t: { after: (fn: () => unknown) => void }) {
  const key = generateSecret();
  const self = generateIdentity();
  const transport = new Recorder();
  const state = memoryState();
  const logged: string[] = [];
  const roomNode = new RoomNode({
    name: 'self',
    kind: 'agent',
    nodeId: self.nodeId,
    roomId: '7a2e64ec',
    codec: new FrameCodec(key, TOPIC, self),
    transport,
    state,
    now: () => NOW,
    log: (line: string) => logged.push(line),
  });
  t.after(() => roomNode.close());
  const member = generateIdentity();
  const send = (frame: Record<string, unknown>) =>
    transport.emit(
      'link-message',
      RELAY,
      new FrameCodec(key, TOPIC, member).signAndSeal({ node: member.nodeId, ...frame } as unknown as Frame),
    );
  const hello = (ts: number | undefined) =>
    send({ t: 'hello', name: 'colega', kind: 'agent', ephemeral: false, ts });
  const listed = () => roomNode.members().find((m) => m.node === member.nodeId);
  return { roomNode, state, logged, send, hello, listed };
}

test('a member whose clock is 50 s off either way is heard; one 70 s off is not', async (t) => {
  for (const [skew, heard] of [
    [50_000, true],
    [-50_000, true],
    [70_000, false],
    [-70_000, false],
  ] as const) {
    const { roomNode, hello, listed } = room(t);
    await roomNode.start();
    hello(NOW + skew);
    assert.equal(listed()?.online === true, heard, `a clock ${skew} ms off`);
    assert.equal(roomNode.dropped.stale, heard ? 0 : 1);
  }
});

test('a hello from a papo older than ADR 0093 (no ts) is refused, and said why; its messages are still stored', async (t) => {
  const { roomNode, state, logged, send, hello, listed } = room(t);
  await roomNode.start();
  hello(undefined);
  assert.equal(listed(), undefined);
  assert.equal(roomNode.dropped.invalid, 1);
  assert.equal(roomNode.dropped.stale, 0);
  assert.ok(
    logged.some((l) => l.includes('hello without ts (its sender runs an older papo: update it)')),
    logged.join('\n'),
  );
  send({ t: 'msg', id: '0123456789', from: 'colega', kind: 'agent', ts: NOW, body: 'still here' });
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(
    state.inbox.map((m) => m.body),
    ['still here'],
  );
});
