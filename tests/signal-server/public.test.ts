// `papo signal --public ADDR` as the operator runs it: the built papo binary with a real coturn on
// loopback. The first start makes the state (0700 folder, 0600 files, no secret on any command
// line), prints the room creator's command whose pin is the served key's, requires the token, and
// hands out TURN credentials coturn accepts; SIGTERM and SIGINT leave no coturn and no socket; a
// restart keeps token, key and secret; without turnserver on PATH it warns, and /healthz says so.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { get } from 'node:https';
import { type AddressInfo, createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { mappingBehaviour, probeTurn, stunMappings } from '../../src/client/net/turn-probe.js';
import type { IceServer, ServerMessage } from '../../src/signal-protocol.js';
import { certificatePin } from '../../src/signal-protocol.js';
import { startMcp, waitOnline } from '../member/helpers.js';
import { StunClient, StunError } from '../nat/stun.js';
import { inviteIn, memberEnv, PAPO_BIN, runPapo } from '../support/papo.js';
import { localhostCert } from '../support/tls-cert.js';
import { waitFor } from '../support/wait.js';
import { hex32, TestClient } from './helpers.js';
import { freePort, stop, waitForOutput } from './processes.js';

const root = mkdtempSync(join(tmpdir(), 'papo-public-'));

interface Running {
  child: ChildProcess;
  line: string;
  url: string;
  port: number;
  pin: string;
  token: string;
  stderr: () => string;
  /** The served certificate, to trust it as the tests' TLS clients. */
  ca: Buffer;
  coturnPid: number | undefined;
  turnPort: number;
  turnTlsPort: number;
}

const started: ChildProcess[] = [];
after(async () => {
  for (const child of started) await stopPublic(child);
  // A safety net for a failed test: no coturn of these tests' state folders outlives them.
  for (const pid of coturnsUnder(root)) process.kill(pid, 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** papo signal stopped as an operator stops it (SIGTERM: it stops coturn), SIGKILL after 5 s. */
async function stopPublic(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Running turnserver processes whose configuration is under `dir`. */
function coturnsUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmd[0]?.endsWith('turnserver') && cmd[2]?.startsWith(dir)) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

async function startPublic(
  state: string,
  options: {
    path?: string;
    address?: string;
    tls?: { cert: string; key: string };
    env?: NodeJS.ProcessEnv;
    /** The ports of an earlier start, for a restart members can find again. */
    ports?: { port: number; turnPort: number; turnTlsPort: number };
  } = {},
): Promise<Running> {
  const turnPort = options.ports?.turnPort ?? (await freePort());
  const turnTlsPort = options.ports?.turnTlsPort ?? (await freePort());
  const child = spawn(
    process.execPath,
    [
      PAPO_BIN,
      'signal',
      '--public',
      options.address ?? '127.0.0.1',
      ...(options.tls === undefined ? [] : ['--tls-cert', options.tls.cert, '--tls-key', options.tls.key]),
      '--host',
      '127.0.0.1',
      '--port',
      String(options.ports?.port ?? 0),
      '--turn-port',
      String(turnPort),
      '--turn-tls-port',
      String(turnTlsPort),
      '--state',
      state,
    ],
    {
      env: {
        PATH: options.path ?? process.env.PATH,
        PAPO_SIGNAL_METRICS: 'off',
        PAPO_LANG: 'en',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  started.push(child);
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const m = await waitForOutput(child, /^papo new --signal '(wss:\/\/[^']+)'\n/m, 20_000);
  const line = m[0].trim();
  const address = m[1] as string;
  const url = new URL(address);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const pidMatch = /coturn started \(pid (\d+)/.exec(stderr);
  return {
    child,
    line,
    url: `wss://${url.host}`,
    port: Number(url.port),
    pin: fragment.get('pin') ?? '',
    token: fragment.get('token') ?? '',
    stderr: () => stderr,
    ca: readFileSync(options.tls?.cert ?? join(state, 'cert.pem')),
    coturnPid: pidMatch === null ? undefined : Number(pidMatch[1]),
    turnPort,
    turnTlsPort,
  };
}

/** The pin of the certificate a TLS listener on loopback serves (no chain check: the pin is it). */
function servedPin(port: number): Promise<{ pin: string; cert: X509Certificate }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const cert = socket.getPeerX509Certificate();
      socket.destroy();
      if (cert === undefined) return reject(new Error('no certificate'));
      resolve({ pin: certificatePin(cert.publicKey.export({ type: 'spki', format: 'der' })), cert });
    });
    socket.once('error', reject);
  });
}

function healthz(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).once('error', reject);
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Local ports with a listening TCP socket or a bound UDP socket, from /proc/net. */
function boundPorts(): Set<number> {
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6', '/proc/net/udp', '/proc/net/udp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const row of text.split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      const local = cols[1];
      const st = cols[3];
      if (local === undefined) continue;
      // TCP: 0A is LISTEN; UDP: every bound socket (07 is its "closed" state).
      if (file.includes('tcp') && st !== '0A') continue;
      ports.add(Number.parseInt(local.split(':')[1] ?? '', 16));
    }
  }
  return ports;
}

function alive(pid: number | undefined): boolean {
  return pid !== undefined && existsSync(`/proc/${pid}`);
}

function welcomeOf(m: ServerMessage): IceServer[] {
  assert.equal(m.t, 'welcome');
  return m.t === 'welcome' ? m.iceServers : [];
}

test('first start: the state, the printed line, the token, TURN that coturn accepts; a restart keeps them', async (t) => {
  const state = join(root, 'first', 'signal');
  const run = await startPublic(state);
  t.after(() => stopPublic(run.child));

  // The state: a 0700 folder of 0600 files (coturn's own files included).
  assert.equal(statSync(state).mode & 0o777, 0o700);
  for (const name of readdirSync(state)) {
    // A file SQLite makes and removes while coturn writes its database may be gone by now.
    const st = statSync(join(state, name), { throwIfNoEntry: false });
    if (st !== undefined) assert.equal(st.mode & 0o777, 0o600, `${name} is 0600`);
  }
  const token = readFileSync(join(state, 'token'), 'utf8').trim();
  const secret = readFileSync(join(state, 'turn-secret'), 'utf8').trim();
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(token, secret);

  // The line: `papo new --signal 'wss://ADDR:PORT/#pin=…&token=…'`, its pin the served key's.
  assert.match(
    run.line,
    /^papo new --signal 'wss:\/\/127\.0\.0\.1:\d+\/#pin=sha256\/[A-Za-z0-9_-]{43}&token=[A-Za-z0-9_-]{43}'$/,
  );
  assert.equal(run.token, token);
  const served = await servedPin(run.port);
  assert.equal(served.pin, run.pin);
  assert.ok(served.cert.checkIP('127.0.0.1'), 'the certificate names the address members dial');
  assert.ok(served.cert.verify(served.cert.publicKey), 'self-signed with its own key');
  // coturn's TLS listener serves the same certificate.
  assert.equal((await servedPin(run.turnTlsPort)).pin, run.pin);
  // Neither the token nor the TURN secret is on a command line, nor in coturn's environment.
  assert.ok(alive(run.coturnPid), 'coturn runs');
  for (const pid of [run.coturnPid, run.child.pid]) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    assert.ok(!cmdline.includes(secret) && !cmdline.includes(token), `no secret on ${pid}'s command line`);
  }
  const coturnCmd = readFileSync(`/proc/${run.coturnPid}/cmdline`, 'utf8').split('\0');
  assert.deepEqual(coturnCmd.slice(1, 3), ['-c', join(state, 'turnserver.conf')]);
  const environ = readFileSync(`/proc/${run.coturnPid}/environ`, 'utf8');
  assert.ok(!environ.includes(secret) && !environ.includes(token));

  // The token is required: no welcome without it.
  const refused = await TestClient.open(run.url, { query: `?peer=${hex32()}`, ca: run.ca }).catch(
    (err: Error) => err,
  );
  if (refused instanceof TestClient) {
    const m = await refused.next();
    assert.equal(m.t === 'error' ? m.code : m.t, 'unauthorized');
    await refused.close();
  } else {
    assert.ok(refused instanceof Error);
  }

  // With it: a welcome with coturn's TURN URLs and credentials coturn accepts, UDP and TCP.
  const c = await TestClient.open(run.url, {
    query: `?peer=${hex32()}`,
    headers: { authorization: `Bearer ${token}` },
    ca: run.ca,
  });
  const ice = welcomeOf(await c.next());
  await c.close();
  const turn = ice.find((s) => s.username !== undefined);
  assert.ok(turn !== undefined, 'TURN handed out');
  const urls = [turn.urls].flat();
  assert.deepEqual(urls, [
    `turn:127.0.0.1:${run.turnPort}?transport=udp`,
    `turn:127.0.0.1:${run.turnPort}?transport=tcp`,
    `turns:127.0.0.1:${run.turnTlsPort}?transport=tcp`,
  ]);
  for (const url of urls.slice(0, 2)) {
    const r = await probeTurn(url, turn.username, turn.credential);
    assert.equal(r.outcome, 'allocated', `${url}: ${r.detail ?? ''}`);
  }
  const forged = await probeTurn(urls[0] as string, turn.username, 'not-the-credential');
  assert.equal(forged.outcome, 'refused');

  // Two STUN destinations (coturn's port, the signal port's number): both answer one socket.
  const stun = [ice.find((s) => s.username === undefined)?.urls ?? []].flat();
  assert.deepEqual(stun, [`stun:127.0.0.1:${run.turnPort}`, `stun:127.0.0.1:${run.port}`]);
  const mappings = await stunMappings(
    stun.map((u) => ({ url: u, host: '127.0.0.1', port: Number(u.split(':')[2]) })),
  );
  assert.deepEqual(mappingBehaviour(mappings), { verdict: 'same', destinations: 2 });
  const health = await healthz(run.port);
  assert.equal(health.status, 200);
  assert.match(health.body, /^ok\nturn: coturn running\nstun: stun:127\.0\.0\.1:\d+ stun:127\.0\.0\.1:\d+ /);

  // Restarted: the same line (token, key), the same TURN secret.
  const exited = once(run.child, 'exit');
  run.child.kill('SIGTERM');
  await exited;
  const again = await startPublic(state);
  t.after(() => stopPublic(again.child));
  assert.equal(again.line.replace(/:\d+\/#/, ':PORT/#'), run.line.replace(/:\d+\/#/, ':PORT/#'));
  assert.equal(again.pin, run.pin);
  assert.equal(readFileSync(join(state, 'turn-secret'), 'utf8').trim(), secret);
  assert.match(again.stderr(), /state: \//);
  assert.doesNotMatch(again.stderr(), /state: made/);
});

test('one holder of the token asking for nine TURN identities gets four and holds at most half the relays: a member of another room, from another address, still gets one (ADR 0114)', {
  timeout: 120_000,
}, async (t) => {
  const run = await startPublic(join(root, 'quota', 'signal'));
  t.after(() => stopPublic(run.child));
  const turnOfWelcome = async (localAddress: string) => {
    const c = await TestClient.open(run.url, {
      query: `?peer=${hex32()}`,
      headers: { Authorization: `Bearer ${run.token}` },
      ca: run.ca,
      localAddress,
    });
    try {
      const welcome = await c.next();
      return welcomeOf(welcome).find((s) => s.username !== undefined && String(s.urls).includes('turn:'));
    } finally {
      await c.close();
    }
  };
  const sockets: StunClient[] = [];
  t.after(() => {
    for (const s of sockets) s.close();
  });
  /** Allocations (UDP) with `turn` until coturn refuses one or `most` are held; how many it took. */
  const allocateAll = async (turn: IceServer, localAddress: string, most: number) => {
    let held = 0;
    for (; held < most; held++) {
      const client = await StunClient.udp({ address: '127.0.0.1', port: run.turnPort }, localAddress);
      sockets.push(client);
      try {
        await client.allocate(turn.username as string, turn.credential as string);
      } catch (err) {
        if (err instanceof StunError && err.code === 486) break; // Allocation Quota Reached
        throw err;
      }
    }
    return held;
  };
  // The holder, from 127.0.0.1: made-up identities, each allocating as much as coturn lets it.
  let identities = 0;
  let allocations = 0;
  for (let i = 0; i < 25; i++) {
    const turn = await turnOfWelcome('127.0.0.1');
    if (turn === undefined) continue;
    identities += 1;
    allocations += await allocateAll(turn, '127.0.0.1', 25);
  }
  assert.equal(identities, 20, 'TURN identities per address per window');
  assert.equal(allocations, 20 * 24, "coturn's user-quota per identity: half of its 960 relays");
  // A member of another room, from another address: its welcome has TURN, and coturn allocates.
  const other = await turnOfWelcome('127.0.0.2');
  assert.ok(other !== undefined, 'the other member is given TURN');
  assert.equal(await allocateAll(other, '127.0.0.2', 1), 1, 'the relays were not all taken');
});

test('a room made from the printed line keeps working across a restart: a member started after it links with one that ran through it', {
  timeout: 120_000,
}, async (t) => {
  const state = join(root, 'restart-room', 'signal');
  const first = await startPublic(state, {
    ports: { port: await freePort(), turnPort: await freePort(), turnTlsPort: await freePort() },
  });
  const homes = { ana: join(root, 'restart-room', 'ana'), bob: join(root, 'restart-room', 'bob') };
  // The printed line as the creator runs it; the colleague has only the invite.
  const env = (home: string) => {
    const e = memberEnv({ PAPO_HOME: home });
    delete e.NODE_EXTRA_CA_CERTS;
    delete e.PAPO_SIGNAL_TOKEN;
    return e;
  };
  const made = await runPapo(
    [...first.line.replace(/^papo new --signal '(.*)'$/, 'new --name ana --signal $1').split(' ')],
    {
      env: env(homes.ana),
    },
  );
  assert.equal(made.code, 0, made.stderr);
  const joined = await runPapo(['join', '--name', 'bob'], {
    env: env(homes.bob),
    input: `${inviteIn(made.stdout)}\n`,
  });
  assert.equal(joined.code, 0, joined.stderr);
  assert.match(joined.stdout, /answers and accepts this room's token/);
  const ana = await startMcp(t, homes.ana, env(homes.ana));
  const bob = await startMcp(t, homes.bob, env(homes.bob));
  await waitOnline(ana, 'bob', 30_000);
  await bob.kill();

  // The operator restarts the server (same state, same ports); ana's papo mcp runs through it.
  await stopPublic(first.child);
  const again = await startPublic(state, {
    ports: { port: first.port, turnPort: first.turnPort, turnTlsPort: first.turnTlsPort },
  });
  t.after(() => stopPublic(again.child));
  assert.equal(again.line, first.line);
  // bob starts after the restart, with nothing but what the invite gave him: they link and talk.
  const bob2 = await startMcp(t, homes.bob, env(homes.bob));
  await waitOnline(bob2, 'ana', 40_000);
  await waitOnline(ana, 'bob', 40_000);
  assert.match(await ana.tool('send', { message: 'after the restart' }), /deliver|sent|queued/i);
  await waitFor(
    'bob to receive it',
    async () => (await bob2.tool('wait', { timeout_seconds: 2 })).includes('after the restart'),
    { timeoutMs: 30_000 },
  );
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} stops coturn and leaves no listening socket`, async (t) => {
    const run = await startPublic(join(root, signal, 'signal'));
    t.after(() => stopPublic(run.child));
    const ports = [run.port, run.turnPort, run.turnTlsPort];
    assert.ok(alive(run.coturnPid));
    const c = await TestClient.ready(run.url, {
      headers: { authorization: `Bearer ${run.token}` },
      ca: run.ca,
    });
    const exited = once(run.child, 'exit');
    run.child.kill(signal);
    assert.equal((await c.closed).code, 1001);
    const [code] = await exited;
    assert.equal(code, 0);
    assert.ok(!alive(run.coturnPid), 'coturn has exited');
    for (const port of ports) assert.equal(await accepts(port), false, `nothing accepts on ${port}`);
    const bound = boundPorts();
    for (const port of ports) assert.ok(!bound.has(port), `no socket bound to ${port}`);
  });
}

test('without turnserver on PATH: the warning at start and in /healthz', async (t) => {
  // A PATH with what papo may call but no turnserver.
  const bin = join(root, 'bin-without-coturn');
  mkdirSync(bin, { recursive: true });
  const run = await startPublic(join(root, 'no-coturn', 'signal'), { path: bin });
  t.after(() => stopPublic(run.child));
  assert.match(
    run.stderr(),
    /WARNING: no TURN server: coturn \(turnserver\) is not on PATH\. Members behind a symmetric NAT/,
  );
  assert.match(run.stderr(), /install coturn .* or point at a TURN server with PAPO_TURN_URLS/);
  const health = await healthz(run.port);
  assert.equal(health.status, 200);
  assert.match(health.body, /WARNING: no TURN server/);
  assert.match(health.body, new RegExp(`stun: stun:127\\.0\\.0\\.1:${run.port} `));
  const c = await TestClient.open(run.url, {
    headers: { authorization: `Bearer ${run.token}` },
    ca: run.ca,
  });
  const ice = welcomeOf(await c.next());
  await c.close();
  assert.equal(
    ice.find((s) => s.username !== undefined),
    undefined,
    'no TURN handed out',
  );
});

test('a coturn that dies is started again, and /healthz says whether it runs', async (t) => {
  const run = await startPublic(join(root, 'supervised', 'signal'));
  t.after(() => stopPublic(run.child));
  assert.ok(run.coturnPid !== undefined && alive(run.coturnPid));
  process.kill(run.coturnPid, 'SIGKILL');
  await waitForOutput(run.child, /coturn exited \(SIGKILL\); starting it again in \d\.\d s/);
  await waitForOutput(run.child, /turn: coturn running again/);
  assert.match((await healthz(run.port)).body, /turn: coturn running\n/);
  const pid = Number(readFileSync(join(root, 'supervised', 'signal', 'turnserver.pid'), 'utf8').trim());
  assert.notEqual(pid, run.coturnPid);
  assert.ok(alive(pid));
  const exited = once(run.child, 'exit');
  run.child.kill('SIGTERM');
  await exited;
  assert.ok(!alive(pid), 'the restarted coturn is stopped too');
});

for (const [lang, pattern] of [
  ['en', /only this machine can reach it\. For colleagues on other machines: papo signal --public/],
  ['pt', /só esta máquina o alcança\. Para colegas em outras máquinas: papo signal --public/],
] as const) {
  test(`without --public, a server on loopback says only this machine reaches it (${lang})`, async (t) => {
    const child = spawn(process.execPath, [PAPO_BIN, 'signal', '--host', '127.0.0.1', '--port', '0'], {
      env: { PATH: process.env.PATH, PAPO_SIGNAL_METRICS: 'off', PAPO_LANG: lang },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    t.after(() => stop(child));
    await waitForOutput(child, pattern);
  });
}

test('a TURN port in use stops the start with the port named, and leaves no coturn', async () => {
  const state = join(root, 'port-taken', 'signal');
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
  const port = (holder.address() as AddressInfo).port;
  try {
    const r = await runPapo(
      [
        'signal',
        '--public',
        '127.0.0.1',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--turn-port',
        String(port),
        '--state',
        state,
      ],
      { env: { PATH: process.env.PATH, PAPO_SIGNAL_METRICS: 'off' }, timeoutMs: 20_000 },
    );
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(`the TURN port ${port} is in use on 127\\.0\\.0\\.1 \\(another coturn\\?`),
    );
    assert.equal(r.stdout, '');
    assert.deepEqual(coturnsUnder(state), []);
  } finally {
    holder.close();
  }
});

test('SIGKILL of papo ends its coturn too, within seconds, and frees every port (setpriv --pdeathsig)', {
  skip: existsSync('/usr/bin/setpriv') ? false : 'no util-linux setpriv here',
}, async (t) => {
  const state = join(root, 'killed-9', 'signal');
  const run = await startPublic(state);
  t.after(() => stopPublic(run.child));
  assert.ok(alive(run.coturnPid));
  const ports = [run.port, run.turnPort, run.turnTlsPort];
  const exited = once(run.child, 'exit');
  run.child.kill('SIGKILL');
  await exited;
  await waitFor('coturn gone after papo was killed', () => !alive(run.coturnPid), { timeoutMs: 5000 });
  assert.deepEqual(coturnsUnder(state), []);
  for (const port of ports) assert.equal(await accepts(port), false, `nothing accepts on ${port}`);
  const bound = boundPorts();
  for (const port of ports) assert.ok(!bound.has(port), `no socket bound to ${port}`);
});

test('without setpriv, a coturn left by a papo killed with SIGKILL is stopped by the next start', async (t) => {
  const state = join(root, 'killed', 'signal');
  // A PATH with turnserver and no setpriv (macOS, a system without util-linux's).
  const bin = join(root, 'killed', 'bin');
  mkdirSync(bin, { recursive: true });
  const turnserver = (process.env.PATH ?? '')
    .split(':')
    .map((dir) => join(dir, 'turnserver'))
    .find((f) => existsSync(f));
  assert.ok(turnserver !== undefined, 'turnserver on PATH');
  symlinkSync(turnserver, join(bin, 'turnserver'));
  const run = await startPublic(state, { path: bin });
  t.after(() => stopPublic(run.child));
  const exited = once(run.child, 'exit');
  run.child.kill('SIGKILL');
  await exited;
  assert.ok(alive(run.coturnPid), 'SIGKILL gives papo no time to stop coturn, and nothing ties it to papo');
  const again = await startPublic(state, { path: bin });
  t.after(() => stopPublic(again.child));
  assert.ok(!alive(run.coturnPid), 'the leftover coturn is stopped');
  assert.deepEqual(coturnsUnder(state), [again.coturnPid]);
});

test("with --tls-cert/--tls-key: that certificate is served, by coturn too, and its key's pin printed", async (t) => {
  const dir = join(root, 'given-cert');
  mkdirSync(dir, { recursive: true });
  const tls = localhostCert(dir);
  const state = join(dir, 'signal');
  const run = await startPublic(state, { address: 'localhost', tls });
  t.after(() => stopPublic(run.child));
  assert.match(run.line, /^papo new --signal 'wss:\/\/localhost:\d+\/#pin=sha256\//);
  const own = new X509Certificate(readFileSync(tls.cert));
  assert.equal(run.pin, certificatePin(own.publicKey.export({ type: 'spki', format: 'der' })));
  assert.equal((await servedPin(run.port)).pin, run.pin);
  assert.equal((await servedPin(run.turnTlsPort)).pin, run.pin);
  assert.ok(
    !existsSync(join(state, 'key.pem')) && !existsSync(join(state, 'cert.pem')),
    'no key of its own made',
  );
});

test('with PAPO_TURN_URLS and PAPO_TURN_SECRET: that TURN server is handed out and no coturn started', async (t) => {
  const state = join(root, 'external-turn', 'signal');
  const run = await startPublic(state, {
    env: {
      PAPO_TURN_URLS: 'turn:turn.example.org:3478?transport=udp',
      PAPO_TURN_SECRET: 'an-operator-secret-of-their-own',
    },
  });
  t.after(() => stopPublic(run.child));
  assert.equal(run.coturnPid, undefined);
  assert.deepEqual(coturnsUnder(state), []);
  assert.doesNotMatch(run.stderr(), /WARNING/);
  const c = await TestClient.open(run.url, { headers: { authorization: `Bearer ${run.token}` }, ca: run.ca });
  const ice = welcomeOf(await c.next());
  await c.close();
  assert.deepEqual(ice.find((s) => s.username !== undefined)?.urls, [
    'turn:turn.example.org:3478?transport=udp',
  ]);
  assert.match((await healthz(run.port)).body, /^ok\nturn: the TURN servers of PAPO_TURN_URLS\n/);
});
