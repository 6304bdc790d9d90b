// papo doctor (ADR 0072) against real components: the built papo, a real `papo signal` on loopback
// (with and without a token, with TURN credentials), a real coturn with UDP, TCP and TLS listeners,
// the pinned Claude Code when it is installed. The path rule and the NAT's mapping are unit-tested
// at the end (on loopback the mapping never changes).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  checksFrom,
  type DoctorFacts,
  decidePath,
  displayUrl,
  type PathInputs,
  stunDestinations,
  turnTargets,
} from '../../src/cli/doctor.js';
import { freePort } from '../../src/cli/free-port.js';
import { judgeNode } from '../../src/cli/node-support.js';
import { mappingBehaviour } from '../../src/client/net/turn-probe.js';
import { startCliSignal, stop } from '../signal-server/processes.js';
import { type Coturn, startCoturn } from '../support/coturn.js';
import { tempDir } from '../support/files.js';
import { spawnMcp } from '../support/mcp-process.js';
import { localhostCert } from '../support/tls-cert.js';
import { check, doctor, doctorJson, env, profile, remoteFacts, type T } from './doctor-helpers.js';

/** Each test server's metrics listener (ADR 0075: the signal port has no /metrics). */
const metricsUrls = new Map<string, string | undefined>();
/** The node check of the Node running these tests (its own cases are in node-support.test.ts). */
const nodeStatus =
  judgeNode(process.version, new Date().toISOString().slice(0, 10)).kind === 'supported' ? 'ok' : 'warn';

async function signal(t: T, extra: Record<string, string> = {}) {
  const s = await startCliSignal(extra);
  t.after(() => stop(s.child, 'SIGTERM'));
  metricsUrls.set(s.url, s.metricsUrl);
  return s.url;
}

async function metrics(signalUrl: string): Promise<string> {
  const res = await fetch(`${metricsUrls.get(signalUrl)}/metrics`);
  return res.text();
}

/** coturn with UDP, TCP and a TLS listener whose self-signed certificate names localhost. */
async function coturnWithTls(t: T): Promise<Coturn & { cert: string }> {
  const tls = localhostCert(tempDir(t, 'papo-doctor-cert-'));
  const turn = await startCoturn({ tls });
  t.after(() => turn.close());
  return { ...turn, cert: tls.cert };
}

function turnUrls(turn: Coturn): string {
  return [
    `turn:127.0.0.1:${turn.port}?transport=udp`,
    `turn:127.0.0.1:${turn.port}?transport=tcp`,
    `turns:localhost:${turn.tlsPort}`,
  ].join(' ');
}

/** Waits until coturn holds no relay socket (allocations given back), up to `ms`. */
async function relaySocketsGone(turn: Coturn, ms = 3000): Promise<number> {
  const deadline = Date.now() + ms;
  while (turn.relaySockets() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return turn.relaySockets();
}

test('a healthy room with a token and TURN over UDP, TCP and TLS: every check passes, every allocation is given back, nothing secret is printed', {
  timeout: 60_000,
}, async (t) => {
  const turn = await coturnWithTls(t);
  const token = 'doctor-token-not-a-real-one';
  const url = await signal(t, {
    PAPO_SIGNAL_TOKEN: token,
    PAPO_TURN_URLS: turnUrls(turn),
    PAPO_TURN_SECRET: turn.secret,
  });
  const home = await profile(t, url);
  const e = env(home, { PAPO_SIGNAL_TOKEN: `${url}=${token}`, NODE_EXTRA_CA_CERTS: turn.cert });

  const { code, report, stdout, stderr, ms } = await doctorJson(e);
  assert.equal(code, 0, stdout + stderr);
  assert.equal(report.ok, true);
  assert.equal(report.summary.fail, 0);
  assert.equal(stderr, '', 'no progress on stderr with --json');
  assert.deepEqual(
    report.checks.map((c) => `${c.id}:${c.status}`),
    [
      `node:${nodeStatus}`,
      'profile:ok',
      'signal:ok',
      'token:ok',
      'scope:warn',
      'ice:ok',
      'policy:ok',
      'stun:ok',
      'nat:skip',
      'turn:ok',
      'turn:ok',
      'turn:ok',
      'path:ok',
      'channels:ok',
      'session:ok',
    ],
  );
  assert.match(check(report, 'signal').text, new RegExp(`^${url} answered in \\d+ ms$`));
  assert.equal(typeof check(report, 'signal').data?.ms, 'number');
  assert.deepEqual(check(report, 'token').data, { outcome: 'accepted' });
  assert.equal(check(report, 'scope').data?.loopback, true);
  assert.deepEqual(check(report, 'ice').data, {
    source: 'welcome',
    servers: [{ urls: turnUrls(turn).split(' '), credentials: true }],
  });
  const turns = report.checks.filter((c) => c.id === 'turn');
  assert.deepEqual(
    turns.map((c) => [c.data?.transport, c.data?.outcome, c.data?.released]),
    [
      ['udp', 'allocated', true],
      ['tcp', 'allocated', true],
      ['tls', 'allocated', true],
    ],
  );
  for (const c of turns) assert.match(String(c.data?.relayed), /^127\.0\.0\.2:\d+$/);
  // The only STUN destination is the TURN server over UDP: one answer, mapping unknown.
  assert.match(
    check(report, 'stun').text,
    /^seen from 127\.0\.0\.1:\d+ \(turn:127\.0\.0\.1:\d+\?transport=udp, \d+ ms; 1 of 1 answered\)$/,
  );
  assert.deepEqual(check(report, 'path').data, { ok: true, via: 'relay' });
  assert.equal(await relaySocketsGone(turn), 0, 'every allocation is given back');

  // Nothing secret in what doctor prints: not the token, not the TURN secret, not a REST username.
  const text = await doctor(e);
  assert.equal(text.code, 0, text.stdout + text.stderr);
  for (const out of [stdout, text.stdout, text.stderr]) {
    assert.ok(!out.includes(token), 'the signal token is never printed');
    assert.ok(!out.includes(turn.secret), 'the TURN secret is never printed');
    assert.doesNotMatch(out, /\d{10}:[0-9a-f]{10}/, 'no TURN username');
    assert.doesNotMatch(out, /papo1[a-z2-7]{20,}/, 'no invite');
  }
  // The checklist, line by line.
  const lines = text.stdout.split('\n');
  const line = (re: RegExp) =>
    assert.ok(
      lines.some((l) => re.test(l)),
      `no line ${re} in:\n${text.stdout}`,
    );
  line(/^\[ok\] {5}profile {9}default: you are "ana" in room [0-9a-f]{8}$/);
  line(new RegExp(`^\\[ok\\] {5}signal {10}${url} answered in \\d+ ms$`));
  line(/^\[ok\] {5}token {11}accepted$/);
  line(/^\[warn\] {3}room scope {6}ws:\/\/127\.0\.0\.1:\d+ is on this machine only: /);
  line(
    /^ {25}fix: for colleagues elsewhere: papo new --force --name YOUR-NAME --signal wss:\/\/your-signal-server /,
  );
  line(
    /^\[ok\] {5}ICE servers {5}from the signal server: turn:127\.0\.0\.1:\d+\?transport=udp, .* \(with credentials\)$/,
  );
  line(/^\[ok\] {5}ICE policy {6}all: direct and relayed paths$/);
  line(
    /^\[ok\] {5}TURN {12}turn:127\.0\.0\.1:\d+\?transport=udp: allocated 127\.0\.0\.2:\d+ in \d+ ms, given back$/,
  );
  line(
    /^\[ok\] {5}TURN {12}turn:127\.0\.0\.1:\d+\?transport=tcp: allocated 127\.0\.0\.2:\d+ in \d+ ms, given back$/,
  );
  line(/^\[ok\] {5}TURN {12}turns:localhost:\d+: allocated 127\.0\.0\.2:\d+ in \d+ ms, given back$/);
  line(/^\[ok\] {5}path {12}the room can work: a relayed path \(TURN\) works from here$/);
  line(
    nodeStatus === 'ok'
      ? /^13 ok, 1 warning, 0 failures in \d+\.\d s: the room can work from here\.$/
      : /^12 ok, 2 warnings, 0 failures in \d+\.\d s: the room can work from here\.$/,
  );
  line(new RegExp(`^\\[(ok|warn)\\] +node {12}Node\\.js ${process.version.replaceAll('.', '\\.')} `));
  assert.equal(await relaySocketsGone(turn), 0, 'given back again');

  // doctor never joined the room: the signal server holds no topic and no peer.
  const m = await metrics(url);
  assert.match(m, /^papo_signal_topics 0$/m);
  assert.match(m, /^papo_signal_peers 0$/m);
  t.diagnostic(
    `doctor on loopback with 3 TURN allocations: ${ms} ms (process included), ${report.ms} ms of checks`,
  );
});

test("beside the profile's running papo mcp: doctor takes no lock and never shows up in the room", {
  timeout: 60_000,
}, async (t) => {
  const url = await signal(t);
  const home = await profile(t, url);
  const agent = spawnMcp({ home, env: env(home) });
  t.after(() => agent.kill());
  // papo mcp opens the room once a client has said hello.
  await agent.client.initialize('2025-06-18');
  const deadline = Date.now() + 20_000;
  while (!/^papo_signal_peers 1$/m.test(await metrics(url))) {
    assert.ok(Date.now() < deadline, 'papo mcp joined the room');
    await new Promise((r) => setTimeout(r, 100));
  }
  const { code, report, stdout } = await doctorJson(env(home, { PAPO_ICE_SERVERS: '[]' }));
  assert.equal(code, 0, stdout);
  assert.equal(check(report, 'profile').status, 'ok');
  const m = await metrics(url);
  assert.match(m, /^papo_signal_peers 1$/m, 'the agent only');
  assert.match(m, /^papo_signal_topics 1$/m);
  assert.ok(agent.running(), 'papo mcp still runs');
  // Ended here, before the after hooks remove its home (they run in the order they were added).
  await agent.kill();
});

test('signal server down: a failure with the fix for a room on this machine; exit 1', async (t) => {
  const port = await freePort();
  const home = await profile(t, `ws://127.0.0.1:${port}`);
  const { code, report, ms } = await doctorJson(env(home, { PAPO_ICE_SERVERS: '[]' }));
  assert.equal(code, 1);
  assert.equal(report.ok, false);
  const s = check(report, 'signal');
  assert.equal(s.status, 'fail');
  assert.equal(s.data?.outcome, 'unreachable');
  assert.match(s.fix ?? '', /runs inside papo mcp on this machine: open your agent \(or run papo signal\)/);
  assert.equal(check(report, 'token').status, 'skip');
  assert.ok(ms < 10_000, `took ${ms} ms`);

  const text = await doctor(env(home, { PAPO_ICE_SERVERS: '[]' }));
  assert.equal(text.code, 1);
  assert.match(
    text.stdout,
    new RegExp(`^\\[FAIL\\] {3}signal {10}cannot reach ws://127\\.0\\.0\\.1:${port} \\(`, 'm'),
  );
  assert.match(
    text.stdout,
    /^\d+ ok, \d+ warnings?, 1 failure in \d+\.\d s: the room cannot work from here until the failures are fixed\.$/m,
  );
});

test('a wrong token and a missing token: refused, with the fix; the token is never printed', async (t) => {
  const url = await signal(t, { PAPO_SIGNAL_TOKEN: 'the-right-one' });
  const home = await profile(t, url);
  const wrong = await doctorJson(
    env(home, { PAPO_SIGNAL_TOKEN: `${url}=the-wrong-one`, PAPO_ICE_SERVERS: '[]' }),
  );
  assert.equal(wrong.code, 1);
  assert.equal(check(wrong.report, 'signal').status, 'ok', 'reachable: it answered');
  const refused = check(wrong.report, 'token');
  assert.equal(refused.status, 'fail');
  assert.deepEqual(refused.data, { outcome: 'refused' });
  assert.equal(
    refused.fix,
    `check the token for ${url} in PAPO_SIGNAL_TOKEN (it must be the server's own PAPO_SIGNAL_TOKEN)`,
  );
  assert.ok(!wrong.stdout.includes('the-wrong-one') && !wrong.stdout.includes('the-right-one'));

  const none = await doctor(env(home, { PAPO_ICE_SERVERS: '[]' }));
  assert.equal(none.code, 1);
  assert.match(
    none.stdout,
    /^\[FAIL\] {3}token {11}the signal server requires a token, and none is set for it$/m,
  );
  assert.match(none.stdout, new RegExp(`^ {25}fix: set PAPO_SIGNAL_TOKEN=${url}=<token> \\(ask`, 'm'));
});

test("a TURN secret that differs from coturn's: the allocation is refused (401), a failure with the fix", {
  timeout: 60_000,
}, async (t) => {
  const turn = await startCoturn();
  t.after(() => turn.close());
  const url = await signal(t, {
    PAPO_TURN_URLS: `turn:127.0.0.1:${turn.port}?transport=udp`,
    PAPO_TURN_SECRET: 'not-the-secret-coturn-has',
  });
  const home = await profile(t, url);
  const { code, report, stdout } = await doctorJson(env(home));
  assert.equal(code, 1, stdout);
  const c = check(report, 'turn');
  assert.equal(c.status, 'fail');
  assert.equal(c.data?.outcome, 'refused');
  assert.equal(c.data?.code, 401);
  assert.match(c.fix ?? '', /PAPO_TURN_SECRET must equal the TURN server's static-auth-secret/);
  // The room itself meets on this machine: the path is fine, the TURN server is what fails.
  assert.deepEqual(check(report, 'path').data, { ok: true, via: 'this-machine' });
  assert.ok(!stdout.includes('not-the-secret-coturn-has'));
  assert.equal(await relaySocketsGone(turn), 0);
});

test("coturn down (or its ports closed) while the signal server answers: a failure per URL, the fix for the server's operator; exit 1", {
  timeout: 60_000,
}, async (t) => {
  // A real coturn's ports and secret, then coturn stopped: the signal server still hands them out.
  const turn = await startCoturn();
  const urls = `turn:127.0.0.1:${turn.port}?transport=udp turn:127.0.0.1:${turn.port}?transport=tcp`;
  await turn.close();
  const url = await signal(t, { PAPO_TURN_URLS: urls, PAPO_TURN_SECRET: turn.secret });
  const home = await profile(t, url);
  const { code, report, stdout } = await doctorJson(env(home));
  assert.equal(code, 1, stdout);
  const turns = report.checks.filter((c) => c.id === 'turn');
  assert.deepEqual(
    turns.map((c) => [c.status, c.data?.transport, c.data?.outcome]),
    [
      ['fail', 'udp', 'unreachable'],
      ['fail', 'tcp', 'unreachable'],
    ],
  );
  assert.match(turns[0]?.text ?? '', /^turn:127\.0\.0\.1:\d+\?transport=udp: no allocation \(/);
  // The signal server on that host answered, its TURN server did not: not this network's fault.
  const operatorFix = `not your network: 127.0.0.1 answers as a signal server, but its TURN server answers neither over UDP nor over TCP, so its TURN ports are closed to you. Its operator opens ${turn.port}/udp and ${turn.port}/tcp (TURN), 49160-50120/udp (TURN relays) to that machine (the lines papo signal --public printed) and checks that coturn runs`;
  for (const c of turns) {
    assert.equal(c.fix, operatorFix);
    assert.equal(c.data?.cause, 'server-turn-closed');
  }
  const plain = await doctor(env(home), []);
  assert.equal(plain.code, 1);
  assert.match(plain.stdout, /no allocation/);
  assert.ok(plain.stdout.includes(`fix: ${operatorFix}\n`), plain.stdout);
  assert.doesNotMatch(plain.stdout, /may block|UDP may be blocked/);
});

test('PAPO_ICE_POLICY=relay with no TURN server: no path, a failure; an invalid policy is one too', async (t) => {
  const url = await signal(t);
  const home = await profile(t, url);
  const { code, report } = await doctorJson(env(home, { PAPO_ICE_POLICY: 'relay', PAPO_ICE_SERVERS: '[]' }));
  assert.equal(code, 1);
  assert.deepEqual(check(report, 'policy').data, { policy: 'relay' });
  assert.equal(check(report, 'turn').status, 'skip');
  const p = check(report, 'path');
  assert.equal(p.status, 'fail');
  assert.deepEqual(p.data, { ok: false, why: 'relay-without-turn' });
  assert.match(p.fix ?? '', /configure a TURN server .*, or unset PAPO_ICE_POLICY$/);
  // Everything else is fine, so this is the one failure.
  assert.equal(report.summary.fail, 1);

  const bad = await doctorJson(env(home, { PAPO_ICE_POLICY: 'relayed', PAPO_ICE_SERVERS: '[]' }));
  assert.equal(bad.code, 1);
  assert.equal(check(bad.report, 'policy').status, 'fail');
});

test('in Portuguese, and the variables that turn Claude Code’s channels off', async (t) => {
  const port = await freePort();
  const home = await profile(t, `ws://127.0.0.1:${port}`);
  const r = await doctor(
    env(home, {
      LANG: 'pt_BR.UTF-8',
      PAPO_ICE_SERVERS: '[]',
      DISABLE_TELEMETRY: '1',
      DO_NOT_TRACK: '1',
      CLAUDE_CODE_HARBOR_KITE: '0',
    }),
  );
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^\[FALHA\] {2}sinalização {5}não foi possível alcançar ws:\/\/127\.0\.0\.1:\d+ /m);
  assert.match(
    r.stdout,
    /^ {25}como resolver: o servidor de sinalização desta sala roda dentro do papo mcp/m,
  );
  assert.match(
    r.stdout,
    /^\[aviso\] {2}canais {10}DISABLE_TELEMETRY, DO_NOT_TRACK definidas: o Claude Code desliga os canais/m,
  );
  assert.match(
    r.stdout,
    /^ {25}como resolver: remova DISABLE_TELEMETRY DO_NOT_TRACK de onde o Claude Code é iniciado$/m,
  );
  // Claude Code's session messages (ADR 0118): only CLAUDE_CODE_HARBOR_KITE=0 turns them off.
  assert.match(
    r.stdout,
    /^\[aviso\] {2}push {12}CLAUDE_CODE_HARBOR_KITE=0 definida: o Claude Code não dá ao papo as mensagens de sessão, e as mensagens só chegam ao seu agente pelos canais ou quando ele chama wait ou inbox$/m,
  );
  assert.match(
    r.stdout,
    /^ {25}como resolver: remova CLAUDE_CODE_HARBOR_KITE de onde o Claude Code é iniciado$/m,
  );
  assert.match(
    r.stdout,
    /falhas? em \d+\.\d s: a sala não funciona daqui até as falhas serem resolvidas\.$/m,
  );
});

test('no profile: one failure that says how to make one; the other checks still run', async (t) => {
  const home = join(tempDir(t), 'home');
  const { code, report } = await doctorJson(env(home, { PAPO_ICE_SERVERS: '[]' }));
  assert.equal(code, 1);
  const p = check(report, 'profile');
  assert.equal(p.status, 'fail');
  assert.match(p.fix ?? '', /^papo new --name YOUR-NAME, or papo join --name YOUR-NAME with an invite$/);
  assert.ok(report.checks.some((c) => c.id === 'channels'));
});

test('the path rule (ADR 0072)', () => {
  const base: PathInputs = {
    policy: 'all',
    loopback: false,
    stunAnswered: true,
    mapping: 'same',
    turnWorked: false,
  };
  assert.deepEqual(decidePath(base), { ok: true, via: 'direct' });
  assert.deepEqual(decidePath({ ...base, mapping: 'unknown' }), { ok: true, via: 'direct-nat-unknown' });
  assert.deepEqual(decidePath({ ...base, mapping: 'varies' }), { ok: false, why: 'symmetric-without-turn' });
  assert.deepEqual(decidePath({ ...base, mapping: 'varies', turnWorked: true }), { ok: true, via: 'relay' });
  assert.deepEqual(decidePath({ ...base, stunAnswered: false, mapping: 'unknown' }), {
    ok: false,
    why: 'no-stun-without-turn',
  });
  assert.deepEqual(decidePath({ ...base, stunAnswered: false, mapping: 'unknown', loopback: true }), {
    ok: true,
    via: 'this-machine',
  });
  // relay: only a TURN allocation that worked, whatever else holds.
  assert.deepEqual(decidePath({ ...base, policy: 'relay', loopback: true }), {
    ok: false,
    why: 'relay-without-turn',
  });
  assert.deepEqual(decidePath({ ...base, policy: 'relay', turnWorked: true }), { ok: true, via: 'relay' });
});

test("the NAT's mapping: the same towards every destination, or one that changes (symmetric)", () => {
  const r = (destination: string, mapped?: string) => ({
    url: `stun:${destination}`,
    destination,
    ...(mapped ? { mapped } : {}),
  });
  assert.deepEqual(mappingBehaviour([r('1.1.1.1:3478', '9.9.9.9:5000'), r('2.2.2.2:3478', '9.9.9.9:5000')]), {
    verdict: 'same',
    destinations: 2,
  });
  assert.deepEqual(mappingBehaviour([r('1.1.1.1:3478', '9.9.9.9:5000'), r('2.2.2.2:3478', '9.9.9.9:5001')]), {
    verdict: 'varies',
    destinations: 2,
  });
  // One answer (or the same destination twice) cannot tell.
  assert.deepEqual(mappingBehaviour([r('1.1.1.1:3478', '9.9.9.9:5000'), r('2.2.2.2:3478')]), {
    verdict: 'unknown',
    destinations: 1,
  });
  assert.deepEqual(mappingBehaviour([]), { verdict: 'unknown', destinations: 0 });
});

test('what doctor asks and shows: STUN destinations, TURN targets, a URL without its token', () => {
  const servers = [
    { urls: ['stun:s.example:3478', 'stun:s.example:3478'] },
    {
      urls: ['turn:t.example:3478?transport=udp', 'turn:t.example:3478?transport=tcp', 'turns:t.example:443'],
      username: 'u',
      credential: 'c',
    },
  ];
  assert.deepEqual(
    stunDestinations(servers).map((d) => d.url),
    ['stun:s.example:3478', 'turn:t.example:3478?transport=udp'],
  );
  assert.deepEqual(
    turnTargets(servers).map((x) => x.url),
    ['turn:t.example:3478?transport=udp', 'turn:t.example:3478?transport=tcp', 'turns:t.example:443'],
  );
  assert.equal(displayUrl('wss://signal.example/papo?token=abc'), 'wss://signal.example/papo?token=***');
  assert.equal(displayUrl('ws://127.0.0.1:7450'), 'ws://127.0.0.1:7450');
});

const facts = remoteFacts;

test('a signal server that hands out no TURN: a warning with the fix; a direct path papo cannot judge is one too', () => {
  const stun = (destination: string, mapped?: string) => ({
    url: `stun:${destination}`,
    destination,
    ...(mapped ? { mapped, ms: 3 } : { error: 'timeout' }),
  });
  const of = (f: DoctorFacts, id: string) => {
    const c = checksFrom(f, 'en').checks.find((x) => x.id === id);
    assert.ok(c !== undefined, id);
    return c;
  };
  // One STUN destination answered: the NAT's kind is unknown, and no TURN is there to fall back on.
  const one = facts({ stun: [stun('198.51.100.1:7450', '203.0.113.9:40000')] });
  const turn = of(one, 'turn');
  assert.equal(turn.status, 'warn');
  assert.equal(
    turn.text,
    'the signal server wss://signal.example.test:7450 hands out no TURN server: a colleague behind a symmetric NAT, or where UDP is blocked, cannot link with you',
  );
  assert.match(turn.fix ?? '', /^on the server: install coturn \(papo signal --public starts it by itself\)/);
  assert.equal(of(one, 'path').status, 'warn');
  assert.match(of(one, 'path').text, /^a direct path may work \(STUN answered\), but papo cannot tell/);
  assert.equal(checksFrom(one, 'en').ok, true);
  // Two destinations, one mapping: direct is likely; the missing TURN is still said.
  const same = facts({
    stun: [stun('198.51.100.1:7450', '203.0.113.9:40000'), stun('198.51.100.1:3478', '203.0.113.9:40000')],
  });
  assert.deepEqual([of(same, 'path').status, of(same, 'turn').status], ['ok', 'warn']);
  // Two mappings: a symmetric NAT without TURN has no path.
  const varies = facts({
    stun: [stun('198.51.100.1:7450', '203.0.113.9:40000'), stun('198.51.100.1:3478', '203.0.113.9:40001')],
  });
  assert.deepEqual([of(varies, 'nat').status, of(varies, 'path').status], ['warn', 'fail']);
  assert.deepEqual(of(varies, 'path').data, { ok: false, why: 'symmetric-without-turn' });
  // PAPO_ICE_SERVERS chosen by hand, or a room of this machine: nothing to warn about.
  const envIce = facts({
    ice: { ok: true, config: { servers: [{ urls: 'stun:s.example.test' }], policy: 'all', source: 'env' } },
  });
  assert.equal(of(envIce, 'turn').status, 'skip');
  assert.equal(of(facts({ loopback: true }), 'turn').status, 'skip');
  // In Portuguese.
  const pt = checksFrom(one, 'pt').checks.find((x) => x.id === 'turn');
  assert.match(
    pt?.text ?? '',
    /^o servidor de sinalização wss:\/\/signal\.example\.test:7450 não entrega nenhum servidor TURN/,
  );
});

test("the room now, as the running papo mcp sees it (issue 40): ok with who is online to it; its own problems fail doctor with papo status's lines; no check without a papo mcp", () => {
  const ids = (f: DoctorFacts) => checksFrom(f, 'en').checks.map((c) => c.id);
  assert.ok(!ids(facts({})).includes('room'), 'no papo mcp runs: no room check');
  const ok = checksFrom(facts({ room: { online: ['bob'], problems: [] } }), 'en');
  assert.deepEqual(
    ok.checks.filter((c) => c.id === 'room').map((c) => [c.status, c.label, c.text]),
    [['ok', 'room now', "your agent's papo mcp is in the room; online to it: bob"]],
  );
  const before = checksFrom(facts({}), 'en').summary;
  assert.equal(ok.summary.fail, before.fail, 'an ok room adds no failure');
  const problem =
    'warning: bob is on the signal server wss://signal.example.test:7450 (not gone from the room), but no network path between your machines works: no link formed within 12s. …';
  const failing = checksFrom(facts({ room: { online: [], problems: [problem] } }), 'en');
  const room = failing.checks.find((c) => c.id === 'room');
  assert.equal(room?.status, 'fail');
  assert.equal(room?.text, problem);
  assert.equal(
    room?.fix,
    "that is your agent's papo mcp's own view, as papo status shows it: it may run with another environment than this terminal (PAPO_ICE_POLICY, PAPO_ICE_SERVERS, PAPO_SIGNAL_TOKEN); change it where your agent starts, then restart the session",
  );
  assert.equal(failing.summary.fail, before.fail + 1);
  assert.equal(failing.ok, false);
  assert.equal(
    checksFrom(facts({ room: { online: [], problems: [] } }), 'pt').checks.find((c) => c.id === 'room')?.text,
    'o papo mcp do seu agente está na sala; ninguém mais está online para ele agora',
  );
});
