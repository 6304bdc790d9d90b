// papo doctor tells a server whose TURN ports are closed from a network that blocks UDP (issue 40):
// the rule (diagnoseTurn) on probe results, the exact lines it leads to in English and Portuguese,
// and the built papo against a real `papo signal` and a real coturn that listens on TCP only. The
// case of a closed server on loopback is in doctor.test.ts ("coturn down"); both cases across a
// NAT router and a server firewall are in tests/nat/doctor.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checksFrom, type DoctorFacts, diagnoseTurn } from '../../src/cli/doctor.js';
import type { AllocationResult, BindingResult } from '../../src/client/net/turn-probe.js';
import { startCliSignal, stop } from '../signal-server/processes.js';
import { startCoturn } from '../support/coturn.js';
import { check, doctor, doctorJson, env, profile, remoteFacts } from './doctor-helpers.js';

const HOST = 'signal.example.test';
const udp = `turn:${HOST}:3478?transport=udp`;
const tcp = `turn:${HOST}:3478?transport=tcp`;
const tls = `turns:${HOST}:5349?transport=tcp`;

const silent = (url: string, transport: AllocationResult['transport']): AllocationResult => ({
  url,
  transport,
  outcome: 'unreachable',
  detail: 'no answer within 5 s',
});
const allocated = (url: string, transport: AllocationResult['transport']): AllocationResult => ({
  url,
  transport,
  outcome: 'allocated',
  relayed: '198.51.100.7:49200',
  ms: 40,
  released: true,
});
const stunSilent = (url: string): BindingResult => ({
  url,
  destination: '198.51.100.7:3478',
  error: 'no answer within 3 s',
});
const stunAnswered = (url: string): BindingResult => ({
  url,
  destination: '198.51.100.7:3478',
  mapped: '203.0.113.9:40000',
  ms: 3,
});

test('diagnoseTurn: the server answers, its TURN server over UDP and TCP (and TLS) does not — its ports are closed', () => {
  assert.deepEqual(
    diagnoseTurn({
      signalHost: HOST,
      stun: [stunSilent(`stun:${HOST}:3478`), stunSilent(`stun:${HOST}:7450`)],
      turn: [silent(udp, 'udp'), silent(tcp, 'tcp'), silent(tls, 'tls')],
    }),
    {
      kind: 'server-turn-closed',
      host: HOST,
      ports: [
        { port: '3478', protocol: 'udp', use: 'turn' },
        { port: '3478', protocol: 'tcp', use: 'turn' },
        { port: '5349', protocol: 'tcp', use: 'turns' },
        { port: '49160-50120', protocol: 'udp', use: 'relays' },
      ],
    },
  );
  // TCP alone, and a host written in capitals or as an IPv6 literal, are the same host.
  assert.equal(
    diagnoseTurn({
      signalHost: HOST,
      stun: [],
      turn: [silent(`turn:SIGNAL.example.test:3478?transport=tcp`, 'tcp')],
    }).kind,
    'server-turn-closed',
  );
  assert.equal(
    diagnoseTurn({
      signalHost: '2001:db8::1',
      stun: [],
      turn: [silent('turn:[2001:db8::1]:3478?transport=tcp', 'tcp')],
    }).kind,
    'server-turn-closed',
  );
});

test('diagnoseTurn: TURN over TCP allocates and nothing answers over UDP — UDP seems blocked here', () => {
  assert.deepEqual(
    diagnoseTurn({
      signalHost: HOST,
      stun: [stunSilent(udp)],
      turn: [silent(udp, 'udp'), allocated(tcp, 'tcp')],
    }),
    { kind: 'udp-blocked', via: tcp },
  );
  // Only TURN over TLS given, and the STUN Binding to that host unanswered.
  assert.deepEqual(
    diagnoseTurn({
      signalHost: HOST,
      stun: [stunSilent(`stun:${HOST}:3478`)],
      turn: [allocated(tls, 'tls')],
    }),
    { kind: 'udp-blocked', via: tls },
  );
});

test('diagnoseTurn: every other case keeps what doctor said before', () => {
  const none = { kind: 'none' };
  // The signal server did not answer: its host's TCP is no evidence.
  assert.deepEqual(
    diagnoseTurn({ signalHost: undefined, stun: [], turn: [silent(udp, 'udp'), silent(tcp, 'tcp')] }),
    none,
  );
  // Only TURN over UDP was asked: a network that blocks UDP and a closed server look the same.
  assert.deepEqual(
    diagnoseTurn({ signalHost: HOST, stun: [stunSilent(udp)], turn: [silent(udp, 'udp')] }),
    none,
  );
  // The TURN server is another host than the signal server.
  assert.deepEqual(
    diagnoseTurn({
      signalHost: HOST,
      stun: [],
      turn: [
        silent('turn:turn.example.test:3478?transport=udp', 'udp'),
        silent('turn:turn.example.test:3478?transport=tcp', 'tcp'),
      ],
    }),
    none,
  );
  // It answered over TCP with a refusal (credentials): not closed.
  assert.deepEqual(
    diagnoseTurn({
      signalHost: HOST,
      stun: [],
      turn: [
        silent(udp, 'udp'),
        { url: tcp, transport: 'tcp', outcome: 'refused', code: 401, detail: 'Unauthorized' },
      ],
    }),
    none,
  );
  // UDP answered (a STUN Binding, or TURN over UDP): not blocked.
  assert.deepEqual(
    diagnoseTurn({
      signalHost: HOST,
      stun: [stunAnswered(udp)],
      turn: [silent(udp, 'udp'), allocated(tcp, 'tcp')],
    }),
    none,
  );
  assert.deepEqual(
    diagnoseTurn({ signalHost: HOST, stun: [], turn: [allocated(udp, 'udp'), allocated(tcp, 'tcp')] }),
    none,
  );
  // No TURN at all.
  assert.deepEqual(
    diagnoseTurn({ signalHost: HOST, stun: [stunSilent(`stun:${HOST}:3478`)], turn: [] }),
    none,
  );
});

/** A member of a room at wss://${HOST}:7450, its ICE servers (STUN and TURN on it) from the welcome. */
function facts(over: Partial<DoctorFacts>): DoctorFacts {
  return remoteFacts({
    ice: {
      ok: true,
      config: {
        servers: [{ urls: [`stun:${HOST}:3478`, udp, tcp], username: 'u', credential: 'c' }],
        policy: 'all',
        source: 'welcome',
      },
    },
    ...over,
  });
}

const CLOSED_EN = `not your network: ${HOST} answers as a signal server, but its TURN server answers neither over UDP nor over TCP, so its TURN ports are closed to you. Its operator opens 3478/udp and 3478/tcp (TURN), 49160-50120/udp (TURN relays) to that machine (the lines papo signal --public printed) and checks that coturn runs`;
const CLOSED_PT = `não é a sua rede: ${HOST} responde como servidor de sinalização, mas o servidor TURN dele não responde nem por UDP nem por TCP, então as portas TURN dele estão fechadas para você. Quem opera o servidor abre 3478/udp e 3478/tcp (TURN), 49160-50120/udp (relays TURN) para aquela máquina (as linhas que o papo signal --public imprimiu) e confere se o coturn está rodando`;

test("the server's TURN ports closed: STUN, each TURN line and the path point at its operator, in English and Portuguese", () => {
  const f = facts({
    stun: [stunSilent(`stun:${HOST}:3478`), stunSilent(udp)],
    turn: [silent(udp, 'udp'), silent(tcp, 'tcp')],
  });
  const en = checksFrom(f, 'en');
  assert.equal(en.ok, false);
  const of = (id: string) => en.checks.filter((c) => c.id === id);
  assert.deepEqual(
    [...of('stun'), ...of('turn'), ...of('path')].map((c) => [c.id, c.status, c.fix, c.data?.cause]),
    [
      ['stun', 'warn', CLOSED_EN, 'server-turn-closed'],
      ['turn', 'fail', CLOSED_EN, 'server-turn-closed'],
      ['turn', 'fail', CLOSED_EN, 'server-turn-closed'],
      ['path', 'fail', CLOSED_EN, 'server-turn-closed'],
    ],
  );
  // The lines themselves say what was measured, as before.
  assert.equal(of('turn')[0]?.text, `${udp}: no allocation (no answer within 5 s)`);
  assert.deepEqual(of('path')[0]?.data, {
    ok: false,
    why: 'no-stun-without-turn',
    cause: 'server-turn-closed',
  });
  const pt = checksFrom(f, 'pt').checks;
  assert.deepEqual(
    pt.filter((c) => ['stun', 'turn', 'path'].includes(c.id)).map((c) => c.fix),
    [CLOSED_PT, CLOSED_PT, CLOSED_PT, CLOSED_PT],
  );
  // A STUN server elsewhere that did not answer either: the STUN line keeps its own fix.
  const elsewhere = checksFrom(
    facts({
      stun: [stunSilent('stun:stun.example.org:3478')],
      turn: [silent(udp, 'udp'), silent(tcp, 'tcp')],
    }),
    'en',
  ).checks.find((c) => c.id === 'stun');
  assert.equal(
    elsewhere?.fix,
    'UDP may be blocked here: links then need TURN over TCP or TLS (PAPO_ICE_SERVERS for your own TURN, or PAPO_TURN_URLS and PAPO_TURN_SECRET on the signal server)',
  );
  assert.equal(elsewhere?.data?.cause, undefined);
});

const NOTE_EN = `nothing to do: UDP seems blocked on this network (or closed at the server), so links go through TURN over TCP (${tcp} works) and the room works`;
const NOTE_PT = `nada a fazer: o UDP parece bloqueado nesta rede (ou fechado no servidor), então os links passam por TURN via TCP (${tcp} funciona) e a sala funciona`;

test('UDP blocked here, TURN over TCP works: a note on STUN and TURN over UDP, not a failure, in English and Portuguese', () => {
  const f = facts({
    stun: [stunSilent(`stun:${HOST}:3478`), stunSilent(udp)],
    turn: [silent(udp, 'udp'), allocated(tcp, 'tcp')],
  });
  const en = checksFrom(f, 'en');
  assert.equal(en.ok, true);
  assert.equal(en.summary.fail, 0);
  assert.deepEqual(
    en.checks
      .filter((c) => ['stun', 'turn', 'path'].includes(c.id))
      .map((c) => [c.id, c.status, c.fix, c.data?.cause]),
    [
      ['stun', 'warn', NOTE_EN, 'udp-blocked'],
      ['turn', 'warn', NOTE_EN, 'udp-blocked'],
      ['turn', 'ok', undefined, undefined],
      ['path', 'ok', undefined, undefined],
    ],
  );
  const pt = checksFrom(f, 'pt').checks;
  assert.deepEqual(
    pt.filter((c) => c.fix !== undefined && ['stun', 'turn'].includes(c.id)).map((c) => c.fix),
    [NOTE_PT, NOTE_PT],
  );
});

test('the other cases read as before: only TURN over UDP and nothing answers; credentials refused', () => {
  const onlyUdp = checksFrom(facts({ stun: [stunSilent(udp)], turn: [silent(udp, 'udp')] }), 'en').checks;
  assert.equal(
    onlyUdp.find((c) => c.id === 'turn')?.fix,
    'this network may block TURN over UDP to that server: is it running? A turns: URL on port 443 passes most firewalls',
  );
  assert.match(onlyUdp.find((c) => c.id === 'stun')?.fix ?? '', /^UDP may be blocked here: /);
  assert.equal(
    onlyUdp.find((c) => c.id === 'path')?.fix,
    'configure a TURN server that works from here (PAPO_ICE_SERVERS for your own TURN, or PAPO_TURN_URLS and PAPO_TURN_SECRET on the signal server)',
  );
  const refused = checksFrom(
    facts({
      turn: [
        silent(udp, 'udp'),
        { url: tcp, transport: 'tcp', outcome: 'refused', code: 401, detail: 'Unauthorized' },
      ],
    }),
    'en',
  ).checks.filter((c) => c.id === 'turn');
  assert.match(refused[0]?.fix ?? '', /^this network may block TURN over UDP/);
  assert.match(refused[1]?.fix ?? '', /PAPO_TURN_SECRET must equal the TURN server's static-auth-secret/);
});

test('the built papo against a real papo signal and a coturn without UDP: TURN over UDP silent, over TCP allocated, the note; exit 0', {
  timeout: 60_000,
}, async (t) => {
  const turn = await startCoturn({ noUdp: true });
  t.after(() => turn.close());
  const urls = `turn:127.0.0.1:${turn.port}?transport=udp turn:127.0.0.1:${turn.port}?transport=tcp`;
  const s = await startCliSignal({ PAPO_TURN_URLS: urls, PAPO_TURN_SECRET: turn.secret });
  t.after(() => stop(s.child, 'SIGTERM'));
  const home = await profile(t, s.url);
  const { code, report, stdout } = await doctorJson(env(home));
  assert.equal(code, 0, stdout);
  const turns = report.checks.filter((c) => c.id === 'turn');
  assert.deepEqual(
    turns.map((c) => [c.status, c.data?.transport, c.data?.outcome, c.data?.cause]),
    [
      ['warn', 'udp', 'unreachable', 'udp-blocked'],
      ['ok', 'tcp', 'allocated', undefined],
    ],
  );
  const note = `nothing to do: UDP seems blocked on this network (or closed at the server), so links go through TURN over TCP (turn:127.0.0.1:${turn.port}?transport=tcp works) and the room works`;
  assert.equal(turns[0]?.fix, note);
  // On loopback STUN is not needed (skip); the path is relayed.
  assert.equal(check(report, 'stun').status, 'skip');
  assert.deepEqual(check(report, 'path').data, { ok: true, via: 'relay' });
  const plain = await doctor(env(home, { LANG: 'pt_BR.UTF-8' }));
  assert.equal(plain.code, 0, plain.stdout);
  assert.ok(
    plain.stdout.includes(
      `como resolver: nada a fazer: o UDP parece bloqueado nesta rede (ou fechado no servidor), então os links passam por TURN via TCP (turn:127.0.0.1:${turn.port}?transport=tcp funciona) e a sala funciona\n`,
    ),
    plain.stdout,
  );
});
