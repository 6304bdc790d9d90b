// papo doctor where UDP is blocked: a member host behind a NAT router that drops every forwarded
// UDP packet (a network that allows only TCP out), a `papo signal` and a coturn running
// docker/turnserver.conf in the public segment. Doctor runs inside the member's namespace, as the
// person would on that network.
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
