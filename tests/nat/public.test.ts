// Two machines, one command (issue 26): in the NAT lab, the operator runs only
// `papo signal --public <address>` on the public host (coturn installed: it starts and supervises
// its own), the room's creator runs the `papo new --signal '…'` line it printed as it is, the
// colleague runs only `papo join --name bob < invite`, and no papo variable is set on either member
// (their homes and an English locale are the test's sandbox). Two real `papo mcp` processes then
// exchange a message and a reply, for each kind of network; and with no `turnserver` on the
// server's PATH, the agents' `status` and `send`, `papo status` and `papo doctor` name the missing
// TURN within the bound (NO_PATH_AFTER_MS).
import assert from 'node:assert/strict';
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { NO_PATH_AFTER_MS } from '../../src/client/net/health.js';
import { makeTempDir } from '../support/files.js';
import { exchange, linkOf, type Member, startMember, waitLinked, waitPath } from '../support/members.js';
import { cleanEnv, inviteIn, PAPO_BIN, runPapo } from '../support/papo.js';
import { waitFor } from '../support/wait.js';
import { coturnSkipReason, createNatLab, labSkipReason, type NatLab, type SiteOptions } from './lab.js';

const skip = labSkipReason() ?? coturnSkipReason();
if (skip) console.log(`# SKIP papo signal --public in the NAT lab: ${skip}`);

/** A PATH with node and ip (the lab runs commands with `ip netns exec`) only: no turnserver. */
function pathWithoutCoturn(dir: string): string {
  const bin = join(dir, 'bin-without-coturn');
  mkdirSync(bin, { recursive: true });
  symlinkSync(process.execPath, join(bin, 'node'));
  const ip = spawnSync('sh', ['-c', 'command -v ip'], { encoding: 'utf8' }).stdout.trim();
  symlinkSync(ip, join(bin, 'ip'));
  return bin;
}

interface PublicRoom {
  lab: NatLab;
  signal: ChildProcess;
  /** What papo signal printed on stdout: the creator's command line. */
  line: string;
  ana: Member;
  bob: Member;
  homes: [string, string];
}

/**
 * The lab, `papo signal --public <the public host's address>` in it, and the room made as the
 * operator's line says: ana runs the printed line in her namespace, bob joins in his with the
 * invite on stdin. Both papo mcp started; everything ends with the test.
 */
async function publicRoom(
  t: TestContext,
  sites: [SiteOptions, SiteOptions],
  coturn = true,
): Promise<PublicRoom> {
  const lab = await createNatLab({ sites });
  t.after(() => lab.close());
  const dir = makeTempDir('papo-public-lab-');
  const state = join(dir, 'operator');
  const signal = lab.spawn(
    lab.publicNs,
    process.execPath,
    [PAPO_BIN, 'signal', '--public', lab.publicIp, '--state', state],
    { env: { PATH: coturn ? (process.env.PATH ?? '') : pathWithoutCoturn(dir), LANG: 'C' } },
  );
  let out = '';
  let err = '';
  signal.stdout?.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  signal.stderr?.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  const line = await waitFor(
    'papo signal --public to print the creator’s line',
    () => /^papo new .*$/m.exec(out)?.[0] ?? '',
    {
      timeoutMs: 30_000,
      last: () => `stdout: ${out}\nstderr: ${err}`,
    },
  );
  t.diagnostic(
    `operator: ${err
      .split('\n')
      .filter((l) => /WARNING|turn:|listening/.test(l))
      .join(' | ')}`,
  );

  const homes: [string, string] = [join(dir, 'ana'), join(dir, 'bob')];
  const env = (home: string, user: string) => cleanEnv({ HOME: home, PAPO_HOME: home, USER: user });
  // The creator runs the printed line as it is (its one argument is quoted for a shell).
  const args = [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '').slice(1);
  const made = await runPapo(args, {
    env: env(homes[0], 'ana'),
    wrap: ['ip', 'netns', 'exec', lab.sites[0].ns],
  });
  assert.equal(made.code, 0, made.stderr);
  const invite = inviteIn(made.stdout);
  const joined = await runPapo(['join', '--name', 'bob'], {
    env: env(homes[1], 'bob'),
    input: `${invite}\n`,
    wrap: ['ip', 'netns', 'exec', lab.sites[1].ns],
    timeoutMs: 30_000,
  });
  assert.equal(joined.code, 0, joined.stderr);
  // papo join asked the server at once, through bob's NAT, with the pin and the token.
  assert.match(joined.stdout, /accepts this room's token/);

  const members: Member[] = [];
  t.after(async () => {
    await Promise.all(members.map((m) => m.kill()));
  });
  // No papo variable: the members take their STUN and TURN servers from the welcome.
  for (const [i, name] of (['ana', 'bob'] as const).entries()) {
    members.push(
      await startMember(name, homes[i] as string, {
        ns: lab.sites[i]?.ns as string,
        env: { USER: name, PAPO_ICE_SERVERS: undefined },
      }),
    );
  }
  return { lab, signal, line, ana: members[0] as Member, bob: members[1] as Member, homes };
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
  const checks = (JSON.parse(doctor.stdout) as { checks: { id: string; status: string; text: string }[] })
    .checks;
  t.diagnostic(checks.map((c) => `${c.id}:${c.status}: ${c.text}`).join('\n'));
  const turn = checks.find((c) => c.id === 'turn');
  assert.ok(turn !== undefined && turn.status !== 'ok', JSON.stringify(checks));
  assert.match(turn.text, /no TURN/i);
});
