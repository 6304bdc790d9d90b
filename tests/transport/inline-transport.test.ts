// The in-process transport (InlineTransport, transport: 'inline'): the network stack in the
// member's own process, unsupervised, as the benchmark that measures the process boundary uses it
// (bench/member.ts). A member on it links with a member on the supervised transport process,
// messages and acks go both ways, its health says "running, never restarted", and it closes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openMember } from '../../src/client/open-member.js';
import { inboxEvents, openAgent, signalServer } from '../member/helpers.js';
import { waitLinked } from '../support/members.js';
import { memberEnv } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';

test('a member on the in-process transport links, exchanges messages and acks, and closes', {
  timeout: 60_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const ana = await openMember({
    home: room.members.Ana.home,
    profile: 'default',
    env: memberEnv(),
    mode: 'agent',
    transport: 'inline',
  });
  t.after(() => ana.member.close());
  const bia = await openAgent(t, room.members.Bia);
  await waitLinked(ana, bia);

  const biaGot = inboxEvents(bia);
  const sent = await ana.member.send({ body: 'hello from the inline transport' }, 10_000);
  assert.equal(sent.ackedBy, 'Bia');
  assert.equal(biaGot[0]?.body, 'hello from the inline transport');
  const anaGot = inboxEvents(ana);
  const back = await bia.member.send({ body: 'hi Ana', replyTo: sent.id }, 10_000);
  assert.equal(back.ackedBy, 'Ana');
  assert.equal(anaGot[0]?.body, 'hi Ana');

  const seen = await waitFor('Bia in Ana’s members', () =>
    ana.member.members().find((m) => m.name === 'Bia'),
  );
  assert.equal(seen.path, 'direct');
  const health = await ana.member.network();
  assert.equal(health.signalUrl, server.url);
  assert.equal(health.signal.joined, true);
  assert.deepEqual(health.transport, { state: 'running', restarts: 0, failing: false, stallSeconds: 0 });

  // Closing leaves the signal server: the other side sees Ana offline well before presence expires.
  await ana.member.close();
  await waitFor('Ana offline for Bia', () => !bia.member.onlineNames().includes('Ana'), 10_000);
});
