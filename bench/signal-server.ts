// Benchmark (not a test): the papo signal server and the PeerJS server side by side, each in its
// own process, driven by this process over loopback with the `ws` client.
//   1. idle connections: open N sockets (papo: welcome + join a topic with one other peer;
//      PeerJS: OPEN), then the server's RSS and heap growth per connection after a GC;
//   2. forwarding: P sender/receiver pairs, each with a window of W signals in flight, M signals
//      in all: signals per second and latency p50/p99; then one pair with one in flight (unloaded).
// Usage: npm run build && npm install --prefix /tmp/peerjs-bench peer && ulimit -n 20000 &&
//        node dist/bench/signal-server.js [--idle 10000] [--pairs 50] [--messages 200000]
//        [--window 16] [--peerjs /tmp/peerjs-bench]   (see docs/performance.md)
import { type ChildProcess, spawn } from 'node:child_process';
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
const PAYLOAD = randomBytes(384).toString('base64'); // ~ a sealed ICE candidate / small SDP chunk
const TARGET = fileURLToPath(new URL('./signal-server-target.js', import.meta.url));

type Kind = 'papo' | 'peerjs';

interface Target {
  child: ChildProcess;
  port: number;
  mem(): Promise<{ rss: number; heapUsed: number }>;
}

async function startTarget(kind: Kind): Promise<Target> {
  const child = spawn(process.execPath, ['--expose-gc', TARGET, kind, PEERJS_DIR], {
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

function connect(kind: Kind, port: number, topic: string): Promise<Endpoint> {
  const id = hex();
  return new Promise((resolve, reject) => {
    const url =
      kind === 'papo'
        ? `ws://127.0.0.1:${port}/v1/ws`
        : `ws://127.0.0.1:${port}/peerjs?key=peerjs&id=${id}&token=${randomBytes(8).toString('hex')}`;
    const ws = new WebSocket(url);
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

async function openMany(kind: Kind, port: number, n: number): Promise<Endpoint[]> {
  const out: Endpoint[] = [];
  const batch = 250;
  for (let i = 0; i < n; i += batch) {
    const topics = Array.from({ length: batch / 2 }, hex);
    const size = Math.min(batch, n - i);
    out.push(
      ...(await Promise.all(
        Array.from({ length: size }, (_, j) => connect(kind, port, topics[j >> 1] as string)),
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

async function forward(kind: Kind, port: number, pairs: number, total: number, window: number) {
  const perPair = Math.ceil(total / pairs);
  const latencies: number[] = [];
  const runs: Promise<void>[] = [];
  const endpoints: Endpoint[] = [];
  const starters: (() => void)[] = [];
  for (let p = 0; p < pairs; p++) {
    const topic = hex();
    const a = await connect(kind, port, topic);
    const b = await connect(kind, port, topic);
    endpoints.push(a, b);
    runs.push(
      new Promise<void>((resolve) => {
        let sent = 0;
        let received = 0;
        const pump = () => {
          while (sent < perPair && sent - received < window) {
            sent++;
            a.send(b.id, `${performance.now()}|${PAYLOAD}`);
          }
        };
        b.ws.on('message', (raw) => {
          const data = b.dataOf(String(raw));
          if (data === undefined) return;
          latencies.push(performance.now() - Number(data.slice(0, data.indexOf('|'))));
          received++;
          if (received === perPair) resolve();
          else pump();
        });
        starters.push(pump);
      }),
    );
  }
  // Every pair is connected before the clock starts and the first signal goes out.
  const t0 = performance.now();
  for (const start of starters) start();
  await Promise.all(runs);
  const seconds = (performance.now() - t0) / 1000;
  await closeAll(endpoints);
  latencies.sort((x, y) => x - y);
  return {
    perSecond: Math.round(latencies.length / seconds),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function run(kind: Kind) {
  const target = await startTarget(kind);
  try {
    const base = await target.mem();
    const idle = await openMany(kind, target.port, IDLE);
    const loaded = await target.mem();
    await closeAll(idle);
    await new Promise((r) => setTimeout(r, 1000));
    const load = await forward(kind, target.port, PAIRS, MESSAGES, WINDOW);
    const unloaded = await forward(kind, target.port, 1, 5000, 1);
    return {
      kind,
      idle: IDLE,
      rssMB: loaded.rss / 2 ** 20,
      rssPerConnKB: (loaded.rss - base.rss) / IDLE / 1024,
      heapPerConnKB: (loaded.heapUsed - base.heapUsed) / IDLE / 1024,
      load,
      unloaded,
    };
  } finally {
    target.child.stdin?.end();
    target.child.kill('SIGKILL');
  }
}

const kinds: Kind[] = ['papo'];
if (existsSync(`${PEERJS_DIR}/node_modules/peer`)) kinds.push('peerjs');
else process.stderr.write(`PeerJS not found in ${PEERJS_DIR}: npm install --prefix ${PEERJS_DIR} peer\n`);

const results = [];
for (const kind of kinds) results.push(await run(kind));

const f = (n: number, d = 1) => n.toFixed(d);
console.log(`date: ${new Date().toISOString()}`);
console.log(
  `machine: ${cpus()[0]?.model ?? '?'} x${cpus().length}, ${f(totalmem() / 2 ** 30)} GiB, node ${process.version}`,
);
console.log(
  `idle=${IDLE} pairs=${PAIRS} messages=${MESSAGES} window=${WINDOW} payload=${PAYLOAD.length} B base64`,
);
console.log(
  '| server | idle conns | RSS with idle conns | RSS / conn | heap / conn | signals/s (loaded) | p50 / p99 loaded | p50 / p99 unloaded |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results) {
  console.log(
    `| ${r.kind} | ${r.idle} | ${f(r.rssMB)} MB | ${f(r.rssPerConnKB, 2)} KB | ${f(r.heapPerConnKB, 2)} KB | ` +
      `${r.load.perSecond} | ${f(r.load.p50, 2)} / ${f(r.load.p99, 2)} ms | ${f(r.unloaded.p50, 3)} / ${f(r.unloaded.p99, 3)} ms |`,
  );
}
