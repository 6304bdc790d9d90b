// `papo signal --public ADDR` where ADDR is not simply an address of the host's own public
// interface (issue 40, ADR 0112): (a) a cloud VM behind 1:1 NAT, whose only interface has a private
// address and which the world reaches at ADDR through DNAT; (b) a member's own machine, with ADDR
// its VPN address (100.64.0.0/10, as Tailscale's). In both, two members that may use only relayed
// candidates (PAPO_ICE_POLICY=relay, what a TCP-only network leaves too) can link only relay to
// relay through the one coturn, so that path is what these tests prove: a link, a message and a
// reply. Every namespace and process is removed with the test, failing or not (publicRoom's t.after).
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { exchange, linkOf, type Member, waitLinked } from '../support/members.js';
import { coturnSkipReason, labSkipReason } from './lab.js';
import { type PublicLab, publicLab, type ServerPlace, startPair } from './public-room.js';

const skip = labSkipReason() ?? coturnSkipReason();
if (skip) console.log(`# SKIP papo signal --public behind 1:1 NAT and on a VPN in the NAT lab: ${skip}`);

interface Room extends PublicLab {
  ana: Member;
  bob: Member;
}

/** The room with the server at `place` and ana and bob both relay-only; everything ends with the test. */
async function relayOnlyRoom(t: TestContext, place: ServerPlace): Promise<Room> {
  const room = await publicLab([{ nat: 'eim' }, { nat: 'eim' }], true, place);
  t.after(() => room.close());
  const [ana, bob] = await startPair(room, { PAPO_ICE_POLICY: 'relay' });
  t.after(() => Promise.all([ana.kill(), bob.kill()]));
  t.after(() => {
    // On failure, what the operator saw (coturn's lines included) is in the test's output.
    t.diagnostic(
      `operator: ${room
        .operatorLog()
        .split('\n')
        .filter((l) => /turn|listening|ports/i.test(l))
        .join(' | ')}`,
    );
  });
  return { ...room, ana, bob };
}

test('papo signal --public on a host behind 1:1 NAT (ADDR on no interface): two relay-only members link through its coturn and exchange a message and a reply', {
  skip: skip ?? false,
  timeout: 180_000,
}, async (t) => {
  const s = await relayOnlyRoom(t, 'oneToOne');
  assert.match(s.line, /^papo new --signal 'wss:\/\/203\.0\.113\.20:7450\/#pin=/);
  assert.equal(await waitLinked(s.ana, 'bob', 60_000), 'relay');
  assert.equal(await waitLinked(s.bob, 'ana', 60_000), 'relay');
  await exchange(s.ana, s.bob, 'one-to-one');
  assert.equal(linkOf(await s.ana.status(), 'bob'), 'relay');
});

test('papo signal --public NAME on a host behind 1:1 NAT, NAME a DNS name for the public address: the same mapping, two relay-only members link and exchange a message and a reply', {
  skip: skip ?? false,
  timeout: 180_000,
}, async (t) => {
  const s = await relayOnlyRoom(t, 'oneToOneName');
  assert.match(s.line, /^papo new --signal 'wss:\/\/signal\.lab\.test:7450\/#pin=/);
  assert.equal(await waitLinked(s.ana, 'bob', 60_000), 'relay');
  assert.equal(await waitLinked(s.bob, 'ana', 60_000), 'relay');
  await exchange(s.ana, s.bob, 'one-to-one by name');
  assert.match(
    s.operatorLog(),
    /203\.0\.113\.20 is on no interface of this machine .*coturn relays on 10\.0\.0\.10/,
  );
  assert.equal(linkOf(await s.ana.status(), 'bob'), 'relay');
});

test("papo signal --public on a member's own machine at its VPN address (100.64.0.0/10): two relay-only members link through its coturn and exchange a message", {
  skip: skip ?? false,
  timeout: 180_000,
}, async (t) => {
  const s = await relayOnlyRoom(t, 'vpn');
  assert.match(s.line, /^papo new --signal 'wss:\/\/100\.64\.0\.1:7450\/#pin=/);
  assert.equal(await waitLinked(s.ana, 'bob', 60_000), 'relay');
  assert.equal(await waitLinked(s.bob, 'ana', 60_000), 'relay');
  await exchange(s.ana, s.bob, 'vpn');
});
