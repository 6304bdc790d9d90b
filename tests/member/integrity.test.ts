// What a member refuses: a duplicate message is stored and handed to the agent once but acked every
// time (also after a restart); an outsider who knows the room's topic but not its secret learns
// nothing and gets nothing; replayed, misaddressed or forged sealed signal blobs are dropped and
// counted. Real members, a real signal server and real WebRTC links on loopback.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { sealSignal } from '../../src/client/net/signal-seal.js';
import type { AckFrame } from '../../src/client/wire/frames.js';
import type { Envelope } from '../../src/client/wire/messages.js';
import { deriveRoomKeys } from '../../src/client/wire/room-crypto.js';
import { SIGNAL_PATH } from '../../src/signal-protocol.js';
import { waitLinked } from '../support/members.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { inboxEvents, inboxIdsOnDisk, openAgent, signalServer } from './helpers.js';
import { RawPeer } from './raw-peer.js';

test('a duplicate is handed to the agent once and acked every time, also after a restart', {
  timeout: 60_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  let bia = await openAgent(t, room.members.Bia);
  let got = inboxEvents(bia);
  const peer = new RawPeer({ secret: room.secret, url: server.url });
  t.after(() => peer.close());
  await peer.linkTo(bia.member.nodeId);

  // A message "from Ana", signed with Ana's key (as Ana's own papo would), sent three times.
  const msg: Envelope = {
    id: 'a1b2c3d4e5',
    from: 'Ana',
    node: room.members.Ana.profile.identity.nodeId,
    kind: 'agent',
    ts: Date.now(),
    body: 'only once please',
  };
  const acksFor = (id: string) =>
    peer.frames.filter((f): f is AckFrame & { sig: string } => f.t === 'ack' && f.id === id);
  for (let i = 1; i <= 3; i++) {
    assert.ok(peer.sendFrame(bia.member.nodeId, { t: 'msg', ...msg }, room.members.Ana.profile.identity));
    await waitFor(`ack #${i}`, () => acksFor(msg.id).length >= i);
  }
  assert.equal(got.length, 1);
  assert.equal(got[0]?.body, 'only once please');
  assert.equal(bia.member.unread().length, 1);
  assert.deepEqual(
    acksFor(msg.id).map((a) => a.by),
    ['Bia', 'Bia', 'Bia'],
  );

  // The agent reads it; Bia restarts; the same id comes again: remembered from the log.
  await bia.member.consume([msg.id]);
  await bia.member.close();
  bia = await openAgent(t, room.members.Bia);
  got = inboxEvents(bia);
  await peer.linkTo(bia.member.nodeId);
  const before = acksFor(msg.id).length;
  assert.ok(peer.sendFrame(bia.member.nodeId, { t: 'msg', ...msg }, room.members.Ana.profile.identity));
  await waitFor('the ack after the restart', () => acksFor(msg.id).length > before);
  assert.equal(got.length, 0, 'a message seen before the restart is not handed over again');
  assert.deepEqual(bia.member.unread(), []);
  assert.deepEqual(inboxIdsOnDisk(room.members.Bia), []);
  const inLog = (await bia.member.history(50)).filter((e) => e.ev === 'in');
  assert.equal(inLog.length, 1, 'stored once in the log');
});

test('an outsider on the room’s topic with another secret learns nothing and gets nothing', {
  timeout: 60_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const ana = await openAgent(t, room.members.Ana);
  const bia = await openAgent(t, room.members.Bia);
  await waitLinked(ana, bia);
  const { topic } = deriveRoomKeys(room.secret);

  const outsider = RawPeer.outsider(server.url, topic);
  t.after(() => outsider.close());
  // It is on the topic (the server told it who is there) ...
  await waitFor('the outsider joined', () => outsider.signal.joined);
  assert.equal(outsider.signal.peers().length, 2);
  // ... and each member tries to link with it (offer or knock, sealed with the room's key) and
  // drops whatever it seals with its own key.
  await waitFor('both members dropped the outsider’s sealed blobs', () =>
    [ana, bia].every((m) => m.probe.signalState().dropped.open_failed > 0),
  );
  await waitFor('the outsider could not open theirs', () => outsider.signal.dropped().open_failed > 0);

  const sent = await ana.member.send({ body: 'not for outsiders' }, 10_000);
  assert.equal(sent.ackedBy, 'Bia');
  // Give the mesh a few retry rounds (1 s, 2 s) to prove nothing more happens.
  await new Promise((r) => setTimeout(r, 3500));
  assert.deepEqual(outsider.signals, [], 'no sealed blob opened for the outsider');
  assert.deepEqual(outsider.linkOpens, [], 'no link to the outsider');
  assert.deepEqual(outsider.raw, [], 'no frame reached the outsider');
  for (const m of [ana, bia]) {
    assert.ok(!m.probe.neighbours().includes(outsider.nodeId));
    assert.ok(!m.member.members().some((s) => s.node === outsider.nodeId));
    assert.ok(!m.member.liveMembers().some((s) => s.node === outsider.nodeId));
  }
});

test('replayed, misaddressed and forged sealed signal blobs are dropped and counted', {
  timeout: 60_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const bia = await openAgent(t, room.members.Bia);
  await waitFor('Bia joined', () => bia.probe.signalState().joined);
  const keys = deriveRoomKeys(room.secret);
  const anaId = room.members.Ana.profile.identity.nodeId;
  const biaId = bia.member.nodeId;
  // Someone on the signal path who holds a blob of the room (here: made with the key) and
  // a peer id of its own on the topic.
  const rawId = 'f'.repeat(64);
  const ws = new WebSocket(`${server.url}${SIGNAL_PATH}`);
  t.after(() => ws.terminate());
  const inbound: { t: string }[] = [];
  ws.on('message', (d) => inbound.push(JSON.parse(d.toString()) as { t: string }));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  await waitFor('welcome', () => inbound.some((m) => m.t === 'welcome'));
  ws.send(JSON.stringify({ t: 'join', topic: keys.topic, peer: rawId }));
  await waitFor('peers', () => inbound.some((m) => m.t === 'peers'));
  const signal = (data: string) =>
    ws.send(JSON.stringify({ t: 'signal', topic: keys.topic, to: biaId, data }));

  const knock = sealSignal(keys.signalKey, rawId, biaId, { k: 'knock' });
  signal(knock);
  signal(knock); // the same blob again: replayed
  signal(sealSignal(keys.signalKey, rawId, anaId, { k: 'knock' })); // sealed for Ana, sent to Bia
  signal(sealSignal(keys.signalKey, anaId, biaId, { k: 'knock' })); // claims to be Ana
  signal(sealSignal(keys.signalKey, rawId, biaId, { k: 'knock' }, Date.now() - 10 * 60_000)); // old
  signal(sealSignal(deriveRoomKeys(new Uint8Array(32).fill(7)).signalKey, rawId, biaId, { k: 'knock' }));
  signal('not base64!');

  const dropped = await waitFor('every bad blob counted', () => {
    const d = bia.probe.signalState().dropped;
    return d.malformed >= 1 &&
      d.open_failed >= 1 &&
      d.stale >= 1 &&
      d.wrong_sender >= 1 &&
      d.misaddressed >= 1 &&
      d.replayed >= 1
      ? d
      : undefined;
  });
  assert.deepEqual(dropped, {
    malformed: 1,
    open_failed: 1,
    bad_plaintext: 0,
    misaddressed: 1,
    wrong_sender: 1,
    stale: 1,
    replayed: 1,
    bad_server_message: 0,
  });
});
