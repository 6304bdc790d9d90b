// A real coturn on loopback for the tests that need one (the NAT lab starts its own, in a
// namespace, from docker/turnserver.conf): TURN REST auth (use-auth-secret), a small relay port
// range, optionally a TLS listener. Ready when its TCP listener accepts; close() stops it.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/cli/free-port.js';

export interface Coturn {
  port: number;
  /** The relay address and port range (for counting relay sockets). */
  relay: { ip: string; min: number; max: number };
  /** Relay sockets (allocations' UDP sockets) open on coturn now, from /proc/net/udp. */
  relaySockets(): number;
  /** Set when started with `tls`. */
  tlsPort?: number;
  secret: string;
  close(): Promise<void>;
}

export interface CoturnOptions {
  /** Default: a fresh test-only value. */
  secret?: string;
  /**
   * Address relayed traffic leaves from. 127.0.0.2 (the default) keeps relay candidates apart from
   * the host candidates on 127.0.0.1, so a relay-only link does not find a direct-looking pair.
   */
  relayIp?: string;
  /** Let relays reach loopback peers (members on this machine). Default true. */
  loopbackPeers?: boolean;
  /** PEM files for a TLS listener (`turns:`). */
  tls?: { cert: string; key: string };
  /** One static long-term user instead of TURN REST auth (a company's TURN, as in the README). */
  user?: { name: string; password: string };
  /** coturn's `user-quota`: allocations at once per username (the Docker bundle's is 12). */
  userQuota?: number;
  /** The listening port (default: a free one), for a test that points a member there first. */
  port?: number;
  /** No UDP listener (coturn's --no-udp): TURN over TCP only, as behind a firewall that drops UDP. */
  noUdp?: boolean;
}

export async function startCoturn(options: CoturnOptions = {}): Promise<Coturn> {
  const dir = mkdtempSync(join(tmpdir(), 'papo-coturn-'));
  const secret = options.secret ?? `test-only-${randomBytes(6).toString('hex')}`;
  const port = options.port ?? (await freePort());
  const tlsPort = options.tls ? await freePort() : undefined;
  const relay = 40_000 + Math.floor(Math.random() * 200) * 100;
  const relayIp = options.relayIp ?? '127.0.0.2';
  const args = [
    '-n',
    '--no-cli',
    ...(options.user
      ? ['--lt-cred-mech', `--user=${options.user.name}:${options.user.password}`]
      : ['--use-auth-secret', `--static-auth-secret=${secret}`]),
    ...(options.userQuota !== undefined ? [`--user-quota=${options.userQuota}`] : []),
    '--realm=papo',
    '--listening-ip=127.0.0.1',
    `--listening-port=${port}`,
    `--relay-ip=${relayIp}`,
    `--min-port=${relay}`,
    `--max-port=${relay + 99}`,
    '--no-dtls',
    ...(options.noUdp ? ['--no-udp'] : []),
    ...(options.loopbackPeers === false ? [] : ['--allow-loopback-peers']),
    ...(options.tls
      ? [`--tls-listening-port=${tlsPort}`, `--cert=${options.tls.cert}`, `--pkey=${options.tls.key}`]
      : ['--no-tls']),
    `--userdb=${join(dir, 'turndb')}`,
    `--pidfile=${join(dir, 'turnserver.pid')}`,
    '--log-file=stdout',
    '--simple-log',
  ];
  const child: ChildProcess = spawn('turnserver', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const { close } = await supervised(
    child,
    dir,
    [port, ...(tlsPort !== undefined ? [tlsPort] : [])],
    'turnserver',
  );
  const range = { ip: relayIp, min: relay, max: relay + 99 };
  return {
    port,
    relay: range,
    relaySockets: () => countUdpSockets(range, child.pid),
    ...(tlsPort !== undefined ? { tlsPort } : {}),
    secret,
    close,
  };
}

/**
 * UDP sockets bound to `ip` on a port in [min, max], as /proc/net/udp lists them (IPv4); with
 * `pid`, only those that process holds (another test's coturn may relay from the same block).
 */
export function countUdpSockets(range: { ip: string; min: number; max: number }, pid?: number): number {
  const held = pid === undefined ? undefined : socketInodes(pid);
  // /proc/net/udp shows the address as little-endian hex: 127.0.0.2 is 0200007F.
  const hexIp = range.ip
    .split('.')
    .reverse()
    .map((b) => Number(b).toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
  let count = 0;
  for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    if (local === undefined) continue;
    const [ip, port] = local.split(':');
    const p = Number.parseInt(port ?? '', 16);
    // The socket's inode is the tenth field.
    if (held !== undefined && !held.has(fields[9] ?? '')) continue;
    if (ip === hexIp && p >= range.min && p <= range.max) count += 1;
  }
  return count;
}

/** The inodes of the sockets process `pid` holds open (none once it is gone). */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1] as string);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/**
 * A server process a test started: its output kept, ready once every port in `ports` accepts on
 * 127.0.0.1 (or an Error with the last of its output, the process stopped), and `close` that
 * ends it (SIGTERM, SIGKILL after 3 s) and removes its folder `dir`.
 */
export async function supervised(
  child: ChildProcess,
  dir: string,
  ports: readonly number[],
  what: string,
): Promise<{ log: () => string; close: () => Promise<void> }> {
  let log = '';
  child.stdout?.on('data', (d) => {
    log += d;
  });
  child.stderr?.on('data', (d) => {
    log += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  const ready = async () => {
    for (const port of ports) if (!(await accepts(port))) return false;
    return true;
  };
  while (!(await ready())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`${what} did not start:\n${log.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { log: () => log, close };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
