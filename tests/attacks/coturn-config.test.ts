// The Docker bundle's coturn, run for real outside Docker: docker/coturn-entrypoint.sh starts
// /usr/bin/turnserver with docker/turnserver.conf exactly as the bundle does (only the listening
// and relay addresses and ports are given on the command line, on loopback), and a small TURN
// client (tests/nat/stun.ts) asks it for what an attacker with a valid credential would:
// - a TCP relay (RFC 6062), refused; a UDP relay over a TCP connection, papo's TURN over TCP, kept;
// - CreatePermission for one address of every denied range, IPv4 and IPv6, refused with 403, and
//   for public addresses granted (nothing is sent to them: a permission needs no traffic);
// - the host's own addresses, refused once named in PAPO_TURN_DENIED_PEERS;
// - more allocations than user-quota for one member, refused with 486.
// A control coturn started from the same file without the deny list and without no-tcp-relay
// grants what the shipped one refuses, so each refusal comes from the file, not from coturn's
// defaults. The entrypoint is checked too: the secret (with shell syntax in it) written as it is to
// a 0600 file, on no command line and in no environment of the coturn process, and bad values
// refused before coturn starts.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/cli/free-port.js';
import { coturnSkipReason } from '../nat/lab.js';
import { StunClient, StunError, turnRestCredential } from '../nat/stun.js';
import { supervised } from '../support/coturn.js';

const SHIPPED_CONF = fileURLToPath(new URL('../../../docker/turnserver.conf', import.meta.url));
const ENTRYPOINT = fileURLToPath(new URL('../../../docker/coturn-entrypoint.sh', import.meta.url));
const skip = coturnSkipReason();
if (skip) console.log(`# SKIP coturn configuration: ${skip}`);

/** One address inside each range of the shipped deny list (kept equal to the file's lines below). */
const DENIED_V4: Record<string, string> = {
  '0.0.0.1-0.255.255.255': '0.1.2.3',
  '10.0.0.0-10.255.255.255': '10.20.30.40',
  '100.64.0.0-100.127.255.255': '100.100.100.100',
  '127.0.0.0-127.255.255.255': '127.0.0.53',
  '169.254.0.0-169.254.255.255': '169.254.169.254',
  '172.16.0.0-172.31.255.255': '172.17.0.1',
  '192.0.0.0-192.0.0.255': '192.0.0.170',
  '192.0.2.0-192.0.2.255': '192.0.2.7',
  '192.88.99.0-192.88.99.255': '192.88.99.1',
  '192.168.0.0-192.168.255.255': '192.168.1.1',
  '198.18.0.0-198.19.255.255': '198.19.255.254',
  '198.51.100.0-198.51.100.255': '198.51.100.7',
  '203.0.113.0-203.0.113.255': '203.0.113.7',
  '224.0.0.0-255.255.255.255': '239.255.255.250',
};
const DENIED_V6: Record<string, string> = {
  '::1-::ffff:ffff': '::1',
  '::ffff:0.0.0.0-::ffff:255.255.255.255': '::ffff:10.0.0.1',
  '64:ff9b::-64:ff9b::ffff:ffff': '64:ff9b::a9fe:a9fe',
  '64:ff9b:1::-64:ff9b:1:ffff:ffff:ffff:ffff:ffff': '64:ff9b:1::a00:1',
  '100::-100::ffff:ffff:ffff:ffff': '100::1',
  '2001::-2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff': '2001:0:4136:e378::1',
  '2001:db8::-2001:db8:ffff:ffff:ffff:ffff:ffff:ffff': '2001:db8::7',
  '2002::-2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff': '2002:c0a8:101::1',
  '3fff::-3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff': '3fff::1',
  '5f00::-5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff': '5f00::1',
  'fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff': 'fd00::2',
  'fe80::-febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff': 'fe80::1',
  'fec0::-feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff': 'fec0::1',
  'ff00::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff': 'ff02::1',
};
/** Also refused, by coturn itself: the unspecified addresses (no range may start at them). */
const UNSPECIFIED = ['0.0.0.0', '::'];
/** Public addresses: granted. */
const PUBLIC_V4 = ['8.8.8.8', '1.1.1.1'];
const PUBLIC_V6 = ['2001:4860:4860::8888', '2606:4700:4700::1111'];
/** "This host's public addresses" in the test, given to PAPO_TURN_DENIED_PEERS. */
const HOST_V4 = '8.8.4.4';
const HOST_V6 = '2001:4860:4860::8844';
/**
 * What coturn 4.6.1 refuses with any configuration here: loopback, 0.0.0.0/8, and multicast
 * (no-multicast-peers stays in the control).
 */
const COTURN_OWN = new Set(['0.1.2.3', '127.0.0.53', '239.255.255.250', '::1', 'ff02::1', ...UNSPECIFIED]);

interface BundleCoturn {
  port: number;
  pid: number;
  dir: string;
  secret: string;
  log(): string;
  close(): Promise<void>;
}

/** Runs docker/coturn-entrypoint.sh, which execs turnserver, on loopback ports of its own. */
async function startBundleCoturn(conf: string, env: Record<string, string>): Promise<BundleCoturn> {
  const dir = mkdtempSync(join(tmpdir(), 'papo-bundle-coturn-'));
  const port = await freePort();
  const relay = 41_000 + Math.floor(Math.random() * 80) * 100;
  const secret = env.PAPO_TURN_SECRET ?? `test-only-${randomBytes(8).toString('hex')}`;
  const child: ChildProcess = spawn(
    'sh',
    [
      ENTRYPOINT,
      '--listening-ip=127.0.0.1',
      '--listening-ip=::1',
      `--listening-port=${port}`,
      '--relay-ip=127.0.0.1',
      '--relay-ip=::1',
      `--min-port=${relay}`,
      `--max-port=${relay + 99}`,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        PAPO_COTURN_CONF: conf,
        PAPO_COTURN_DIR: dir,
        ...env,
        PAPO_TURN_SECRET: secret,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const { log, close } = await supervised(child, dir, [port], 'coturn');
  return { port, pid: child.pid as number, dir, secret, log, close };
}

/** CreatePermission for each peer on one allocation: "ok" or the error code. */
async function permissions(
  coturn: BundleCoturn,
  family: 4 | 6,
  peers: string[],
): Promise<Record<string, string | number>> {
  const client = await StunClient.udp({ address: '127.0.0.1', port: coturn.port });
  try {
    const cred = turnRestCredential(coturn.secret, `perm${family}`);
    const { relayed } = await client.allocate(cred.username, cred.password, { family });
    assert.equal(relayed.address.includes(':'), family === 6, `an IPv${family} relay`);
    const out: Record<string, string | number> = {};
    for (const peer of peers) {
      try {
        await client.createPermission(peer);
        out[peer] = 'ok';
      } catch (err) {
        if (!(err instanceof StunError)) throw err;
        out[peer] = err.code;
      }
    }
    return out;
  } finally {
    client.close();
  }
}

function deniedLines(conf: string): string[] {
  return readFileSync(conf, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('denied-peer-ip='))
    .map((l) => l.slice('denied-peer-ip='.length));
}

describe('the bundle coturn (docker/turnserver.conf through docker/coturn-entrypoint.sh)', {
  skip: skip ?? false,
}, () => {
  let shipped: BundleCoturn;
  let control: BundleCoturn;
  let scratch: string;
  const marker = join(tmpdir(), `papo-eval-marker-${process.pid}-${randomBytes(4).toString('hex')}`);
  // Shell syntax of every kind: the image's own entrypoint would have run it through eval.
  const secret = `test-only $(touch ${marker}) \`touch ${marker}\` "dq" 'sq' \\ #=;|&${randomBytes(4).toString('hex')}`;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'papo-coturn-conf-'));
    // The control: the same file without the deny list and without no-tcp-relay.
    const controlConf = join(scratch, 'control.conf');
    writeFileSync(
      controlConf,
      readFileSync(SHIPPED_CONF, 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('denied-peer-ip=') && l !== 'no-tcp-relay')
        .join('\n'),
    );
    shipped = await startBundleCoturn(SHIPPED_CONF, {
      PAPO_TURN_SECRET: secret,
      PAPO_TURN_DENIED_PEERS: `${HOST_V4}, ${HOST_V6}`,
    });
    control = await startBundleCoturn(controlConf, {});
  });
  after(async () => {
    await shipped?.close();
    await control?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    rmSync(marker, { force: true });
  });

  test('the test covers every range of the shipped deny list, and only those', () => {
    assert.deepEqual(
      deniedLines(SHIPPED_CONF).sort(),
      [...Object.keys(DENIED_V4), ...Object.keys(DENIED_V6)].sort(),
    );
  });

  test('the secret is written as it is to a 0600 file and is on no command line or environment', async () => {
    // The entrypoint exec'd turnserver: the process we started is coturn itself.
    const cmdline = readFileSync(`/proc/${shipped.pid}/cmdline`, 'utf8').split('\0');
    assert.equal(basename(cmdline[0] ?? ''), 'turnserver');
    const conf = join(shipped.dir, 'papo-turnserver.conf');
    assert.deepEqual(cmdline.slice(1, 3), ['-c', conf]);
    const environ = readFileSync(`/proc/${shipped.pid}/environ`, 'utf8');
    for (const text of [cmdline.join(' '), environ]) {
      assert.ok(!text.includes('test-only'), 'no secret in the arguments or the environment');
      assert.ok(!text.includes('static-auth-secret'));
    }
    assert.equal(statSync(conf).mode & 0o777, 0o600);
    const lines = readFileSync(conf, 'utf8').split('\n');
    assert.deepEqual(
      lines.filter((l) => l.startsWith('static-auth-secret=')),
      [`static-auth-secret=${secret}`],
    );
    assert.ok(lines.includes(`denied-peer-ip=${HOST_V4}`) && lines.includes(`denied-peer-ip=${HOST_V6}`));
    assert.equal(existsSync(marker), false, 'nothing in the secret was run');
    // coturn read the secret literally: a credential minted from it is accepted.
    const client = await StunClient.udp({ address: '127.0.0.1', port: shipped.port });
    try {
      const cred = turnRestCredential(secret, 'literal');
      await client.allocate(cred.username, cred.password);
    } finally {
      client.close();
    }
    // Its SQLite file opened in the entrypoint's folder (the bundle's tmpfs).
    assert.ok(!/Cannot open SQLite/i.test(shipped.log()), shipped.log().slice(-1000));
    assert.match(shipped.log(), /SQLite DB connection success/);
    assert.ok(!shipped.log().includes('test-only'), 'the secret is not in coturn log');
  });

  test("a TCP relay (RFC 6062) is refused; a UDP relay over TCP, papo's TURN over TCP, is not", async () => {
    const outcome = async (coturn: BundleCoturn, relay: 'udp' | 'tcp'): Promise<string | number> => {
      const client = await StunClient.tcp({ address: '127.0.0.1', port: coturn.port });
      try {
        const cred = turnRestCredential(coturn.secret, `tcp-${relay}`);
        await client.allocate(cred.username, cred.password, { relay });
        return 'ok';
      } catch (err) {
        if (err instanceof StunError) return err.code;
        throw err;
      } finally {
        client.close();
      }
    };
    assert.equal(await outcome(shipped, 'tcp'), 442, 'Unsupported Transport Protocol');
    assert.equal(await outcome(shipped, 'udp'), 'ok');
    assert.equal(await outcome(control, 'tcp'), 'ok', 'control: coturn relays TCP without no-tcp-relay');
  });

  for (const family of [4, 6] as const) {
    const denied = Object.values(family === 4 ? DENIED_V4 : DENIED_V6);
    const publics = family === 4 ? PUBLIC_V4 : PUBLIC_V6;
    const host = family === 4 ? HOST_V4 : HOST_V6;
    const unspecified = family === 4 ? '0.0.0.0' : '::';

    test(`CreatePermission: every denied IPv${family} range and this host refused, the public granted`, async () => {
      const r = await permissions(shipped, family, [...denied, unspecified, host, ...publics]);
      const expected = Object.fromEntries([
        ...[...denied, unspecified, host].map((p) => [p, 403]),
        ...publics.map((p) => [p, 'ok']),
      ]);
      assert.deepEqual(r, expected);
    });

    test(`control (IPv${family}): without the deny list coturn grants the same peers`, async () => {
      const r = await permissions(control, family, [...denied, host]);
      const expected = Object.fromEntries([...denied, host].map((p) => [p, COTURN_OWN.has(p) ? 403 : 'ok']));
      assert.deepEqual(r, expected);
    });
  }

  test('one member gets user-quota allocations at once, not one more; another member still gets one', async () => {
    const quota = Number(/^user-quota=(\d+)$/m.exec(readFileSync(SHIPPED_CONF, 'utf8'))?.[1]);
    assert.ok(quota > 0);
    const clients: StunClient[] = [];
    try {
      // One TURN identity per member: the signal server's usernames are <expiry>:<member tag>.
      const cred = turnRestCredential(shipped.secret, 'member-a');
      for (let i = 0; i < quota; i++) {
        const c = await StunClient.udp({ address: '127.0.0.1', port: shipped.port });
        clients.push(c);
        await c.allocate(cred.username, cred.password);
      }
      const over = await StunClient.udp({ address: '127.0.0.1', port: shipped.port });
      clients.push(over);
      await assert.rejects(over.allocate(cred.username, cred.password), (e: unknown) => {
        assert.ok(e instanceof StunError);
        assert.equal(e.code, 486, 'Allocation Quota Reached');
        return true;
      });
      const other = await StunClient.udp({ address: '127.0.0.1', port: shipped.port });
      clients.push(other);
      const b = turnRestCredential(shipped.secret, 'member-b');
      await other.allocate(b.username, b.password);
    } finally {
      for (const c of clients) c.close();
    }
  });
});

describe('docker/coturn-entrypoint.sh refuses bad values before coturn starts', () => {
  let dir: string;
  let bin: string;
  const started = () => existsSync(join(dir, 'started'));

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'papo-entrypoint-'));
    bin = join(dir, 'bin');
    spawnSync('mkdir', [bin]);
    // A stand-in turnserver: records its arguments and the configuration it was given.
    writeFileSync(
      join(bin, 'turnserver'),
      `#!/bin/sh\nprintf '%s\\n' "$@" > "${dir}/started"\ncp "$2" "${dir}/conf-seen"\n`,
    );
    chmodSync(join(bin, 'turnserver'), 0o755);
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function run(env: Record<string, string>): { status: number | null; stderr: string } {
    rmSync(join(dir, 'started'), { force: true });
    const folder = join(dir, 'state');
    rmSync(folder, { recursive: true, force: true });
    spawnSync('mkdir', ['-m', '700', folder]);
    const r = spawnSync('sh', [ENTRYPOINT, '--log-file=stdout'], {
      env: { PATH: `${bin}:/usr/bin:/bin`, PAPO_COTURN_CONF: SHIPPED_CONF, PAPO_COTURN_DIR: folder, ...env },
      encoding: 'utf8',
    });
    return { status: r.status, stderr: r.stderr };
  }
  const good = `test-only-${'ab'.repeat(12)}`;

  test('a good start: turnserver gets -c and the file, with the optional lines', () => {
    const r = run({
      PAPO_TURN_SECRET: good,
      PAPO_TURN_EXTERNAL_IP: '198.51.100.20',
      PAPO_TURN_RELAY_IP: '10.0.0.5',
      PAPO_TURN_REALM: 'example',
      PAPO_TURN_ALLOWED_PEERS: '10.0.0.0-10.255.255.255',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(readFileSync(join(dir, 'started'), 'utf8').trim().split('\n').slice(0, 1), ['-c']);
    const conf = readFileSync(join(dir, 'conf-seen'), 'utf8');
    for (const line of [
      'external-ip=198.51.100.20',
      'relay-ip=10.0.0.5',
      'realm=example',
      'allowed-peer-ip=10.0.0.0-10.255.255.255',
      `static-auth-secret=${good}`,
    ])
      assert.ok(conf.split('\n').includes(line), line);
  });

  const refusals: [string, Record<string, string>, RegExp][] = [
    ['no secret', {}, /PAPO_TURN_SECRET is not set/],
    ['the example secret', { PAPO_TURN_SECRET: 'change-me-to-a-long-random-value' }, /still the example/],
    ['a short secret', { PAPO_TURN_SECRET: 'test-only-x' }, /shorter than 16/],
    ['a secret that adds a line', { PAPO_TURN_SECRET: `${good}\nallow-loopback-peers` }, /printable ASCII/],
    ['a secret with a trailing blank', { PAPO_TURN_SECRET: `${good} ` }, /printable ASCII/],
    [
      'a denied peer that adds a line',
      { PAPO_TURN_SECRET: good, PAPO_TURN_DENIED_PEERS: '198.51.100.9\nallowed-peer-ip=10.0.0.1' },
      /PAPO_TURN_DENIED_PEERS/,
    ],
    [
      'an allowed peer that adds a line',
      { PAPO_TURN_SECRET: good, PAPO_TURN_ALLOWED_PEERS: '10.0.0.1 no-tcp-relay' },
      /PAPO_TURN_ALLOWED_PEERS/,
    ],
    [
      'a CIDR denied peer',
      { PAPO_TURN_SECRET: good, PAPO_TURN_DENIED_PEERS: '198.51.100.0/24' },
      /first-last/,
    ],
    [
      'a two-part external-ip (coturn would allow the private half)',
      { PAPO_TURN_SECRET: good, PAPO_TURN_EXTERNAL_IP: '198.51.100.20/10.0.0.5' },
      /public address only/,
    ],
    [
      'a relay-ip that is no address',
      { PAPO_TURN_SECRET: good, PAPO_TURN_RELAY_IP: 'eth0' },
      /not an address/,
    ],
  ];
  for (const [name, env, message] of refusals) {
    test(`refused: ${name}`, () => {
      const r = run(env);
      assert.equal(r.status, 64, r.stderr);
      assert.match(r.stderr, message);
      assert.equal(started(), false, 'turnserver was not started');
      if (env.PAPO_TURN_SECRET)
        assert.ok(!r.stderr.includes(env.PAPO_TURN_SECRET), 'the secret is not shown');
    });
  }
});
