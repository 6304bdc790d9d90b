// Delivery between in-process room members over real node-datachannel links and a real signal
// server on loopback: message and ack, `to`, forwarding through a member when two members may not
// link directly (PAPO_TEST_DENY_LINKS), and the default path being `direct`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitLinked } from '../support/members.js';
import { memberEnv } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { inboxEvents, inboxIdsOnDisk, openAgent, readProfileJson, signalServer } from './helpers.js';
import { RawPeer } from './raw-peer.js';

test('two members exchange a message and its ack; the link is direct', { timeout: 60_000 }, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const ana = await openAgent(t, room.members.Ana, memberEnv(), 'the parser');
  const bia = await openAgent(t, room.members.Bia);
  await waitLinked(ana, bia);
  const biaGot = inboxEvents(bia);

  const sent = await ana.member.send({ body: 'hello Bia' }, 10_000);
  assert.equal(sent.ackedBy, 'Bia');
  assert.equal(biaGot.length, 1);
  assert.equal(biaGot[0]?.body, 'hello Bia');
  assert.equal(biaGot[0]?.from, 'Ana');
  assert.equal(biaGot[0]?.id, sent.id);
  await waitFor('the outbox cleared', () => ana.member.queuedCount() === 0);
  assert.deepEqual(
    bia.member.unread().map((m) => m.id),
    [sent.id],
  );
  // Stored before acked: the file on disk holds it.
  assert.deepEqual(inboxIdsOnDisk(room.members.Bia), [sent.id]);

  const back = await bia.member.send({ body: 'hi Ana', replyTo: sent.id }, 10_000);
  assert.equal(back.ackedBy, 'Ana');
  const history = await ana.member.history(10);
  assert.deepEqual(
    history.map((e) => e.ev),
    ['out', 'delivered', 'in'],
  );

  // Presence and path: each sees the other online over a direct link, with what it works on.
  const seenByBia = await waitFor('Ana in Bia’s members', () =>
    bia.member.members().find((m) => m.name === 'Ana'),
  );
  assert.equal(seenByBia.online, true);
  assert.equal(seenByBia.path, 'direct');
  assert.equal(seenByBia.about, 'the parser');
  assert.equal(ana.member.members().find((m) => m.name === 'Bia')?.path, 'direct');
});

test('`to` is honoured and only the recipient’s ack clears it', { timeout: 60_000 }, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia', 'Caio'], signalUrl: server.url, make: 'store' });
  const ana = await openAgent(t, room.members.Ana);
  const bia = await openAgent(t, room.members.Bia);
  await waitLinked(ana, bia);
  const biaGot = inboxEvents(bia);

  // Caio is offline: Bia hears the message but neither stores nor acks it.
  const sent = await ana.member.send({ body: 'for Caio only', to: 'Caio' }, 1500);
  assert.equal(sent.ackedBy, null);
  assert.equal(ana.member.queuedCount(), 1);

  // Bia, a member of the room, acks (signed by her key): not the recipient, so it is still queued.
  const forger = new RawPeer({ secret: room.secret, url: server.url });
  t.after(() => forger.close());
  await forger.linkTo(ana.member.nodeId);
  const biaKey = room.members.Bia.profile.identity;
  forger.sendFrame(ana.member.nodeId, { t: 'ack', id: sent.id, by: 'Bia', node: biaKey.nodeId }, biaKey);
  // A ping-pong through the same ordered channel proves Ana handled the forged ack before we look.
  forger.sendFrame(ana.member.nodeId, {
    t: 'hello',
    node: forger.nodeId,
    name: 'Forger',
    kind: 'agent',
    ephemeral: true,
    ts: Date.now(),
  });
  await waitFor('Ana answered the forger’s hello', () => forger.frames.some((f) => f.t === 'hello'));
  assert.equal(ana.member.queuedCount(), 1);
  assert.deepEqual(
    readProfileJson<{ id: string }[]>(room.members.Ana, 'outbox.json', []).map((m) => m.id),
    [sent.id],
  );

  // Caio comes: the outbox is re-sent to the new neighbour; only his ack clears it.
  const delivered: { id: string; by: string }[] = [];
  ana.member.on('delivered', (d) => delivered.push(d));
  const caio = await openAgent(t, room.members.Caio);
  const caioGot = inboxEvents(caio);
  await waitFor('Caio acked', () => delivered.length > 0);
  assert.deepEqual(delivered, [{ id: sent.id, by: 'Caio' }]);
  assert.equal(ana.member.queuedCount(), 0);
  await waitFor('Caio’s message event', () => caioGot.length === 1);
  assert.equal(caioGot[0]?.body, 'for Caio only');
  assert.equal(biaGot.length, 0);
  assert.deepEqual(bia.member.unread(), []);
});

test('A and C may not link: A’s message reaches C through B, and C’s ack reaches A', {
  timeout: 60_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia', 'Caio'], signalUrl: server.url, make: 'store' });
  const anaId = room.members.Ana.profile.identity.nodeId;
  const caioId = room.members.Caio.profile.identity.nodeId;
  const ana = await openAgent(t, room.members.Ana, memberEnv({ PAPO_TEST_DENY_LINKS: caioId.slice(0, 16) }));
  const bia = await openAgent(t, room.members.Bia);
  const caio = await openAgent(t, room.members.Caio, memberEnv({ PAPO_TEST_DENY_LINKS: anaId.slice(0, 16) }));
  await waitLinked(ana, bia);
  await waitLinked(bia, caio);
  const caioGot = inboxEvents(caio);
  const biaGot = inboxEvents(bia);

  // Presence travels through Bia too: Ana knows Caio is online without a link to him.
  const caioSeen = await waitFor('Ana sees Caio online', () =>
    ana.member.members().find((m) => m.name === 'Caio' && m.online),
  );
  assert.equal(caioSeen.path, undefined);
  assert.ok(!ana.probe.neighbours().includes(caioId), 'Ana must not hold a link to Caio');
  assert.ok(!caio.probe.neighbours().includes(anaId), 'Caio must not hold a link to Ana');

  const sent = await ana.member.send({ body: 'through Bia', to: 'Caio' }, 10_000);
  assert.equal(sent.ackedBy, 'Caio');
  assert.equal(caioGot.length, 1);
  assert.equal(caioGot[0]?.body, 'through Bia');
  await waitFor('Ana’s outbox cleared', () => ana.member.queuedCount() === 0);
  assert.equal(biaGot.length, 0, 'Bia forwards a message addressed to Caio but does not store it');

  // And the other way, to everyone: both store it, the first ack clears it.
  const reply = await caio.member.send({ body: 'back to all', replyTo: sent.id }, 10_000);
  assert.ok(reply.ackedBy === 'Ana' || reply.ackedBy === 'Bia');
  await waitFor('Ana got the reply', () => ana.member.unread().some((m) => m.id === reply.id));
  await waitFor('Bia got the reply', () => biaGot.some((m) => m.id === reply.id));
});
