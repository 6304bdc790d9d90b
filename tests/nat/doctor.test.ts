// papo doctor across the NAT lab, with a `papo signal` and a coturn running docker/turnserver.conf
// in the public segment; doctor runs inside a member's namespace, as the person would on that
// network. Where UDP is blocked (the member's NAT router drops every forwarded UDP packet: a
// network that allows only TCP out), and where the server's own firewall drops its TURN port over
// UDP and TCP while its signal port is open (issue 40: the fix is then its operator's).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { memberEnv, runPapo } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import { coturnSkipReason, createNatLab, labSkipReason } from './lab.js';
import { LAB_SIGNAL_PORT, startLabSignal } from './lab-signal.js';

const SHIPPED_CONF = fileURLToPath(new URL('../../../docker/turnserver.conf', import.meta.url));
const skip = labSkipReason() ?? coturnSkipReason();
if (skip) console.log(`# SKIP doctor in the NAT lab: ${skip}`);

interface Check {
  id: string;
  status: string;
  text: string;
  fix?: string;
  data?: Record<string, unknown>;
}

async function udpBlockedSite(t: TestContext) {
  const lab = await createNatLab({ sites: [{ nat: 'eim', blockUdp: true }, { nat: 'eim' }] });
  t.after(() => lab.close());
  const coturn = await lab.startCoturn({ configFile: SHIPPED_CONF, secret: randomBytes(12).toString('hex') });
  await startLabSignal(lab, coturn);
  const room = await makeRoom(t, {
    names: ['ana-doc', 'bia-doc'],
    signalUrl: `ws://${lab.publicIp}:${LAB_SIGNAL_PORT}`,
    label: 'doctor',
  });
  const home = room.homes[0] as string;
  const doctor = async (extra: NodeJS.ProcessEnv = {}) => {
    const r = await runPapo(['doctor', '--json'], {
      env: memberEnv({ HOME: home, PAPO_HOME: home, PAPO_ICE_SERVERS: undefined, ...extra }),
      wrap: ['ip', 'netns', 'exec', lab.sites[0].ns],
      timeoutMs: 30_000,
    });
    const report = JSON.parse(r.stdout) as { ok: boolean; checks: Check[] };
    return { code: r.code, report, stdout: r.stdout };
  };
  return { coturn, doctor };
}

test('UDP blocked: STUN and TURN over UDP fail, TURN over TCP works, so the room can work (exit 0) and the lines say which', {
  skip: skip ?? false,
  timeout: 120_000,
}, async (t) => {
  const { doctor } = await udpBlockedSite(t);
  const { code, report, stdout } = await doctor();
  const lines = report.checks.map((c) => `${c.id}:${c.status}:${String(c.data?.transport ?? '')}`);
  t.diagnostic(lines.join(' '));
  assert.equal(code, 0, stdout);
  const stun = report.checks.find((c) => c.id === 'stun');
  assert.notEqual(stun?.status, 'ok', JSON.stringify(stun));
  const turns = report.checks.filter((c) => c.id === 'turn');
  assert.deepEqual(
    turns.map((c) => [c.data?.transport, c.data?.outcome]),
    [
      ['udp', 'unreachable'],
      ['tcp', 'allocated'],
    ],
  );
  assert.equal(turns[0]?.status, 'warn', 'a UDP URL that fails while TCP works is a warning');
  assert.equal(turns[1]?.status, 'ok');
  assert.deepEqual(report.checks.find((c) => c.id === 'path')?.data, { ok: true, via: 'relay' });
  // Not "configure TURN over TCP" (it works) nor "is it running?" (it answers over TCP): a note.
  const note = `nothing to do: UDP seems blocked on this network (or closed at the server), so links go through TURN over TCP (${String(turns[1]?.data?.url)} works) and the room works`;
  assert.deepEqual(
    [stun?.status, stun?.fix, stun?.data?.cause, turns[0]?.fix, turns[0]?.data?.cause],
    ['warn', note, 'udp-blocked', note, 'udp-blocked'],
  );
});

test("the server's firewall drops its TURN port (UDP and TCP), only the signal port open: the fixes are for its operator, not this network; exit 1", {
  skip: skip ?? false,
  timeout: 120_000,
}, async (t) => {
  const lab = await createNatLab({ sites: [{ nat: 'eim' }, { nat: 'eim' }] });
  t.after(() => lab.close());
  const coturn = await lab.startCoturn({ configFile: SHIPPED_CONF, secret: randomBytes(12).toString('hex') });
  await startLabSignal(lab, coturn);
  // The server's own firewall (its namespace's INPUT), as an operator who opened the signal port only.
  for (const protocol of ['udp', 'tcp']) {
    const r = await lab.run(lab.publicNs, 'iptables', [
      '-A',
      'INPUT',
      '-p',
      protocol,
      '--dport',
      String(coturn.port),
      '-j',
      'DROP',
    ]);
    assert.equal(r.code, 0, r.stderr);
  }
  const room = await makeRoom(t, {
    names: ['ana-doc', 'bia-doc'],
    signalUrl: `ws://${lab.publicIp}:${LAB_SIGNAL_PORT}`,
    label: 'doctor',
  });
  const home = room.homes[0] as string;
  const run = await runPapo(['doctor', '--json'], {
    env: memberEnv({ HOME: home, PAPO_HOME: home, PAPO_ICE_SERVERS: undefined }),
    wrap: ['ip', 'netns', 'exec', lab.sites[0].ns],
    timeoutMs: 30_000,
  });
  const report = JSON.parse(run.stdout) as { ok: boolean; checks: Check[] };
  t.diagnostic(report.checks.map((c) => `${c.id}:${c.status}`).join(' '));
  assert.equal(run.code, 1, run.stdout);
  const byId = (id: string) => report.checks.filter((c) => c.id === id);
  assert.equal(byId('signal')[0]?.status, 'ok');
  const fix = `not your network: ${lab.publicIp} answers as a signal server, but its TURN server answers neither over UDP nor over TCP, so its TURN ports are closed to you. Its operator opens ${coturn.port}/udp and ${coturn.port}/tcp (TURN), 49160-50120/udp (TURN relays) to that machine (the lines papo signal --public printed) and checks that coturn runs`;
  assert.deepEqual(
    [...byId('stun'), ...byId('turn'), ...byId('path')].map((c) => [
      c.id,
      c.status,
      c.data?.outcome ?? null,
      c.fix,
      c.data?.cause,
    ]),
    [
      ['stun', 'warn', null, fix, 'server-turn-closed'],
      ['turn', 'fail', 'unreachable', fix, 'server-turn-closed'],
      ['turn', 'fail', 'unreachable', fix, 'server-turn-closed'],
      ['path', 'fail', null, fix, 'server-turn-closed'],
    ],
  );
  assert.doesNotMatch(run.stdout, /UDP may be blocked here|this network may block/);
});

test('UDP blocked with only a UDP TURN server: no path, a failure with the fix (TURN over TCP or TLS); exit 1', {
  skip: skip ?? false,
  timeout: 120_000,
}, async (t) => {
  const { coturn, doctor } = await udpBlockedSite(t);
  // The person's own ICE servers (a company's TURN), UDP only: static credentials are not needed
  // to see that nothing answers.
  const ice = JSON.stringify([
    { urls: `turn:${coturn.host}:${coturn.port}?transport=udp`, username: 'u', credential: 'not-a-real-one' },
  ]);
  const { code, report, stdout } = await doctor({ PAPO_ICE_SERVERS: ice });
  assert.equal(code, 1, stdout);
  const turn = report.checks.find((c) => c.id === 'turn');
  assert.equal(turn?.status, 'fail', JSON.stringify(turn));
  assert.equal(turn?.data?.outcome, 'unreachable');
  assert.match(turn?.fix ?? '', /^this network may block TURN over UDP to that server/);
  const path = report.checks.find((c) => c.id === 'path');
  assert.equal(path?.status, 'fail', JSON.stringify(path));
  t.diagnostic(`path: ${path?.text} — fix: ${path?.fix}`);
  assert.ok(!stdout.includes('not-a-real-one'), 'a credential was printed');
});
