// A NAT lab made of Linux network namespaces, built and torn down by the test that uses it.
//
//   <p>-pub   the "internet": bridge br0 with 203.0.113.1/24 (TEST-NET-3); the signal server and
//             coturn listen here
//   <p>-r1    NAT router of site 1: wan 203.0.113.11/24 on the bridge, lan 10.1.0.1/24
//   <p>-h1    the member of site 1: eth0 10.1.0.2/24, default route via 10.1.0.1
//   <p>-r2 / <p>-h2   the same for site 2 with 203.0.113.12 and 10.2.0.0/24
//
// Optional parts (issue 40):
//   oneToOne  a cloud VM behind 1:1 NAT: <p>-r0 with wan 203.0.113.20 on the bridge and lan
//             10.0.0.1/24, <p>-srv with only 10.0.0.10/24 (default via 10.0.0.1); the router
//             DNATs 203.0.113.20 to 10.0.0.10 and SNATs 10.0.0.10 to 203.0.113.20, on wan only
//             (no hairpin: many NATs have none, and papo must not need it)
//   vpn       a VPN-like link between the two member hosts: a veth pair vpn0 with 100.64.0.1/10
//             on h1 and 100.64.0.2/10 on h2 (the CGNAT range Tailscale uses), on interfaces of
//             their own beside eth0
//
// The private ranges are not routed on the public segment, exactly as on the internet: the only
// way between the sites goes through the routers' NAT (or through TURN in the public segment).
// NAT kinds: 'eim' = plain MASQUERADE (Linux keeps the source port: endpoint-independent mapping,
// address-and-port-dependent filtering); 'symmetric' = MASQUERADE --random-fully (a fresh random
// port for every new 5-tuple, so every destination sees another mapped port). The self-test in
// lab.test.ts checks both behaviours instead of trusting this comment.
//
// Every lab has a unique prefix `papolab-<pid>-<n>`; `close()` kills every process in its
// namespaces and deletes them, and `removeStaleLabs()` deletes labs whose creating process is gone
// (a crashed earlier run). Interfaces are created directly inside their namespaces (`ip -n`), so
// nothing is ever named in the root namespace and parallel labs cannot collide.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export type NatKind = 'eim' | 'symmetric';

export interface SiteOptions {
  nat: NatKind;
  /** Drop every forwarded UDP packet on this site's router (a network that allows only TCP out). */
  blockUdp?: boolean;
}

export interface Site {
  index: 1 | 2;
  /** Namespace of the member host. */
  ns: string;
  /** Namespace of the NAT router. */
  routerNs: string;
  privateIp: string;
  /** The router's address on the public segment: what the world sees as this site. */
  publicIp: string;
  nat: NatKind;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CoturnOptions {
  /** coturn configuration file to start from (docker/turnserver.conf); its addresses are overridden. */
  configFile?: string;
  secret: string;
  realm?: string;
  /** Listening port for UDP and TCP (default 3478). */
  port?: number;
  minRelayPort?: number;
  maxRelayPort?: number;
  /** Extra command-line options. */
  extraArgs?: string[];
}

export interface Coturn {
  host: string;
  port: number;
  realm: string;
  secret: string;
  process: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

/** A server host behind 1:1 NAT (LabOptions.oneToOne). */
export interface OneToOne {
  /** Namespace of the server host, which has only `privateIp`. */
  ns: string;
  routerNs: string;
  privateIp: string;
  /** What the world reaches it as (DNAT to privateIp). */
  publicIp: string;
}

export interface LabOptions {
  sites: [SiteOptions, SiteOptions];
  oneToOne?: boolean;
  vpn?: boolean;
}

export interface NatLab {
  prefix: string;
  /** The server host behind 1:1 NAT, when asked for. */
  oneToOne: OneToOne | undefined;
  /** The VPN addresses of h1 and h2, when asked for. */
  vpn: [string, string] | undefined;
  publicNs: string;
  /** Address of the public segment's own host (signal server, coturn). */
  publicIp: string;
  sites: [Site, Site];
  /** A directory removed by close(). */
  dir: string;
  /** Starts a long-lived process inside a namespace; close() kills it. */
  spawn(ns: string, command: string, args: string[], options?: { env?: NodeJS.ProcessEnv }): ChildProcess;
  /** Runs a command inside a namespace to completion. */
  run(ns: string, command: string, args: string[], timeoutMs?: number): Promise<RunResult>;
  /** Runs a node ES module script (given as text) inside a namespace; resolves with its output. */
  node(ns: string, script: string, args?: string[], timeoutMs?: number): Promise<RunResult>;
  /** Waits until a TCP port accepts connections, probing from inside `fromNs`. */
  waitTcp(fromNs: string, host: string, port: number, timeoutMs?: number): Promise<void>;
  startCoturn(options: CoturnOptions): Promise<Coturn>;
  /** Drops (or restores) all UDP forwarded by a site's router. */
  setUdpBlocked(site: Site, blocked: boolean): Promise<void>;
  /** Cuts (or restores) a site from the public segment: every packet through its router dropped. */
  setSiteOffline(site: Site, offline: boolean): Promise<void>;
  close(): Promise<void>;
}

const LAB_PREFIX = 'papolab-';
const PUBLIC_IP = '203.0.113.1';
let counter = 0;

/** Why the lab cannot run here, or null when it can (root and `ip netns` available). */
export function labSkipReason(): string | null {
  if (process.platform !== 'linux') return 'the NAT lab needs Linux network namespaces';
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    return 'the NAT lab needs root (ip netns, iptables); run it as root, as .ci/run does';
  }
  for (const tool of ['ip', 'iptables']) {
    const r = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
    if (r.status !== 0) return `the NAT lab needs ${tool} (iproute2 / iptables), not found on PATH`;
  }
  const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  if (list.status !== 0) return `ip netns is not available here: ${list.stderr.trim()}`;
  // A namespace can be listed but not created in some containers: try for real.
  const probe = `${LAB_PREFIX}${process.pid}-probe`;
  const add = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (add.status !== 0) return `cannot create a network namespace here: ${add.stderr.trim()}`;
  spawnSync('ip', ['netns', 'del', probe]);
  return null;
}

/** Is `coturn` installed? */
export function coturnSkipReason(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v turnserver'], { encoding: 'utf8' });
  return r.status === 0 ? null : 'coturn (turnserver) is not installed';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function listNamespaces(): string[] {
  const r = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  if (r.status !== 0) return [];
  return r.stdout
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name.startsWith(LAB_PREFIX));
}

function killNamespaceProcesses(ns: string): void {
  const r = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' });
  for (const pid of r.stdout.split('\n').map(Number)) {
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

function deleteNamespace(ns: string): void {
  killNamespaceProcesses(ns);
  spawnSync('ip', ['netns', 'del', ns]);
}

/** Deletes the namespaces (and kills the processes) of labs whose creating process has died. */
export function removeStaleLabs(): string[] {
  const removed: string[] = [];
  for (const ns of listNamespaces()) {
    const pid = Number(ns.slice(LAB_PREFIX.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && alive(pid) && pid !== 1) continue;
    deleteNamespace(ns);
    removed.push(ns);
  }
  return removed;
}

async function ip(args: string[]): Promise<void> {
  try {
    await execFileAsync('ip', args);
  } catch (err) {
    const e = err as { stderr?: string };
    throw new Error(`ip ${args.join(' ')} failed: ${e.stderr?.trim() ?? String(err)}`);
  }
}

async function inNs(ns: string, command: string, args: string[]): Promise<void> {
  try {
    await execFileAsync('ip', ['netns', 'exec', ns, command, ...args]);
  } catch (err) {
    const e = err as { stderr?: string };
    throw new Error(`[${ns}] ${command} ${args.join(' ')} failed: ${e.stderr?.trim() ?? String(err)}`);
  }
}

function natRule(kind: NatKind): string[] {
  const rule = ['-t', 'nat', '-A', 'POSTROUTING', '-o', 'wan', '-j', 'MASQUERADE'];
  return kind === 'symmetric' ? [...rule, '--random-fully'] : rule;
}

/** Builds the lab. On any failure while building, what was built is removed before the error. */
export async function createNatLab(options: LabOptions): Promise<NatLab> {
  removeStaleLabs();
  const prefix = `${LAB_PREFIX}${process.pid}-${++counter}`;
  const publicNs = `${prefix}-pub`;
  const created: string[] = [];
  const children = new Set<ChildProcess>();
  const dir = mkdtempSync(join(tmpdir(), 'papo-natlab-'));
  const sites = options.sites.map((o, i) => {
    const index = (i + 1) as 1 | 2;
    return {
      index,
      ns: `${prefix}-h${index}`,
      routerNs: `${prefix}-r${index}`,
      privateIp: `10.${index}.0.2`,
      publicIp: `203.0.113.${10 + index}`,
      nat: o.nat,
    } satisfies Site;
  }) as [Site, Site];
  const oneToOne: OneToOne | undefined = options.oneToOne
    ? { ns: `${prefix}-srv`, routerNs: `${prefix}-r0`, privateIp: '10.0.0.10', publicIp: '203.0.113.20' }
    : undefined;
  const vpn: [string, string] | undefined = options.vpn ? ['100.64.0.1', '100.64.0.2'] : undefined;

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    const exits: Promise<unknown>[] = [];
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        exits.push(new Promise((resolve) => child.once('exit', resolve)));
        child.kill('SIGKILL');
      }
    }
    for (const ns of created) deleteNamespace(ns);
    // Reap them, so that no zombie outlives the lab (bounded: a child in D state must not hang us).
    await Promise.race([Promise.all(exits), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const extra = oneToOne === undefined ? [] : [oneToOne.routerNs, oneToOne.ns];
    for (const ns of [publicNs, ...sites.flatMap((s) => [s.routerNs, s.ns]), ...extra]) {
      await ip(['netns', 'add', ns]);
      created.push(ns);
      await ip(['-n', ns, 'link', 'set', 'lo', 'up']);
    }
    await ip(['-n', publicNs, 'link', 'add', 'br0', 'type', 'bridge']);
    await ip(['-n', publicNs, 'addr', 'add', `${PUBLIC_IP}/24`, 'dev', 'br0']);
    await ip(['-n', publicNs, 'link', 'set', 'br0', 'up']);
    for (const [i, site] of sites.entries()) {
      const opts = options.sites[i] as SiteOptions;
      const port = `port${site.index}`;
      // wan side: router <-> bridge port in the public namespace
      await ip([
        '-n',
        site.routerNs,
        'link',
        'add',
        'wan',
        'type',
        'veth',
        'peer',
        'name',
        port,
        'netns',
        publicNs,
      ]);
      await ip(['-n', publicNs, 'link', 'set', port, 'master', 'br0']);
      await ip(['-n', publicNs, 'link', 'set', port, 'up']);
      await ip(['-n', site.routerNs, 'addr', 'add', `${site.publicIp}/24`, 'dev', 'wan']);
      await ip(['-n', site.routerNs, 'link', 'set', 'wan', 'up']);
      // lan side: router <-> host
      await ip([
        '-n',
        site.routerNs,
        'link',
        'add',
        'lan',
        'type',
        'veth',
        'peer',
        'name',
        'eth0',
        'netns',
        site.ns,
      ]);
      await ip(['-n', site.routerNs, 'addr', 'add', `10.${site.index}.0.1/24`, 'dev', 'lan']);
      await ip(['-n', site.routerNs, 'link', 'set', 'lan', 'up']);
      await ip(['-n', site.ns, 'addr', 'add', `${site.privateIp}/24`, 'dev', 'eth0']);
      await ip(['-n', site.ns, 'link', 'set', 'eth0', 'up']);
      await ip(['-n', site.ns, 'route', 'add', 'default', 'via', `10.${site.index}.0.1`]);
      await inNs(site.routerNs, 'sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
      await inNs(site.routerNs, 'iptables', natRule(opts.nat));
      // The router itself serves nothing on its public side. Dropping what is addressed to it also
      // matters for hole punching: a peer's probe that arrives before our own first packet would
      // otherwise leave a conntrack entry for the same 5-tuple, and MASQUERADE would then map our
      // outgoing packet to another port (a "clash"), which no endpoint-independent NAT does.
      // A dropped packet's conntrack entry is never confirmed, so nothing is left behind.
      await inNs(site.routerNs, 'iptables', ['-A', 'INPUT', '-i', 'wan', '-j', 'DROP']);
      if (opts.blockUdp) await inNs(site.routerNs, 'iptables', ['-A', 'FORWARD', '-p', 'udp', '-j', 'DROP']);
    }
    if (oneToOne !== undefined) await buildOneToOne(publicNs, oneToOne);
    if (vpn !== undefined) {
      const [h1, h2] = sites;
      await ip(['-n', h1.ns, 'link', 'add', 'vpn0', 'type', 'veth', 'peer', 'name', 'vpn0', 'netns', h2.ns]);
      for (const [host, address] of [
        [h1.ns, vpn[0]],
        [h2.ns, vpn[1]],
      ] as const) {
        await ip(['-n', host, 'addr', 'add', `${address}/10`, 'dev', 'vpn0']);
        await ip(['-n', host, 'link', 'set', 'vpn0', 'up']);
      }
    }
  } catch (err) {
    await close();
    throw err;
  }

  const spawnIn = (
    ns: string,
    command: string,
    args: string[],
    opts: { env?: NodeJS.ProcessEnv } = {},
  ): ChildProcess => {
    const child = spawn('ip', ['netns', 'exec', ns, command, ...args], {
      env: opts.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };

  const run = (ns: string, command: string, args: string[], timeoutMs = 10_000): Promise<RunResult> =>
    new Promise((resolve) => {
      const child = spawnIn(ns, command, args);
      let stdout = '';
      let stderr = '';
      child.stdout?.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
      });
      child.stderr?.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });

  const node = (ns: string, script: string, args: string[] = [], timeoutMs = 10_000): Promise<RunResult> =>
    run(ns, process.execPath, ['--input-type=module', '-e', script, '--', ...args], timeoutMs);

  const lab: NatLab = {
    prefix,
    oneToOne,
    vpn,
    publicNs,
    publicIp: PUBLIC_IP,
    sites,
    dir,
    spawn: spawnIn,
    run,
    node,
    async waitTcp(fromNs, host, port, timeoutMs = 10_000) {
      const script = `
        import { connect } from 'node:net';
        const [host, port, budget] = process.argv.slice(1);
        const end = Date.now() + Number(budget);
        const once = () => new Promise((ok) => {
          const s = connect(Number(port), host);
          s.once('connect', () => { s.destroy(); ok(true); });
          s.once('error', () => ok(false));
        });
        while (Date.now() < end) {
          if (await once()) process.exit(0);
          await new Promise((r) => setTimeout(r, 100));
        }
        process.exit(1);`;
      const r = await node(fromNs, script, [host, String(port), String(timeoutMs)], timeoutMs + 2000);
      if (r.code !== 0) throw new Error(`nothing answers on ${host}:${port} from ${fromNs} ${r.stderr}`);
    },
    async startCoturn(o) {
      const port = o.port ?? 3478;
      const realm = o.realm ?? 'papo.test';
      const logFile = join(dir, `coturn-${port}.log`);
      const args = [
        // (never -n: it means "ignore the configuration file")
        ...(o.configFile ? ['-c', o.configFile] : ['-c', writeEmptyConfig(dir)]),
        // The lab's internet is TEST-NET-3 (203.0.113.0/24), which docker/turnserver.conf denies
        // as a documentation range: let relays reach it here (an allowed range wins over a denied
        // one in coturn), and nothing else that the file denies.
        ...(o.configFile ? ['--allowed-peer-ip', '203.0.113.0-203.0.113.255'] : []),
        '--listening-ip',
        PUBLIC_IP,
        '--relay-ip',
        PUBLIC_IP,
        '--listening-port',
        String(port),
        '--min-port',
        String(o.minRelayPort ?? 49160),
        '--max-port',
        String(o.maxRelayPort ?? 49200),
        '--use-auth-secret',
        '--static-auth-secret',
        o.secret,
        '--realm',
        realm,
        '--no-cli',
        '--no-tls',
        '--no-dtls',
        '--pidfile',
        join(dir, `coturn-${port}.pid`),
        '--log-file',
        logFile,
        '--simple-log',
        ...(o.extraArgs ?? []),
      ];
      const child = spawnIn(publicNs, 'turnserver', args);
      let out = '';
      child.stdout?.setEncoding('utf8').on('data', (c: string) => {
        out += c;
      });
      child.stderr?.setEncoding('utf8').on('data', (c: string) => {
        out += c;
      });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      // coturn opens TCP and UDP together; TCP accepting means it is up.
      await lab.waitTcp(publicNs, PUBLIC_IP, port);
      return {
        host: PUBLIC_IP,
        port,
        realm,
        secret: o.secret,
        process: child,
        log: () => out + readQuiet(logFile),
        async stop() {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGKILL');
            await exited;
          }
        },
      };
    },
    async setUdpBlocked(site, blocked) {
      const args = ['FORWARD', '-p', 'udp', '-j', 'DROP'];
      await inNs(site.routerNs, 'iptables', [blocked ? '-I' : '-D', ...args]);
    },
    async setSiteOffline(site, offline) {
      await inNs(site.routerNs, 'iptables', [offline ? '-I' : '-D', 'FORWARD', '-j', 'DROP']);
    },
    close,
  };
  return lab;
}

/** The 1:1 NAT router and the server host behind it (LabOptions.oneToOne). */
async function buildOneToOne(publicNs: string, o: OneToOne): Promise<void> {
  await ip([
    '-n',
    o.routerNs,
    'link',
    'add',
    'wan',
    'type',
    'veth',
    'peer',
    'name',
    'port0',
    'netns',
    publicNs,
  ]);
  await ip(['-n', publicNs, 'link', 'set', 'port0', 'master', 'br0']);
  await ip(['-n', publicNs, 'link', 'set', 'port0', 'up']);
  await ip(['-n', o.routerNs, 'addr', 'add', `${o.publicIp}/24`, 'dev', 'wan']);
  await ip(['-n', o.routerNs, 'link', 'set', 'wan', 'up']);
  await ip(['-n', o.routerNs, 'link', 'add', 'lan', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', o.ns]);
  await ip(['-n', o.routerNs, 'addr', 'add', '10.0.0.1/24', 'dev', 'lan']);
  await ip(['-n', o.routerNs, 'link', 'set', 'lan', 'up']);
  await ip(['-n', o.ns, 'addr', 'add', `${o.privateIp}/24`, 'dev', 'eth0']);
  await ip(['-n', o.ns, 'link', 'set', 'eth0', 'up']);
  await ip(['-n', o.ns, 'route', 'add', 'default', 'via', '10.0.0.1']);
  await inNs(o.routerNs, 'sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
  const nat = ['-t', 'nat', '-A'];
  await inNs(o.routerNs, 'iptables', [
    ...nat,
    'PREROUTING',
    '-i',
    'wan',
    '-d',
    o.publicIp,
    '-j',
    'DNAT',
    '--to-destination',
    o.privateIp,
  ]);
  await inNs(o.routerNs, 'iptables', [
    ...nat,
    'POSTROUTING',
    '-o',
    'wan',
    '-s',
    o.privateIp,
    '-j',
    'SNAT',
    '--to-source',
    o.publicIp,
  ]);
}

function writeEmptyConfig(dir: string): string {
  // Without -c coturn reads /etc/turnserver.conf; the lab wants only its own options.
  const path = join(dir, 'empty-turnserver.conf');
  writeFileSync(path, '# options come from the command line\n');
  return path;
}

function readQuiet(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The compiled probe script (tests/nat/probe.ts), run inside namespaces. */
export const PROBE = fileURLToPath(new URL('./probe.js', import.meta.url));

/** Runs a one-shot probe inside `ns` and parses its JSON line. */
export async function runProbe(
  lab: NatLab,
  ns: string,
  args: string[],
  timeoutMs = 15_000,
): Promise<unknown> {
  const r = await lab.run(ns, process.execPath, [PROBE, ...args], timeoutMs);
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.code !== 0 || line === '')
    throw new Error(`probe ${args[0]} in ${ns} failed (${r.code}): ${r.stderr}`);
  return JSON.parse(line);
}

/** Starts a long-running probe inside `ns` and waits for its "ready" line. */
export async function startProbe(lab: NatLab, ns: string, args: string[]): Promise<ChildProcess> {
  const child = lab.spawn(ns, process.execPath, [PROBE, ...args]);
  await new Promise<void>((resolve, reject) => {
    let text = '';
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      text += c;
      if (text.includes('"ready"')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`probe ${args[0]} exited with ${code}: ${err}`)));
  });
  return child;
}
