// A captured hello sealed again (ADR 0093). Frames are told apart by the seal's nonce
// (forwarding.ts), but any member holds the room key and can seal the same signed bytes again under
// a new nonce: before, a hello of voce's, captured while voce was there, kept voce "online" at
// colega for as long as the attacker sent it again, minutes after voce left, and brought back the
// `review` flag voce's person had since turned off; a message of voce's did the same. Here voce and
// colega are real `papo mcp` processes on a real signal server; the attacker is a raw peer with the
// room key (tests/member/raw-peer.ts) linked to both, and the third member, which never heard voce,
// is a real room node whose clock is 10 minutes on.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import type { LinkPath } from '../../src/client/member-api.js';
import type { TransportEvents } from '../../src/client/room/links.js';
import { RoomNode } from '../../src/client/room/room-node.js';
import { FrameCodec, type SignedFrame } from '../../src/client/wire/frame-codec.js';
import type { Frame } from '../../src/client/wire/frames.js';
import { generateIdentity } from '../../src/client/wire/identity.js';
import { deriveRoomKeys, FRAME_AAD, open, seal } from '../../src/client/wire/room-crypto.js';
import { STATUS_PEER_REVIEWS } from '../../src/mcp/texts.js';
import { signalServer, startMcp, waitOnline } from '../member/helpers.js';
import { RawPeer } from '../member/raw-peer.js';
import { memoryState } from '../support/memory-state.js';
import { memberEnv, runPapo } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';

/** The same signed frame under a new nonce: what any holder of the room key can make of it. */
function resealed(frameKey: Uint8Array, sealed: Uint8Array): Uint8Array {
  return seal(frameKey, open(frameKey, sealed, FRAME_AAD), FRAME_AAD);
}

/** voce's line in a status text ('' when it is not listed). */
const voceLine = (status: string) => status.split('\n').find((l) => l.startsWith('- voce (')) ?? '';

test('a captured hello or message of voce’s, sealed again, neither brings voce back online after it left nor brings back its review flag', {
  timeout: 150_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['voce', 'colega'], signalUrl: server.url, make: 'store' });
  const voceEnv = memberEnv({ PAPO_HOME: room.members.voce.home });
  assert.equal((await runPapo(['review', 'on'], { env: voceEnv })).code, 0);
  const voce = await startMcp(t, room.members.voce.home);
  const colega = await startMcp(t, room.members.colega.home);
  await waitOnline(colega, 'voce');
  const voceNode = room.members.voce.profile.identity.nodeId;
  const colegaNode = room.members.colega.profile.identity.nodeId;
  const attacker = new RawPeer({ secret: room.secret, url: server.url });
  t.after(() => attacker.close());
  await attacker.linkTo(voceNode);
  await attacker.linkTo(colegaNode);

  /** voce's frames the attacker received, as the sealed bytes and what they opened to. */
  const fromVoce = () =>
    attacker.raw.flatMap((bytes) => {
      try {
        const frame = attacker.codec().open(bytes);
        return frame.node === voceNode ? [{ bytes, frame }] : [];
      } catch {
        return [];
      }
    });
  const status = () => colega.tool('status');
  /** Sends bytes to colega, then a message of ours, and waits for colega's ack: by then the bytes
   * were handled (one ordered channel). Not a hello: voce would answer that with a hello of its own. */
  let round = 0;
  const deliverAndSettle = async (bytes: Uint8Array) => {
    assert.ok(attacker.sendBytes(colegaNode, bytes));
    round++;
    const id = `${round}`.padStart(10, 'a');
    const probe = {
      t: 'msg',
      id,
      from: 'prober',
      node: attacker.nodeId,
      kind: 'agent',
      to: 'colega',
      ts: Date.now(),
      body: `probe ${round}`,
    } as Frame;
    attacker.sendFrame(colegaNode, probe);
    await waitFor('colega acked the probe', () =>
      attacker.frames.some((f) => f.t === 'ack' && f.id === id && f.by === 'colega'),
    );
  };

  // voce's hello while its person reviews, as it crossed the room.
  // voce says hello every 30 s, and at once to a newcomer's hello: the attacker says one (again
  // every 2 s, as a hello may cross the link before voce's side of it is up).
  let poked = 0;
  const reviewing = await waitFor('a hello of voce’s saying its person reviews', () => {
    const found = fromVoce().find(({ frame }) => frame.t === 'hello' && frame.review === true);
    if (found === undefined && Date.now() - poked >= 2000) {
      poked = Date.now();
      attacker.sendFrame(voceNode, {
        t: 'hello',
        node: attacker.nodeId,
        name: 'attacker',
        kind: 'agent',
        ephemeral: false,
        ts: Date.now(),
      } as Frame);
    }
    return found;
  });
  await waitFor('colega sees voce’s person review', async () =>
    voceLine(await status()).includes(STATUS_PEER_REVIEWS),
  );
  // The person turns review off: voce says so at once, and colega shows it.
  assert.equal((await runPapo(['review', 'off'], { env: voceEnv })).code, 0);
  await waitFor(
    'colega sees voce’s review off',
    async () => {
      const line = voceLine(await status());
      return line.includes(': online') && !line.includes(STATUS_PEER_REVIEWS);
    },
    20_000,
  );
  // 1. The old hello, sealed again: its review flag must not come back.
  await deliverAndSettle(resealed(attacker.frameKey, reviewing.bytes));
  const afterReviewReplay = voceLine(await status());

  // voce writes once, then leaves: colega sees it offline at once (it left the signal server's topic).
  assert.match(await voce.tool('send', { message: 'the webhook contract is v2' }), /^Delivered to colega/);
  const message = await waitFor('voce’s message at the attacker', () =>
    fromVoce().find(({ frame }) => frame.t === 'msg'),
  );
  const lastHello = fromVoce()
    .filter(({ frame }) => frame.t === 'hello')
    .at(-1) as { bytes: Uint8Array; frame: SignedFrame };
  await voce.stop();
  await waitFor('colega sees voce offline', async () => voceLine(await status()).includes(': offline'));
  // 2. voce's message, sealed again after it left.
  await deliverAndSettle(resealed(attacker.frameKey, message.bytes));
  const afterMsgReplay = voceLine(await status());
  // 3. voce's newest hello, sealed again after it left.
  await deliverAndSettle(resealed(attacker.frameKey, lastHello.bytes));
  const afterHelloReplay = voceLine(await status());

  assert.deepEqual(
    {
      reviewFlagBack: afterReviewReplay.includes(STATUS_PEER_REVIEWS),
      onlineAfterMsgReplay: afterMsgReplay.includes(': online'),
      onlineAfterHelloReplay: afterHelloReplay.includes(': online'),
    },
    { reviewFlagBack: false, onlineAfterMsgReplay: false, onlineAfterHelloReplay: false },
    `after the review replay: ${afterReviewReplay}\nafter the message replay: ${afterMsgReplay}\nafter the hello replay: ${afterHelloReplay}`,
  );
  // Every copy reached colega: its messages still arrived once (nothing new for the agent).
  assert.match(await colega.tool('inbox'), /the webhook contract is v2/);
});

class Recorder extends EventEmitter<TransportEvents> {
  constructor(private readonly peer: string) {
    super();
  }
  send(): boolean {
    return true;
  }
  neighbours(): string[] {
    return [this.peer];
  }
  path(): LinkPath | undefined {
    return 'direct';
  }
}

test('a hello of a real member, sealed again 10 minutes later, does not show it online to a member that never heard it', {
  timeout: 60_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['voce'], signalUrl: server.url, make: 'store' });
  const voce = await startMcp(t, room.members.voce.home);
  await voce.tool('status');
  const voceNode = room.members.voce.profile.identity.nodeId;
  const attacker = new RawPeer({ secret: room.secret, url: server.url });
  t.after(() => attacker.close());
  await attacker.linkTo(voceNode);
  const captured = await waitFor('voce’s hello at the attacker', () =>
    attacker.raw.find((bytes) => {
      try {
        const frame = attacker.codec().open(bytes);
        return frame.t === 'hello' && frame.node === voceNode;
      } catch {
        return false;
      }
    }),
  );
  await voce.stop();

  // terceiro joins 10 minutes later (its clock says so) and never heard voce; the attacker is its
  // neighbour and hands it voce's hello, sealed again.
  const keys = deriveRoomKeys(room.secret);
  const self = generateIdentity();
  const transport = new Recorder(attacker.nodeId);
  const node = new RoomNode({
    name: 'terceiro',
    kind: 'agent',
    nodeId: self.nodeId,
    roomId: keys.roomId,
    codec: new FrameCodec(keys.frameKey, keys.topic, self),
    transport,
    state: memoryState(),
    now: () => Date.now() + 10 * 60_000,
  });
  t.after(() => node.close());
  await node.start();
  transport.emit('link-message', attacker.nodeId, resealed(keys.frameKey, captured));
  const voceAtTerceiro = node.members().find((m) => m.node === voceNode);
  assert.equal(voceAtTerceiro?.online ?? false, false, `voce at terceiro: ${JSON.stringify(voceAtTerceiro)}`);
  assert.equal(node.dropped.stale, 1);
});
