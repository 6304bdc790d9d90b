// Benchmark (not a test): the papo signal server and the PeerJS server side by side, each in its
// own process, driven by this process over loopback with the `ws` client.
//   1. idle connections: open N sockets (papo: welcome + join a topic with one other peer;
//      PeerJS: OPEN), then the server's RSS and heap growth per connection after a GC;
//   2. forwarding: P sender/receiver pairs, each with a window of W signals in flight, M signals
//      in all: signals per second, latency p50/p99 and the server's CPU time per signal; then one
//      pair with one in flight (unloaded).
// Usage: npm run build && npm install --prefix /tmp/peerjs-bench peer && ulimit -n 120000 &&
//        node dist/bench/signal-server.js [--idle 10000] [--pairs 50] [--messages 200000]
//        [--window 16] [--peerjs /tmp/peerjs-bench] [--rounds 1] [--profile <dir>] [--rate 0] [--syscalls 1]
//   --syscalls 1 counts the server's system calls per signal (perf stat, kernel tracepoints);
//   --rate R offers R signals per second in all instead of as many as the windows allow;
//   --rounds N runs papo, PeerJS, papo, PeerJS... N times each, so both see the same load on a
//   shared machine; --idle 0 skips the idle phase; --profile writes each server's V8 CPU profile
//   (node --cpu-prof) into <dir>.   (see docs/performance.md)
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i] ?? '', process.argv[i + 1] ?? '');
const IDLE = Number(args.get('--idle') ?? 10_000);
const PAIRS = Number(args.get('--pairs') ?? 50);
const MESSAGES = Number(args.get('--messages') ?? 200_000);
const WINDOW = Number(args.get('--window') ?? 16);
const PEERJS_DIR = args.get('--peerjs') ?? '/tmp/peerjs-bench';
const ROUNDS = Number(args.get('--rounds') ?? 1);
/** Idle sockets opened from one loopback source address (a multiple of the batch of 250). */
const SOCKETS_PER_SOURCE = 20_000;
const PROFILE_DIR = args.get('--profile');
/**
 * Signals per second offered in all during the loaded phase (0: as fast as the window lets the
 * pairs go). At a rate both servers keep up with, they do the same work per second, so the server
 * CPU per signal compares the code, not which server the driving process let run more often.
 */
const RATE = Number(args.get('--rate') ?? 0);
/**
 * `--syscalls 1`: count the server's system calls over the loaded phase with `perf stat` on
 * kernel tracepoints (Debian's linux-perf; no hardware counters needed). A count per signal is a
 * property of the code and the load, not of the CPU that runs it.
 */
const SYSCALLS = args.get('--syscalls') === '1';
if (SYSCALLS && spawnSync('perf', ['--version']).error !== undefined) {
  process.stderr.write('--syscalls 1 needs perf (Debian: apt-get install linux-perf)\n');
  process.exit(2);
}
const SYSCALL_EVENTS = {
  all: 'raw_syscalls:sys_enter',
  writev: 'syscalls:sys_enter_writev',
  read: 'syscalls:sys_enter_read',
  epoll: 'syscalls:sys_enter_epoll_pwait',
  futex: 'syscalls:sys_enter_futex',
} as const;
type SyscallCounts = Record<keyof typeof SYSCALL_EVENTS, number>;

/** Starts counting `pid`'s system calls; the returned function stops and gives the counts. */
async function countSyscalls(pid: number): Promise<() => Promise<SyscallCounts>> {
  const perf = spawn(
    'perf',
    ['stat', '-x', ',', '-e', Object.values(SYSCALL_EVENTS).join(','), '-p', String(pid)],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let out = '';
  perf.stderr?.on('data', (d) => (out += String(d)));
  const exited = new Promise<void>((resolve, reject) => {
    perf.once('error', reject);
    perf.once('exit', () => resolve());
  });
  await new Promise((r) => setTimeout(r, 500)); // perf attaches to the running process
  return async () => {
    perf.kill('SIGINT');
    await exited;
    const counts = {} as SyscallCounts;
    for (const [key, event] of Object.entries(SYSCALL_EVENTS)) {
      const line = out.split('\n').find((l) => l.split(',')[2] === event);
      const n = Number(line?.split(',')[0]);
      if (!Number.isFinite(n)) throw new Error(`perf stat gave no count for ${event}:\n${out}`);
      counts[key as keyof SyscallCounts] = n;
    }
    return counts;
  };
}
const PAYLOAD = randomBytes(384).toString('base64'); // ~ a sealed ICE candidate / small SDP chunk
const TARGET = fileURLToPath(new URL('./signal-server-target.js', import.meta.url));

type Kind = 'papo' | 'peerjs';

interface Target {
  child: ChildProcess;
  port: number;
  mem(): Promise<{ rss: number; heapUsed: number }>;
  /** CPU time (user + system) the server process has used so far, in microseconds. */
  cpu(): Promise<number>;
}

async function startTarget(kind: Kind): Promise<Target> {
  const profile = PROFILE_DIR === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR];
  const child = spawn(process.execPath, [...profile, '--expose-gc', TARGET, kind, PEERJS_DIR], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  lines.on('line', (l) => {
    queue.push(l);
    wake?.();
  });
  const nextLine = async (): Promise<string> => {
    while (queue.length === 0) await new Promise<void>((r) => (wake = r));
    return queue.shift() as string;
  };
  const port = Number((await nextLine()).split(' ')[1]);
  return {
    child,
    port,
    async mem() {
      child.stdin?.write('mem\n');
      return JSON.parse(await nextLine()) as { rss: number; heapUsed: number };
    },
    async cpu() {
      child.stdin?.write('cpu\n');
      return (JSON.parse(await nextLine()) as { cpuMicros: number }).cpuMicros;
    },
  };
}

const hex = () => randomBytes(32).toString('hex');

/** One client socket of either kind, ready to send to another by id. */
interface Endpoint {
  ws: WebSocket;
  id: string;
  send(to: string, data: string): void;
  /** The `data` of an incoming forwarded signal, or undefined for anything else. */
  dataOf(raw: string): string | undefined;
}

function connect(kind: Kind, port: number, topic: string, localAddress?: string): Promise<Endpoint> {
  const id = hex();
  return new Promise((resolve, reject) => {
    const url =
      kind === 'papo'
        ? `ws://127.0.0.1:${port}/v1/ws`
        : `ws://127.0.0.1:${port}/peerjs?key=peerjs&id=${id}&token=${randomBytes(8).toString('hex')}`;
    const ws = new WebSocket(url, localAddress === undefined ? {} : { localAddress });
    ws.once('error', reject);
    const endpoint: Endpoint =
      kind === 'papo'
        ? {
            ws,
            id,
            send: (to, data) => ws.send(JSON.stringify({ t: 'signal', topic, to, data })),
            dataOf: (raw) => {
              const m = JSON.parse(raw) as { t: string; data?: string };
              return m.t === 'signal' ? m.data : undefined;
            },
          }
        : {
            ws,
            id,
            send: (to, data) => ws.send(JSON.stringify({ type: 'CANDIDATE', dst: to, payload: { data } })),
            dataOf: (raw) => {
              const m = JSON.parse(raw) as { type: string; payload?: { data: string } };
              return m.type === 'CANDIDATE' ? m.payload?.data : undefined;
            },
          };
    ws.on('message', function first(raw) {
      const m = JSON.parse(String(raw)) as { t?: string; type?: string };
      if (kind === 'papo' && m.t === 'welcome') ws.send(JSON.stringify({ t: 'join', topic, peer: id }));
      else if ((kind === 'papo' && m.t === 'peers') || (kind === 'peerjs' && m.type === 'OPEN')) {
        ws.off('message', first);
        resolve(endpoint);
      }
    });
  });
}

/**
 * Opens `n` idle sockets, SOCKETS_PER_SOURCE from each loopback source address (127.0.0.1, then
 * 127.0.0.2...): one address has only the ephemeral port range (28,232 ports on Debian) towards
 * one server port, so 50,000 members come from several addresses, as from several machines.
 */
async function openMany(kind: Kind, port: number, n: number): Promise<Endpoint[]> {
  const out: Endpoint[] = [];
  const batch = 250;
  for (let i = 0; i < n; i += batch) {
    const topics = Array.from({ length: batch / 2 }, hex);
    const size = Math.min(batch, n - i);
    const source = n > SOCKETS_PER_SOURCE ? `127.0.0.${1 + Math.floor(i / SOCKETS_PER_SOURCE)}` : undefined;
    out.push(
      ...(await Promise.all(
        Array.from({ length: size }, (_, j) => connect(kind, port, topics[j >> 1] as string, source)),
      )),
    );
  }
  return out;
}

async function closeAll(endpoints: Endpoint[]): Promise<void> {
  await Promise.all(
    endpoints.map(
      (e) =>
        new Promise<void>((resolve) => {
          if (e.ws.readyState === WebSocket.CLOSED) return resolve();
          e.ws.once('close', () => resolve());
          e.ws.terminate();
        }),
    ),
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function forward(kind: Kind, port: number, pairs: number, total: number, window: number, rate = 0) {
  const perPair = Math.ceil(total / pairs);
  const latencies: number[] = [];
  const runs: Promise<void>[] = [];
  const endpoints: Endpoint[] = [];
  /** Sends one signal on pair p if its window and its share allow; false when they do not. */
  const senders: (() => boolean)[] = [];
  for (let p = 0; p < pairs; p++) {
    const topic = hex();
    const a = await connect(kind, port, topic);
    const b = await connect(kind, port, topic);
    endpoints.push(a, b);
    let sent = 0;
    let received = 0;
    const sendOne = () => {
      if (sent >= perPair || sent - received >= window) return false;
      sent++;
      a.send(b.id, `${performance.now()}|${PAYLOAD}`);
      return true;
    };
    senders.push(sendOne);
    runs.push(
      new Promise<void>((resolve) => {
        b.ws.on('message', (raw) => {
          const data = b.dataOf(String(raw));
          if (data === undefined) return;
          latencies.push(performance.now() - Number(data.slice(0, data.indexOf('|'))));
          received++;
          if (received === perPair) resolve();
          else if (rate === 0) while (sendOne());
        });
      }),
    );
  }
  // Every pair is connected before the clock starts and the first signal goes out.
  const t0 = performance.now();
  let pacer: NodeJS.Timeout | undefined;
  /** Pacer ticks that left signals due unsent because every window was full, and the most left. */
  let behind = 0;
  let maxBacklog = 0;
  if (rate === 0) for (const send of senders) while (send());
  else {
    // Every 5 ms, the signals due by now, round robin over the pairs. A pair with a full window
    // is skipped: the server is not keeping up, and the signals/s printed fall below the rate.
    let offered = 0;
    let next = 0;
    pacer = setInterval(() => {
      const due = Math.min(perPair * pairs, Math.floor(((performance.now() - t0) * rate) / 1000));
      for (let tried = 0; offered < due && tried < pairs; ) {
        if (senders[next]?.()) {
          offered++;
          tried = 0;
        } else tried++;
        next = (next + 1) % pairs;
      }
      if (offered < due) {
        behind++;
        maxBacklog = Math.max(maxBacklog, due - offered);
      }
    }, 5);
  }
  await Promise.all(runs);
  clearInterval(pacer);
  const seconds = (performance.now() - t0) / 1000;
  await closeAll(endpoints);
  latencies.sort((x, y) => x - y);
  return {
    delivered: latencies.length,
    perSecond: Math.round(latencies.length / seconds),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    behind,
    maxBacklog,
  };
}

async function run(kind: Kind) {
  const target = await startTarget(kind);
  try {
    const base = await target.mem();
    let loaded = base;
    if (IDLE > 0) {
      const idle = await openMany(kind, target.port, IDLE);
      loaded = await target.mem();
      await closeAll(idle);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const stopCounting = SYSCALLS ? await countSyscalls(target.child.pid as number) : undefined;
    const cpu0 = await target.cpu();
    const load = await forward(kind, target.port, PAIRS, MESSAGES, WINDOW, RATE);
    // The server's CPU time per signal delivered under load (connecting the pairs included).
    const cpuPerSignal = ((await target.cpu()) - cpu0) / load.delivered;
    const syscalls = await stopCounting?.();
    const unloaded = await forward(kind, target.port, 1, 5000, 1);
    return {
      kind,
      idle: IDLE,
      rssMB: loaded.rss / 2 ** 20,
      rssPerConnKB: IDLE > 0 ? (loaded.rss - base.rss) / IDLE / 1024 : Number.NaN,
      heapPerConnKB: IDLE > 0 ? (loaded.heapUsed - base.heapUsed) / IDLE / 1024 : Number.NaN,
      load,
      cpuPerSignal,
      syscalls,
      unloaded,
    };
  } finally {
    // The target exits on the end of its stdin (which writes a CPU profile); killed if it lingers.
    const exited = new Promise((r) => target.child.once('exit', r));
    target.child.stdin?.end();
    const timer = setTimeout(() => target.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

const kinds: Kind[] = ['papo'];
if (existsSync(`${PEERJS_DIR}/node_modules/peer`)) kinds.push('peerjs');
else process.stderr.write(`PeerJS not found in ${PEERJS_DIR}: npm install --prefix ${PEERJS_DIR} peer\n`);

const results = [];
for (let round = 0; round < ROUNDS; round++) for (const kind of kinds) results.push(await run(kind));

const f = (n: number, d = 1) => n.toFixed(d);
console.log(`date: ${new Date().toISOString()}`);
console.log(
  `machine: ${cpus()[0]?.model ?? '?'} x${cpus().length}, ${f(totalmem() / 2 ** 30)} GiB, node ${process.version}`,
);
console.log(
  `idle=${IDLE} pairs=${PAIRS} messages=${MESSAGES} window=${WINDOW} payload=${PAYLOAD.length} B base64 rounds=${ROUNDS}` +
    (RATE > 0 ? ` rate=${RATE}/s offered` : ''),
);
console.log(
  '| server | idle conns | RSS with idle conns | RSS / conn | heap / conn | signals/s (loaded) | p50 / p99 loaded | server CPU / signal | p50 / p99 unloaded |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results) {
  console.log(
    `| ${r.kind} | ${r.idle} | ${f(r.rssMB)} MB | ${f(r.rssPerConnKB, 2)} KB | ${f(r.heapPerConnKB, 2)} KB | ` +
      `${r.load.perSecond} | ${f(r.load.p50, 2)} / ${f(r.load.p99, 2)} ms | ${f(r.cpuPerSignal)} µs | ${f(r.unloaded.p50, 3)} / ${f(r.unloaded.p99, 3)} ms |`,
  );
}
if (RATE > 0) {
  // With a window per pair, a server that falls behind the rate shows here first.
  console.log('');
  for (const r of results)
    console.log(
      `${r.kind}: ${r.load.behind} pacer ticks of 5 ms left signals due unsent (windows full), at most ${r.load.maxBacklog} at once`,
    );
}
if (SYSCALLS) {
  console.log('');
  console.log('| server | system calls / signal | writev | read | epoll_pwait | futex |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    const c = r.syscalls as SyscallCounts;
    const per = (n: number) => f(n / r.load.delivered, 2);
    console.log(
      `| ${r.kind} | ${per(c.all)} | ${per(c.writev)} | ${per(c.read)} | ${per(c.epoll)} | ${per(c.futex)} |`,
    );
  }
}
if (ROUNDS > 1 || kinds.length > 1) {
  const range = (xs: number[], d: number) => `${f(Math.min(...xs), d)}-${f(Math.max(...xs), d)}`;
  for (const kind of kinds) {
    const mine = results.filter((r) => r.kind === kind);
    console.log(
      `${kind}: signals/s ${range(
        mine.map((r) => r.load.perSecond),
        0,
      )}, p99 loaded ${range(
        mine.map((r) => r.load.p99),
        1,
      )} ms, server CPU ${range(
        mine.map((r) => r.cpuPerSignal),
        1,
      )} µs / signal`,
    );
  }
  // Round by round: papo's rate over the PeerJS run right after it.
  if (kinds.length > 1) {
    const rates: string[] = [];
    const cpu: string[] = [];
    for (let i = 0; i + 1 < results.length; i += 2) {
      const [p, j] = [results[i], results[i + 1]];
      if (p === undefined || j === undefined) continue;
      rates.push(`${f(p.load.perSecond / j.load.perSecond, 2)}x`);
      cpu.push(`${f(p.cpuPerSignal / j.cpuPerSignal, 2)}x`);
    }
    console.log(
      `papo / PeerJS per round, signals/s: ${rates.join(', ')}; server CPU per signal: ${cpu.join(', ')}`,
    );
  }
}
