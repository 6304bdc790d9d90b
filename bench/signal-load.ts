// Load on the signal server (not a test): `papo signal` runs as its own process on loopback with
// small limits; this process drives it, bounded in count and time:
//   1. churn: many rooms of 2-3 peers join, signal each other, leave and disconnect, in waves;
//   2. floods past every limit: connections past the per-IP cap, messages past the rate, messages
//      past the size limit, topics past the per-socket cap, peers past the per-topic cap, garbage;
//   3. throughout, a canary room must keep being served and /healthz must answer; the server's RSS
//      is sampled (baseline, peak, after the load) and /metrics must show every kind of refusal.
// Usage: npm run build && node dist/bench/signal-load.js [waves=20] [rooms per wave=100] [server heap MB]
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { freePort } from '../src/cli/free-port.js';

const WAVES = Number(process.argv[2] ?? 20);
const ROOMS = Number(process.argv[3] ?? 100);
// Optional V8 old-space cap for the server, in MB: a leak then ends the server instead of hiding
// in an RSS that V8 simply has not given back.
const HEAP_MB = process.argv[4] !== undefined ? Number(process.argv[4]) : undefined;
const BIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const LIMITS = {
  PAPO_SIGNAL_MAX_CONNECTIONS: '2000',
  PAPO_SIGNAL_MAX_CONNECTIONS_PER_IP: '400',
  PAPO_SIGNAL_RATE: '20',
  PAPO_SIGNAL_BURST: '40',
  PAPO_SIGNAL_MAX_TOPICS_PER_SOCKET: '4',
  PAPO_SIGNAL_MAX_PEERS_PER_TOPIC: '8',
};

const hex = () => randomBytes(32).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

class Client {
  readonly ws: WebSocket;
  readonly got: Record<string, unknown>[] = [];
  closed = false;
  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (d) => this.got.push(JSON.parse(String(d)) as Record<string, unknown>));
    ws.on('close', () => {
      this.closed = true;
    });
    ws.on('error', () => {});
  }
  static open(url: string, timeoutMs = 5000, localAddress?: string): Promise<Client | null> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`${url}/v1/ws`, localAddress ? { localAddress } : {});
      const c = new Client(ws);
      const timer = setTimeout(() => {
        ws.terminate();
        resolve(null);
      }, timeoutMs);
      ws.once('open', () => {
        clearTimeout(timer);
        resolve(c);
      });
      ws.once('close', () => {
        clearTimeout(timer);
        resolve(null);
      });
    });
  }
  send(m: unknown): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(typeof m === 'string' ? m : JSON.stringify(m));
  }
  async next(
    pred: (m: Record<string, unknown>) => boolean,
    timeoutMs = 5000,
  ): Promise<Record<string, unknown> | null> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const i = this.got.findIndex(pred);
      if (i >= 0) return this.got.splice(i, 1)[0] ?? null;
      if (this.closed) return null;
      await sleep(5);
    }
    return null;
  }
  close(): void {
    this.ws.terminate();
  }
}

/** One room: peers join, the first signals every other, each receives; then all leave. */
async function room(url: string, size: number, localAddress?: string): Promise<boolean> {
  const topic = hex();
  const ids = Array.from({ length: size }, hex);
  const clients = (await Promise.all(ids.map(() => Client.open(url, 5000, localAddress)))).filter(
    (c): c is Client => c !== null,
  );
  try {
    if (clients.length < size) return false;
    for (const [i, c] of clients.entries()) c.send({ t: 'join', topic, peer: ids[i] });
    for (const c of clients) if (!(await c.next((m) => m.t === 'peers'))) return false;
    for (let i = 1; i < size; i++)
      (clients[0] as Client).send({ t: 'signal', topic, to: ids[i], data: 'AAAA' });
    for (let i = 1; i < size; i++) {
      if (!(await (clients[i] as Client).next((m) => m.t === 'signal' && m.from === ids[0]))) return false;
    }
    for (const c of clients) c.send({ t: 'leave', topic });
    return true;
  } finally {
    for (const c of clients) c.close();
  }
}

async function metricsText(base: string): Promise<string> {
  return (await fetch(`${base}/metrics`)).text();
}

function refused(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^papo_signal_messages_refused_total\{code="([a-z_]+)"\} (\d+)$/gm)) {
    out[m[1] as string] = Number(m[2]);
  }
  return out;
}

async function main(): Promise<void> {
  const port = await freePort();
  const metricsPort = await freePort();
  const url = `ws://127.0.0.1:${port}`;
  const http = `http://127.0.0.1:${port}`;
  // /metrics is served on its own loopback listener (ADR 0075).
  const metricsHttp = `http://127.0.0.1:${metricsPort}`;
  const heap = HEAP_MB !== undefined ? [`--max-old-space-size=${HEAP_MB}`] : [];
  const server: ChildProcess = spawn(
    process.execPath,
    [...heap, BIN, 'signal', '--host', '127.0.0.1', '--port', String(port)],
    {
      env: { PATH: process.env.PATH, PAPO_SIGNAL_METRICS: `127.0.0.1:${metricsPort}`, ...LIMITS },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  server.stderr?.resume();
  const pid = server.pid as number;
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`${http}/healthz`)).ok) break;
      } catch {
        await sleep(100);
      }
    }
    console.log(
      `signal load: ${WAVES} waves x ${ROOMS} rooms, server heap cap ${HEAP_MB ?? 'none'} MB, limits ${JSON.stringify(LIMITS)}, ${new Date().toISOString()}`,
    );
    const baseline = rssKiB(pid);
    let peak = baseline;
    const sample = () => {
      peak = Math.max(peak, rssKiB(pid));
    };

    // The canary: a room that must keep being served through everything below. It connects from
    // another loopback address (127.0.0.2), as a user elsewhere would: the per-IP cap that the
    // floods below exhaust is 127.0.0.1's.
    let canaryOk = 0;
    let canaryFail = 0;
    let healthFail = 0;
    let stopCanary = false;
    const canary = (async () => {
      while (!stopCanary) {
        if (await room(url, 2, '127.0.0.2')) canaryOk += 1;
        else canaryFail += 1;
        try {
          if (!(await fetch(`${http}/healthz`)).ok) healthFail += 1;
        } catch {
          healthFail += 1;
        }
        sample();
        await sleep(200);
      }
    })();

    // 1. churn
    const t0 = Date.now();
    let roomsOk = 0;
    let roomsFail = 0;
    for (let w = 0; w < WAVES; w++) {
      // At most 400/3 rooms at once stay inside the per-IP cap.
      const results = await Promise.all(Array.from({ length: ROOMS }, (_, i) => room(url, 2 + (i % 2))));
      for (const r of results)
        if (r) roomsOk += 1;
        else roomsFail += 1;
      sample();
      if ((w + 1) % 10 === 0)
        console.log(`  after wave ${w + 1}: RSS ${rssKiB(pid)} KiB, ${roomsOk} rooms served`);
    }
    const churnS = (Date.now() - t0) / 1000;
    await sleep(1500);
    const afterChurn = rssKiB(pid);
    console.log(
      `churn: ${roomsOk} rooms served, ${roomsFail} failed, ${Math.round(roomsOk / churnS)} rooms/s; RSS ${baseline} -> peak ${peak} -> ${afterChurn} KiB`,
    );

    // 2. floods past the limits
    // 2a. connections past the per-IP cap
    const many = await Promise.all(Array.from({ length: 500 }, () => Client.open(url, 3000)));
    const opened = many.filter((c) => c !== null) as Client[];
    await sleep(500);
    const stillOpen = opened.filter((c) => !c.closed).length;
    console.log(
      `flood connections: 500 asked, ${stillOpen} kept open (cap ${LIMITS.PAPO_SIGNAL_MAX_CONNECTIONS_PER_IP})`,
    );
    for (const c of opened) c.close();
    await sleep(500);
    // 2b. message rate, 2c. size, 2d. topics per socket, 2e. garbage
    const flooder = await Client.open(url);
    if (flooder) {
      const t = hex();
      flooder.send({ t: 'join', topic: t, peer: hex() });
      for (let i = 0; i < 2000; i++) flooder.send({ t: 'signal', topic: t, to: hex(), data: 'AAAA' });
      await sleep(300);
      flooder.close();
    }
    const big = await Client.open(url);
    if (big) {
      big.send(`{"t":"join","topic":"${'a'.repeat(70_000)}"}`);
      await sleep(300);
      big.close();
    }
    const topics = await Client.open(url);
    if (topics) {
      for (let i = 0; i < 8; i++) topics.send({ t: 'join', topic: hex(), peer: hex() });
      await sleep(300);
      topics.close();
    }
    const junk = await Client.open(url);
    if (junk) {
      for (const g of ['not json', '[]', '{"t":"nope"}', '{"t":"join"}', '{"t":"signal","topic":1}'])
        junk.send(g);
      await sleep(300);
      junk.close();
    }
    // 2f. peers past the per-topic cap
    const crowdTopic = hex();
    const crowd = (await Promise.all(Array.from({ length: 12 }, () => Client.open(url)))).filter(
      (c): c is Client => c !== null,
    );
    for (const c of crowd) c.send({ t: 'join', topic: crowdTopic, peer: hex() });
    await sleep(500);
    for (const c of crowd) c.close();
    sample();

    stopCanary = true;
    await canary;
    await sleep(1500);
    const end = rssKiB(pid);
    const text = await metricsText(metricsHttp);
    console.log(
      `canary rooms served during the load: ${canaryOk}, failed: ${canaryFail}; /healthz failures: ${healthFail}`,
    );
    console.log(`RSS: baseline ${baseline} KiB, peak ${peak} KiB, end ${end} KiB`);
    console.log(`refusals in /metrics: ${JSON.stringify(refused(text))}`);
    const gauges = text.split('\n').filter((l) => /^papo_signal_(connections|topics|peers) /.test(l));
    console.log(`gauges at the end: ${gauges.join(', ')}`);
    const r = refused(text);
    const missing = ['rate_limited', 'too_large', 'topic_limit', 'room_full', 'bad_request'].filter(
      (c) => !(r[c] ?? 0),
    );
    if (missing.length > 0) console.log(`MISSING refusals: ${missing.join(', ')}`);
    const alive = server.exitCode === null && server.signalCode === null;
    if (!alive) console.log(`the server DIED: ${server.exitCode ?? server.signalCode}`);
    process.exitCode = alive && canaryFail === 0 && healthFail === 0 && missing.length === 0 ? 0 : 1;
  } finally {
    server.kill('SIGKILL');
  }
}

await main();
