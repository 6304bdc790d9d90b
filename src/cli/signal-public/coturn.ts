// coturn started and supervised by `papo signal --public` (ADR 0088), with the Docker bundle's
// hardening (docker/turnserver.conf, ADR 0076): TURN REST credentials only (use-auth-secret), no TCP
// relay, no RFC 5780 second port, the complete deny list of special-purpose ranges, quotas. The
// configuration, secret included, is a 0600 file in the state folder and coturn is started with
// `-c <that file>` alone and an environment without papo's secrets, so no command line or
// /proc/<pid>/environ shows the secret. A coturn that dies is started again with backoff; stop()
// ends it (SIGTERM, SIGKILL after 3 s) and waits for it. A papo killed with SIGKILL cannot stop it,
// so coturn is started through util-linux's setpriv --pdeathsig KILL where there is one (Linux):
// the kernel kills it when papo dies, and its ports are free at once (issue 40). Without setpriv
// the next start stops a coturn left behind (stopLeftover).

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { connect, createServer, isIP } from 'node:net';
import { delimiter, join } from 'node:path';
import { messageOf } from '../../client/errors.js';
import { type Log, type LogTarget, toLog } from '../../client/log.js';
import { Backoff, COTURN_RESTART } from '../../client/net/backoff.js';
import { writeFileDurable } from '../../client/store/durable-file.js';
import { readNoFollowSync } from '../../client/store/no-follow.js';
import { DEFAULTS } from '../../signal-server/config.js';

/**
 * Peers a relay must never reach: every special-purpose range of RFC 6890 and the IANA registries,
 * IPv4 and IPv6, in coturn's first-last form. The same list as docker/turnserver.conf (a test keeps
 * them equal); the reasons for each range, and coturn 4.6.1's unspecified-address quirk, are there.
 */
export const DENIED_PEERS: readonly string[] = [
  '0.0.0.1-0.255.255.255',
  '10.0.0.0-10.255.255.255',
  '100.64.0.0-100.127.255.255',
  '127.0.0.0-127.255.255.255',
  '169.254.0.0-169.254.255.255',
  '172.16.0.0-172.31.255.255',
  '192.0.0.0-192.0.0.255',
  '192.0.2.0-192.0.2.255',
  '192.88.99.0-192.88.99.255',
  '192.168.0.0-192.168.255.255',
  '198.18.0.0-198.19.255.255',
  '198.51.100.0-198.51.100.255',
  '203.0.113.0-203.0.113.255',
  '224.0.0.0-255.255.255.255',
  '::1-::ffff:ffff',
  '::ffff:0.0.0.0-::ffff:255.255.255.255',
  '64:ff9b::-64:ff9b::ffff:ffff',
  '64:ff9b:1::-64:ff9b:1:ffff:ffff:ffff:ffff:ffff',
  '100::-100::ffff:ffff:ffff:ffff',
  '2001::-2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff',
  '2001:db8::-2001:db8:ffff:ffff:ffff:ffff:ffff:ffff',
  '2002::-2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  '3fff::-3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff',
  '5f00::-5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  'fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  'fe80::-febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  'fec0::-feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  'ff00::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
];

/** Allocations at once per TURN identity (a member, ADR 0058): 3 TURN URLs x 8 links. */
export const USER_QUOTA = 24;

/**
 * TURN identities one client address is given credentials for per window, token or not: the
 * signal server's default (ADR 0114).
 */
export const IDENTITIES_PER_ADDRESS = DEFAULTS.turn.perAddress;

/**
 * Allocations at once in all: twice what one address can hold (20 x 24), so that one holder of
 * the token, whatever it asks, holds at most half of the relays and the rest stays for everyone
 * else (ADR 0114). The Docker bundle's 200 would let one address take them all.
 */
export const TOTAL_QUOTA = 2 * IDENTITIES_PER_ADDRESS * USER_QUOTA;

/**
 * coturn's relay ports (UDP): one per allocation and one spare, so coturn answers 486 (quota)
 * before it runs out of ports. The operator opens them (ADR 0112).
 */
export const RELAY_PORTS = { min: 49160, max: 49160 + TOTAL_QUOTA } as const;

/** The bundle's fixed settings (docker/turnserver.conf explains each). */
const HARDENING: readonly string[] = [
  'no-dtls',
  'no-rfc5780',
  'no-stun-backward-compatibility',
  'use-auth-secret',
  'fingerprint',
  'no-tcp-relay',
  `min-port=${RELAY_PORTS.min}`,
  `max-port=${RELAY_PORTS.max}`,
  'no-cli',
  'no-multicast-peers',
  'no-software-attribute',
  'stale-nonce=600',
  `user-quota=${USER_QUOTA}`,
  `total-quota=${TOTAL_QUOTA}`,
  'log-file=stdout',
  'simple-log',
];

export interface CoturnSettings {
  /** The state folder: the configuration, coturn's SQLite file and pid file go there. */
  dir: string;
  secret: string;
  /** The address to listen on; '0.0.0.0' or '::' for every interface. */
  host: string;
  /** UDP and TCP. */
  port: number;
  /** TLS (turns:) with these PEM files, when given. */
  tls: { port: number; certFile: string; keyFile: string } | undefined;
  /**
   * coturn's external-ip: `PUBLIC/PRIVATE` behind 1:1 NAT (relay-addresses.ts, ADR 0112), or the
   * address members reach.
   */
  externalIp: string | undefined;
  /** coturn's relay-ip: the one address relays open on (ADDR, or the private one behind 1:1 NAT). */
  relayIp: string | undefined;
  /** Peers relays may reach although the deny list has them (a LAN or VPN), and more to deny. */
  allowedPeers: readonly string[];
  deniedPeers: readonly string[];
  /**
   * util-linux's setpriv (findSetpriv), when there is one: coturn runs through it with
   * PR_SET_PDEATHSIG, so that it dies with papo.
   */
  setpriv?: string | undefined;
}

export const CONF_FILE = 'turnserver.conf';
const PID_FILE = 'turnserver.pid';

/** The configuration text (with the secret: it goes to a 0600 file only). */
export function coturnConfig(s: CoturnSettings): string {
  const wildcard = s.host === '0.0.0.0' || s.host === '::';
  const lines = [
    '# Written by papo signal --public at each start; edits are replaced (docs/signal-server.md).',
    `listening-port=${s.port}`,
    ...(wildcard ? [] : [`listening-ip=${s.host}`]),
    ...(s.tls === undefined
      ? ['no-tls']
      : [`tls-listening-port=${s.tls.port}`, `cert=${s.tls.certFile}`, `pkey=${s.tls.keyFile}`]),
    ...HARDENING,
    'realm=papo',
    `userdb=${join(s.dir, 'turndb')}`,
    `pidfile=${join(s.dir, PID_FILE)}`,
    `static-auth-secret=${s.secret}`,
    ...(s.relayIp === undefined ? [] : [`relay-ip=${s.relayIp}`]),
    ...(s.externalIp === undefined ? [] : [`external-ip=${s.externalIp}`]),
    ...[...DENIED_PEERS, ...s.deniedPeers].map((p) => `denied-peer-ip=${p}`),
    ...s.allowedPeers.map((p) => `allowed-peer-ip=${p}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** The turnserver binary on PATH, or undefined. */
export function findTurnserver(env: NodeJS.ProcessEnv): string | undefined {
  return findOnPath('turnserver', env);
}

/** An executable `name` on env's PATH, or undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * util-linux's setpriv on env's PATH if it takes --pdeathsig (2.33 and later: an older one would
 * refuse the option and coturn would never start), else undefined. Asked once, with `true`.
 */
export function findSetpriv(env: NodeJS.ProcessEnv): string | undefined {
  const setpriv = findOnPath('setpriv', env);
  if (setpriv === undefined) return undefined;
  const probe = spawnSync(setpriv, ['--pdeathsig', 'KILL', '--', 'true'], {
    env: { PATH: env.PATH ?? '/usr/bin:/bin' },
    stdio: 'ignore',
    timeout: 5000,
  });
  return probe.status === 0 ? setpriv : undefined;
}

/**
 * A coturn left running by a papo that was killed (SIGKILL gives it no time to stop coturn) where
 * there was no setpriv to tie it to papo, or killed in the moment between its fork and setpriv's
 * prctl: its pid file in the state folder names it, and it is ours when its command line holds
 * our configuration file. It is stopped before a new one starts on the same ports.
 */
async function stopLeftover(dir: string, confPath: string): Promise<void> {
  let pid: number;
  try {
    pid = Number((readNoFollowSync(join(dir, PID_FILE)) ?? '').trim());
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 1) return;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmdline.includes(confPath)) return;
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  // Gone once /proc has no such process (its ports are free then).
  for (let i = 0; i < 100 && existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 20));
}

function accepts(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether `port` can be bound on `host` for TCP, and for UDP too when `udp`. */
async function portFree(host: string, port: number, udp: boolean): Promise<boolean> {
  const tcp = await new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
  if (!tcp || !udp) return tcp;
  return new Promise<boolean>((resolve) => {
    const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind(port, host, () => socket.close(() => resolve(true)));
  });
}

/** A run this long counts as working: the next restart starts the schedule over (COTURN_RESTART). */
const STABLE_MS = 60_000;

export class CoturnSupervisor {
  #child: ChildProcess | undefined;
  #stopping = false;
  readonly #backoff = new Backoff(COTURN_RESTART);
  #timer: NodeJS.Timeout | undefined;
  #exited: Promise<void> = Promise.resolve();
  /** Times coturn was started (tests, the log). */
  starts = 0;

  private constructor(
    private readonly binary: string,
    private readonly settings: CoturnSettings,
    private readonly log: Log,
  ) {}

  get confPath(): string {
    return join(this.settings.dir, CONF_FILE);
  }

  /** The running coturn's pid, if one runs. */
  get pid(): number | undefined {
    return this.#child?.exitCode === null && this.#child.signalCode === null ? this.#child.pid : undefined;
  }

  /**
   * Writes the configuration and starts coturn; resolves once its TCP listeners (TLS too) accept. A coturn
   * that exits before that rejects the start with the last of its output.
   */
  static async start(binary: string, settings: CoturnSettings, log: LogTarget): Promise<CoturnSupervisor> {
    const s = new CoturnSupervisor(binary, settings, toLog(log));
    await writeFileDurable(s.confPath, coturnConfig(settings));
    await stopLeftover(settings.dir, s.confPath);
    // coturn that cannot bind a port logs it and runs on without that listener; asked first, the
    // start can say which port and why.
    const ports: [number, boolean][] = [[settings.port, true]];
    if (settings.tls !== undefined) ports.push([settings.tls.port, false]);
    for (const [port, udp] of ports) {
      if (!(await portFree(settings.host, port, udp))) {
        throw new Error(
          `the TURN port ${port} is in use on ${settings.host} (another coturn? Debian starts one: systemctl disable --now coturn; or choose --turn-port/--turn-tls-port)`,
        );
      }
    }
    await s.#spawn(true);
    return s;
  }

  async #spawn(first: boolean): Promise<void> {
    const startedAt = Date.now();
    // Only what coturn needs from the environment: neither the token nor any PAPO_* variable.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    if (process.env.LANG !== undefined) env.LANG = process.env.LANG;
    // coturn creates its SQLite and pid files with the umask it inherits: 077 makes them 0600. The
    // umask is the process's, and spawn forks synchronously, so it is set around that call only.
    const umask = process.umask(0o077);
    // Through setpriv, coturn gets PR_SET_PDEATHSIG (SIGKILL when its parent dies) and then is
    // exec'd in the same process: its pid, pid file and command line are coturn's own. Node forks
    // from its main thread, which lives as long as papo, and the signal survives exec (coturn is
    // not setuid and changes no ids here).
    const [command, args] =
      this.settings.setpriv === undefined
        ? [this.binary, ['-c', this.confPath]]
        : [this.settings.setpriv, ['--pdeathsig', 'KILL', '--', this.binary, '-c', this.confPath]];
    let child: ChildProcess;
    try {
      child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    } finally {
      process.umask(umask);
    }
    this.#child = child;
    this.starts++;
    let tail = '';
    const keep = (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.#exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
    child.once('close', (code, signal) => {
      if (this.#child === child) this.#child = undefined;
      if (this.#stopping) return;
      if (Date.now() - startedAt > STABLE_MS) this.#backoff.reset();
      const wait = this.#backoff.next();
      const last = lastLines(tail);
      this.log(
        `turn: coturn exited (${signal ?? `status ${code}`}); starting it again in ${(wait / 1000).toFixed(1)} s${last === '' ? '' : `; it said: ${last}`}`,
      );
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#spawn(false).catch((err: unknown) => this.log(`turn: ${messageOf(err)}`));
      }, wait);
    });
    const host =
      this.settings.host === '0.0.0.0'
        ? '127.0.0.1'
        : this.settings.host === '::'
          ? '::1'
          : this.settings.host;
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (this.#child !== child) {
        const err = await Promise.race([
          spawnError,
          new Promise<undefined>((r) => setTimeout(r, 0, undefined)),
        ]);
        // At the first start a coturn that cannot run is an error of the start, not restarted.
        if (first) await this.stop();
        throw new Error(
          `coturn did not start${err === undefined ? '' : ` (${err.message})`}: ${lastLines(tail) || 'no output'}`,
        );
      }
      // Every listener, so that the line papo prints means TURN is ready on all the URLs it hands out.
      if (
        (await accepts(this.settings.port, host)) &&
        (this.settings.tls === undefined || (await accepts(this.settings.tls.port, host)))
      )
        break;
      if (Date.now() > deadline) {
        if (first) {
          await this.stop();
          throw new Error(
            `coturn did not listen on port ${this.settings.port} within 10 s: ${lastLines(tail)}`,
          );
        }
        this.log(`turn: coturn started again but does not listen on port ${this.settings.port} yet`);
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!first) this.log('turn: coturn running again');
  }

  /** Stops coturn and any restart that was due; resolves once it has exited. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const child = this.#child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
      await this.#exited;
      clearTimeout(kill);
    }
  }

  /** Starts coturn again now (a renewed certificate: coturn reads its files at start only). */
  async restart(): Promise<void> {
    const child = this.#child;
    if (this.#stopping || child === undefined) return;
    this.#backoff.reset();
    child.kill('SIGTERM');
  }
}

/** coturn's last few lines, on one line (it writes neither the secret nor credentials to its log). */
function lastLines(text: string): string {
  return text
    .trim()
    .split('\n')
    .slice(-3)
    .map((l) => l.trim())
    .join(' | ');
}
