// NAT scenarios: two real `papo mcp` processes, each in its own private network behind its own NAT
// router, meet on a `papo signal` in the public segment that hands out TURN REST credentials for a
// real coturn running docker/turnserver.conf. Each scenario asserts the path `status` reports and
// that a message and its reply go through with acks.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { linkOf, type Member, startMember, waitLinked, waitMessage, waitPath } from '../support/members.js';
import { msgIdIn } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import {
  type Coturn,
  coturnSkipReason,
  createNatLab,
  labSkipReason,
  type NatLab,
  type SiteOptions,
} from './lab.js';
import { LAB_SIGNAL_PORT, startLabSignal } from './lab-signal.js';

const SHIPPED_CONF = fileURLToPath(new URL('../../../docker/turnserver.conf', import.meta.url));
const skip = labSkipReason() ?? coturnSkipReason();
if (skip) console.log(`# SKIP NAT scenarios: ${skip}`);

interface Scenario {
  lab: NatLab;
  coturn: Coturn;
  signal: ChildProcess;
  signalUrl: string;
  a: Member;
  b: Member;
  stopSignal(): Promise<void>;
}

async function scenario(
  t: TestContext,
  sites: [SiteOptions, SiteOptions],
  names: [string, string] = ['ana-nat', 'bia-nat'],
): Promise<Scenario> {
  const lab = await createNatLab({ sites });
  t.after(() => lab.close());
  const coturn = await lab.startCoturn({ configFile: SHIPPED_CONF, secret: randomBytes(12).toString('hex') });
  const signal = await startLabSignal(lab, coturn);
  const signalUrl = `ws://${lab.publicIp}:${LAB_SIGNAL_PORT}`;
  const room = await makeRoom(null, { names, signalUrl, label: 'nat' });
  const members: Member[] = [];
  t.after(async () => {
    await Promise.all(members.map((m) => m.kill()));
    await room.close();
  });
  for (const [i, name] of names.entries()) {
    members.push(await startMember(name, room.homes[i] as string, { ns: lab.sites[i]?.ns as string }));
  }
  return {
    lab,
    coturn,
    signal,
    signalUrl,
    a: members[0] as Member,
    b: members[1] as Member,
    async stopSignal() {
      signal.kill('SIGKILL');
      await new Promise((resolve) =>
        signal.exitCode !== null ? resolve(null) : signal.once('exit', resolve),
      );
    },
  };
}

/** Waits until each member sees the other linked; returns a's path. */
async function linkedBothWays(s: Scenario): Promise<string> {
  const [path] = await Promise.all([waitLinked(s.a, s.b.name), waitLinked(s.b, s.a.name)]);
  return path;
}

/** A message from a to b and b's reply, both acknowledged ("Delivered to ..."). */
async function exchange(a: Member, b: Member, label: string): Promise<void> {
  const body = `${label} ${randomBytes(6).toString('hex')}`;
  const sent = await a.send(body, { to: b.name });
  assert.match(sent, new RegExp(`^Delivered to ${b.name} `), sent);
  const got = await waitMessage(b, body);
  const id = msgIdIn(got);
  assert.ok(id, got);
  const reply = `reply to ${body}`;
  const replied = await b.send(reply, { to: a.name, reply_to: id });
  assert.match(replied, new RegExp(`^Delivered to ${a.name} `), replied);
  await waitMessage(a, reply);
}

test('both behind endpoint-independent NAT: linked direct', { skip: skip ?? false }, async (t) => {
  const s = await scenario(t, [{ nat: 'eim' }, { nat: 'eim' }]);
  await waitPath(s.a, s.b.name, 'direct');
  await waitPath(s.b, s.a.name, 'direct');
  await exchange(s.a, s.b, 'eim');
});

test('both behind symmetric NAT: linked through TURN (relay)', { skip: skip ?? false }, async (t) => {
  const s = await scenario(t, [{ nat: 'symmetric' }, { nat: 'symmetric' }]);
  await linkedBothWays(s);
  // Long past the moment an EIM pair moves from relay to direct: still relay, both ways.
  await new Promise((r) => setTimeout(r, 3000));
  assert.equal(linkOf(await s.a.status(), s.b.name), 'relay');
  assert.equal(linkOf(await s.b.status(), s.a.name), 'relay');
  await exchange(s.a, s.b, 'symmetric');
});

// libjuice speaks TURN over UDP only; papo carries it over TCP through a local bridge
// (src/client/net/turn-tcp-bridge.ts, ADR 0054). Side A's router drops every UDP packet, so A can only
// reach the TURN server over TCP.
test('UDP blocked on one side: linked through TURN over TCP', {
  skip: skip ?? false,
}, async (t) => {
  const s = await scenario(t, [{ nat: 'eim', blockUdp: true }, { nat: 'eim' }]);
  assert.equal(await linkedBothWays(s), 'relay');
  await exchange(s.a, s.b, 'tcp-relay');
});

test('the signal server stopped after the link is up: the link keeps working', {
  skip: skip ?? false,
}, async (t) => {
  const s = await scenario(t, [{ nat: 'eim' }, { nat: 'symmetric' }]);
  await linkedBothWays(s);
  await s.stopSignal();
  // Past the point where the members have noticed: their signal connections are down.
  await new Promise((r) => setTimeout(r, 2000));
  // Still linked (direct or relay: ICE may still move from a relay pair to a direct one).
  assert.match(String(linkOf(await s.a.status(), s.b.name)), /^(direct|relay)$/);
  await exchange(s.a, s.b, 'no-signal');
  await exchange(s.b, s.a, 'no-signal-back');
});
