// Two machines, one command (issue 26): in the NAT lab, the operator runs only
// `papo signal --public <address>` on the public host (coturn installed: it starts and supervises
// its own), the room's creator runs the `papo new --signal '…'` line it printed as it is, the
// colleague runs only `papo join --name bob < invite`, and no papo variable is set on either member
// (their homes and an English locale are the test's sandbox). Two real `papo mcp` processes then
// exchange a message and a reply, for each kind of network; and with no `turnserver` on the
// server's PATH, the agents' `status` and `send`, `papo status` and `papo doctor` name the missing
// TURN within the bound (NO_PATH_AFTER_MS).
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { NO_PATH_AFTER_MS } from '../../src/client/net/health.js';
import { exchange, linkOf, type Member, waitLinked, waitPath } from '../support/members.js';
import { cleanEnv, runPapo } from '../support/papo.js';
import { waitFor } from '../support/wait.js';
import { coturnSkipReason, labSkipReason, type SiteOptions } from './lab.js';
import { type PublicLab, publicLab, startPair } from './public-room.js';

const skip = labSkipReason() ?? coturnSkipReason();
if (skip) console.log(`# SKIP papo signal --public in the NAT lab: ${skip}`);

interface PublicRoom extends PublicLab {
  ana: Member;
  bob: Member;
}

/** publicLab and both papo mcp started; everything ends with the test. */
async function publicRoom(
  t: TestContext,
  sites: [SiteOptions, SiteOptions],
  coturn = true,
): Promise<PublicRoom> {
  const room = await publicLab(sites, coturn);
  t.after(() => room.close());
  t.diagnostic(
    `operator: ${room
      .operatorLog()
      .split('\n')
      .filter((l) => /WARNING|turn:|listening/.test(l))
      .join(' | ')}`,
  );
  const [ana, bob] = await startPair(room);
  t.after(() => Promise.all([ana.kill(), bob.kill()]));
  return { ...room, ana, bob };
}

test('papo signal --public in the lab: the printed line makes the room, the invite alone joins it, and both NATs endpoint-independent link direct', {
  skip: skip ?? false,
  timeout: 180_000,
}, async (t) => {
  const s = await publicRoom(t, [{ nat: 'eim' }, { nat: 'eim' }]);
  assert.match(
    s.line,
    /^papo new --signal 'wss:\/\/203\.0\.113\.1:7450\/#pin=sha256\/[A-Za-z0-9_-]{43}&token=[^']+'$/,
  );
  // ICE may select a relayed pair first and move to the direct one a moment later: judged settled.
  await waitPath(s.ana, 'bob', 'direct');
  await waitPath(s.bob, 'ana', 'direct');
  await exchange(s.ana, s.bob, 'public eim');
});

test('papo signal --public in the lab: bob behind a symmetric NAT links through the coturn the server started', {
  skip: skip ?? false,
  timeout: 180_000,
}, async (t) => {
  const s = await publicRoom(t, [{ nat: 'symmetric' }, { nat: 'symmetric' }]);
  await waitLinked(s.ana, 'bob');
  await waitLinked(s.bob, 'ana');
  // Past the moment an endpoint-independent pair would move to direct: still relayed.
  await new Promise((r) => setTimeout(r, 3000));
  assert.equal(linkOf(await s.ana.status(), 'bob'), 'relay');
  await exchange(s.ana, s.bob, 'public symmetric');
});

test('papo signal --public in the lab: UDP blocked on one side, linked through its coturn over TCP', {
  skip: skip ?? false,
  timeout: 180_000,
}, async (t) => {
  const s = await publicRoom(t, [{ nat: 'eim', blockUdp: true }, { nat: 'eim' }]);
  assert.equal(await waitLinked(s.ana, 'bob'), 'relay');
  await exchange(s.ana, s.bob, 'public tcp');
});

test('papo signal --public without turnserver on its PATH: members that cannot link are told within the bound that no TURN is handed out, and papo forget is not offered', {
  skip: skip ?? false,
  timeout: 180_000,
}, async (t) => {
  const s = await publicRoom(t, [{ nat: 'symmetric' }, { nat: 'symmetric' }], false);
  const started = Date.now();
  const noTurn =
    /(bob|a member not met yet) is on the signal server wss:\/\/203\.0\.113\.1:7450 like you .*no network path.*the signal server hands out no TURN relay/;
  let last = '';
  const status = await waitFor(
    'ana’s status to name the missing TURN',
    async () => {
      last = await s.ana.status();
      return noTurn.test(last) ? last : '';
    },
    { timeoutMs: NO_PATH_AFTER_MS + 20_000, intervalMs: 1000, last: () => last },
  );
  t.diagnostic(`named after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.doesNotMatch(status, /#pin|token=/);
  const sent = await s.ana.send('are you there?', { to: 'bob' });
  assert.match(sent, noTurn, sent);
  assert.doesNotMatch(sent, /papo forget \w/);

  // The person: papo status in ana's namespace, beside her running agent.
  const person = await runPapo(['status', '--timeout', '15'], {
    env: cleanEnv({ HOME: s.homes[0], PAPO_HOME: s.homes[0] }),
    wrap: ['ip', 'netns', 'exec', s.lab.sites[0].ns],
    timeoutMs: 60_000,
  });
  assert.match(person.stdout + person.stderr, /The signal server hands out no TURN relay/);
  assert.doesNotMatch(person.stdout + person.stderr, /papo forget bob/);

  // papo doctor: the signal server answers, and hands out no TURN.
  const doctor = await runPapo(['doctor', '--json'], {
    env: cleanEnv({ HOME: s.homes[0], PAPO_HOME: s.homes[0] }),
    wrap: ['ip', 'netns', 'exec', s.lab.sites[0].ns],
    timeoutMs: 60_000,
  });
  type Row = { id: string; status: string; text: string; data?: Record<string, unknown> };
  const checks = (JSON.parse(doctor.stdout) as { checks: Row[] }).checks;
  t.diagnostic(checks.map((c) => `${c.id}:${c.status}: ${c.text}`).join('\n'));
  const of = (id: string): Row => {
    const c = checks.find((x) => x.id === id);
    assert.ok(c !== undefined, `no ${id}: ${JSON.stringify(checks)}`);
    return c;
  };
  assert.equal(doctor.code, 1, doctor.stdout);
  assert.equal(of('signal').status, 'ok');
  assert.equal(of('turn').status, 'warn');
  assert.match(of('turn').text, /^the signal server wss:\/\/203\.0\.113\.1:7450 hands out no TURN server/);
  // Without coturn the server still answers STUN at two ports, so doctor tells the symmetric NAT.
  assert.equal(of('nat').status, 'warn');
  assert.deepEqual(of('nat').data, { mapping: 'varies', destinations: 2 });
  assert.equal(of('path').status, 'fail');
  assert.deepEqual(of('path').data, { ok: false, why: 'symmetric-without-turn' });
  assert.doesNotMatch(doctor.stdout, /#pin|token=/);
});
