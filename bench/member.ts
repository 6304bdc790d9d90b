// Benchmark (not a test) of the room member on loopback, with a signal server of its own:
//   1. send-to-delivered latency between two linked in-process members (openMember, one process):
//      from send() to the receiver's `message` event, and to the sender's ack, p50/p99;
//   2. time from a member's start (openMember) to its first open link, the peer already running;
//      and the same for a real `papo mcp` (its transport process forked as its member opens, after
//      the initialize answer, ADR 0091): spawn → initialize answer → the peer sees the link;
//   3. `papo say` wall time (spawn to exit) with the peer online: with no papo mcp of the profile,
//      and handed to the profile's running papo mcp (ADR 0102);
//   1 runs through the transport process (ADR 0057) and in-process, message by message;
//   4. idle RSS and CPU of a linked `papo mcp` and of its transport process after ~20 s, beside a bare
//      `node -e "setInterval(()=>{},1000)"` and node-datachannel alone with one idle link
//      (bench/native-idle.ts), measured over the same window.
// Usage: npm run build && node dist/bench/member.js [messages=500] [starts=10] [says=5] [rounds=2]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpStdioClient } from '../src/cli/stdio-client.js';
import { disableNativeCleanup } from '../src/client/net/peer-link.js';
import { type OpenedMember, openMember } from '../src/client/open-member.js';
import { createProfile } from '../src/client/store/profile-store.js';
import { generateSecret } from '../src/client/wire/room-crypto.js';
import { startSignalServer } from '../src/signal-server/server.js';
import { childPids } from '../tests/support/processes.js';
import { groupKiB, processMemory } from './process-memory.js';

const BIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const MESSAGES = Number(process.argv[2] ?? 500);
const STARTS = Number(process.argv[3] ?? 10);
const SAYS = Number(process.argv[4] ?? 5);
/** Rounds of the latency comparison, each through the transport process and then in-process. */
const ROUNDS = Number(process.argv[5] ?? 2);
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, LANG: 'C', PAPO_ICE_SERVERS: '[]' };
// BENCH_NODE_OPTIONS: V8 settings tried on every papo process of the bench (its transport process
// inherits NODE_OPTIONS), to compare their memory, latency and CPU with the defaults'.
if (process.env.BENCH_NODE_OPTIONS) ENV.NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS;
const CLK_TCK = 100;

disableNativeCleanup();

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function summary(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  return `p50 ${pct(s, 50).toFixed(2)} ms, p99 ${pct(s, 99).toFixed(2)} ms, min ${s[0]?.toFixed(2)}, max ${s.at(-1)?.toFixed(2)} (n=${s.length})`;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** utime + stime, in clock ticks, of a /proc .../stat line (process or thread). */
function statTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function procStat(pid: number): { cpuTicks: number; rssKiB: number } {
  const cpuTicks = statTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { cpuTicks, rssKiB };
}

/** CPU ticks of a process's threads whose name is `comm` (e.g. usrsctp's "SCTP timer"). */
function threadTicks(pid: number, comm: string): number {
  let ticks = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
    if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === comm) ticks += statTicks(stat);
  }
  return ticks;
}

const dirs: string[] = [];
const server = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
const secret = generateSecret();
const secondSecret = generateSecret();
const homes: Record<string, string> = {};
for (const name of ['Ana', 'Bia', 'Caio', 'Cleo', 'Davi']) {
  // Cleo and Davi meet in a room of their own (the in-process pair of part 1).
  const roomSecret = name === 'Cleo' || name === 'Davi' ? secondSecret : secret;
  const home = mkdtempSync(join(tmpdir(), `papo-bench-${name.toLowerCase()}-`));
  dirs.push(home);
  homes[name] = home;
  await createProfile({
    home,
    profile: 'default',
    name,
    secret: roomSecret,
    signalUrl: server.url,
    force: false,
  });
}
const open = (name: string, transport: 'process' | 'inline' = 'process') =>
  openMember({ home: homes[name] as string, profile: 'default', env: ENV, mode: 'agent', transport });

console.log(`papo room member benchmark — ${new Date().toISOString()}`);
console.log(
  `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
);

// 1. latency, through the transport process (ADR 0057) and in-process, interleaved: two pairs in
//    two rooms are open at once (Ana→Bia through transport processes, Cleo→Davi in-process) and
//    the messages alternate between them, so both paths see the same moments of the machine (its
//    fsyncs, its other work) and the difference of their p50 is the hop's, not the round's.
let ana: OpenedMember | undefined;
let bia: OpenedMember | undefined;
type Pair = {
  mode: 'process' | 'inline';
  a: OpenedMember;
  b: OpenedMember;
  delivered: number[];
  acked: number[];
};
async function sendOnce(pair: Pair, i: number, keep: boolean): Promise<void> {
  const { a, b } = pair;
  let t1 = 0;
  const got = new Promise<void>((resolve) =>
    b.member.once('message', () => {
      t1 = now();
      resolve();
    }),
  );
  const t0 = now();
  const result = await a.member.send({ body: `message ${i} ${'x'.repeat(200)}` }, 5000);
  const t2 = now();
  await got;
  if (result.ackedBy === null) throw new Error('no ack');
  if (keep) {
    pair.delivered.push(t1 - t0);
    pair.acked.push(t2 - t0);
  }
  await b.member.consume([result.id]);
}
const p50 = (values: number[]) =>
  pct(
    [...values].sort((x, y) => x - y),
    50,
  );
const differences: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const pairs: Pair[] = [
    { mode: 'process', b: await open('Bia'), a: await open('Ana'), delivered: [], acked: [] },
    {
      mode: 'inline',
      b: await open('Davi', 'inline'),
      a: await open('Cleo', 'inline'),
      delivered: [],
      acked: [],
    },
  ];
  for (const { a, b } of pairs)
    await until(() => a.probe.neighbours().length === 1 && b.probe.neighbours().length === 1);
  for (let i = 0; i < MESSAGES; i++) {
    // Which path goes first alternates too.
    const order = i % 2 === 0 ? pairs : [...pairs].reverse();
    for (const pair of order) await sendOnce(pair, i, i >= 10);
  }
  for (const pair of pairs) {
    console.log(
      `[round ${round} ${pair.mode.padEnd(7)}] send → delivered (receiver's message event): ${summary(pair.delivered)}`,
    );
    console.log(
      `[round ${round} ${pair.mode.padEnd(7)}] send → ack back at the sender:              ${summary(pair.acked)}`,
    );
    await pair.a.member.close();
    await pair.b.member.close();
  }
  const [proc, inline] = pairs as [Pair, Pair];
  const difference = p50(proc.delivered) - p50(inline.delivered);
  differences.push(difference);
  console.log(
    `[round ${round}] difference of the send → delivered p50: ${difference >= 0 ? '+' : ''}${difference.toFixed(2)} ms`,
  );
}
console.log(
  `difference of the p50 over ${ROUNDS} rounds: ${differences.map((d) => d.toFixed(2)).join(', ')} ms; median ${p50(differences).toFixed(2)} ms`,
);
bia = await open('Bia');
ana = await open('Ana');
{
  const [a, b] = [ana, bia];
  await until(() => a.probe.neighbours().length === 1 && b.probe.neighbours().length === 1);
}

// 2. start to first link
const firstLink: number[] = [];
for (let i = 0; i < STARTS; i++) {
  await ana.member.close();
  await until(() => (bia as OpenedMember).probe.neighbours().length === 0);
  const t0 = now();
  const next = await open('Ana');
  ana = next;
  await until(() => next.probe.neighbours().length === 1);
  firstLink.push(now() - t0);
}
console.log(`member start (openMember) → first open link: ${summary(firstLink)}`);
await ana.member.close();
await until(() => (bia as OpenedMember).probe.neighbours().length === 0);
{
  const toInit: number[] = [];
  const initToLink: number[] = [];
  const toLink: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const t0 = now();
    const agent = new McpStdioClient(process.execPath, [BIN, 'mcp', '--about', 'bench'], {
      env: { ...ENV, PAPO_HOME: homes.Ana },
      cwd: homes.Ana as string,
    });
    await agent.initialize();
    const tInit = now();
    await until(() => (bia as OpenedMember).probe.neighbours().length === 1);
    const tLink = now();
    toInit.push(tInit - t0);
    initToLink.push(tLink - tInit);
    toLink.push(tLink - t0);
    await agent.close();
    await until(() => (bia as OpenedMember).probe.neighbours().length === 0);
  }
  console.log(`papo mcp spawned → initialize answer:        ${summary(toInit)}`);
  console.log(`papo mcp initialize answer → first open link: ${summary(initToLink)}`);
  console.log(`papo mcp spawned → first open link:          ${summary(toLink)}`);
}

// 3. papo say wall time, Bia online: Ana's agent not running (say's ephemeral identity links
// itself), then running (the say is handed to it, ADR 0102)
async function sayWallTimes(word: string, uncounted: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = -uncounted; i < SAYS; i++) {
    const t0 = now();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'say', `${word} ${i}`], {
        env: { ...ENV, PAPO_HOME: homes.Ana },
        stdio: ['ignore', 'ignore', 'ignore'],
      });
      child.on('exit', (c) => resolve(c));
    });
    if (code !== 0) throw new Error(`papo say exited ${code}`);
    if (i >= 0) times.push(now() - t0);
  }
  return times;
}
console.log(`papo say wall time, peer online:            ${summary(await sayWallTimes('hello', 0))}`);
const anaMcp = new McpStdioClient(process.execPath, [BIN, 'mcp', '--about', 'bench'], {
  env: { ...ENV, PAPO_HOME: homes.Ana },
  cwd: homes.Ana as string,
});
await anaMcp.initialize();
await until(() => readdirSync(join(homes.Ana as string, 'profiles', 'default')).includes('member.sock'));
// Its link to Bia: a first say, not counted, waits for it if it is not up yet.
console.log(`papo say wall time, handed to papo mcp:     ${summary(await sayWallTimes('handed', 1))}`);
await anaMcp.close();

// 4. idle RSS and CPU: a linked `papo mcp` (Caio) and a bare node, over the same window
// BENCH_MCP_NODE_FLAGS: node's own flags for this papo mcp alone (a V8 setting tried on the parent).
const MCP_FLAGS = process.env.BENCH_MCP_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
const mcp = new McpStdioClient(process.execPath, [...MCP_FLAGS, BIN, 'mcp', '--about', 'bench'], {
  env: { ...ENV, PAPO_HOME: homes.Caio },
  cwd: homes.Caio as string,
});
// Bare node and the native library alone get papo's environment, not this process's (a variable
// node reads at start, such as NODE_EXTRA_CA_CERTS, costs 2 MB, and would flatter the ratio).
const bare = spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { env: ENV, stdio: 'ignore' });
// The native library alone, linked and idle: the floor under the transport process's figure.
const native = spawn(process.execPath, [fileURLToPath(new URL('./native-idle.js', import.meta.url))], {
  env: ENV,
  stdio: ['ignore', 'pipe', 'inherit'],
});
// It says "open" once linked; one that ends first (a crash of the native library) stops the bench.
await new Promise<void>((resolve, reject) => {
  native.stdout.once('data', () => resolve());
  native.once('exit', (code, signal) =>
    reject(new Error(`bench/native-idle.js ended first (${signal ?? code})`)),
  );
});
await mcp.initialize();
await until(() => (bia as OpenedMember).probe.neighbours().length === 1);
const WARM_MS = 20_000;
const WINDOW_MS = 20_000;
await new Promise((r) => setTimeout(r, WARM_MS));
const mcpPid = mcp.child.pid as number;
const barePid = bare.pid as number;
// papo mcp's transport process (ADR 0057): its one child.
const transportPid = childPids(mcpPid)[0];
const m0 = procStat(mcpPid);
const t0 = transportPid !== undefined ? procStat(transportPid) : undefined;
const b0 = procStat(barePid);
const n0 = procStat(native.pid as number);
const timer0 = transportPid !== undefined ? threadTicks(transportPid, 'SCTP timer') : 0;
const nativeTimer0 = threadTicks(native.pid as number, 'SCTP timer');
await new Promise((r) => setTimeout(r, WINDOW_MS));
const m1 = procStat(mcpPid);
const t1 = transportPid !== undefined ? procStat(transportPid) : undefined;
const b1 = procStat(barePid);
const n1 = procStat(native.pid as number);
const timer1 = transportPid !== undefined ? threadTicks(transportPid, 'SCTP timer') : 0;
const nativeTimer1 = threadTicks(native.pid as number, 'SCTP timer');
const cpu = (a: number, b: number) => (((b - a) / CLK_TCK / (WINDOW_MS / 1000)) * 100).toFixed(2);
const transportLine =
  t0 !== undefined && t1 !== undefined
    ? `; its transport process RSS ${(t1.rssKiB / 1024).toFixed(1)} MB, CPU ${cpu(t0.cpuTicks, t1.cpuTicks)} %`
    : '';
console.log(
  `idle after ${WARM_MS / 1000} s, CPU over the next ${WINDOW_MS / 1000} s: papo mcp (linked to one member) RSS ${(m1.rssKiB / 1024).toFixed(1)} MB, CPU ${cpu(m0.cpuTicks, m1.cpuTicks)} %${transportLine}; bare node RSS ${(b1.rssKiB / 1024).toFixed(1)} MB, CPU ${cpu(b0.cpuTicks, b1.cpuTicks)} %; node-datachannel alone, one idle link (bench/native-idle.ts) RSS ${(n1.rssKiB / 1024).toFixed(1)} MB, CPU ${cpu(n0.cpuTicks, n1.cpuTicks)} %`,
);

// RSS counts the node binary's pages in each process; the machine holds them once (process-memory.ts).
const mb = (kib: number) => `${(kib / 1024).toFixed(1)} MB`;
const parentMem = processMemory(mcpPid);
const transportMem = transportPid !== undefined ? processMemory(transportPid) : undefined;
const bareMem = processMemory(barePid);
const pair = groupKiB(transportPid !== undefined ? [mcpPid, transportPid] : [mcpPid]);
console.log(
  `memory, pages counted once: papo mcp and its transport process together ${pair > 0 ? mb(pair) : 'unknown (needs root)'} (their RSS summed ${mb(parentMem.rssKiB + (transportMem?.rssKiB ?? 0))}); private (USS): papo mcp ${mb(parentMem.ussKiB)}, transport process ${transportMem === undefined ? '-' : mb(transportMem.ussKiB)}; shared with other processes (the node binary, libraries): papo mcp ${mb(parentMem.sharedKiB)}, transport process ${transportMem === undefined ? '-' : mb(transportMem.sharedKiB)}; bare node RSS ${mb(bareMem.rssKiB)}, USS ${mb(bareMem.ussKiB)}, alone ${mb(groupKiB([barePid]))}`,
);

bare.kill('SIGKILL');
console.log(
  `of which usrsctp's "SCTP timer" thread (a 10 ms tick): transport process ${cpu(timer0, timer1)} %, node-datachannel alone ${cpu(nativeTimer0, nativeTimer1)} %`,
);
native.kill('SIGKILL');
await mcp.close();
await (bia as OpenedMember).member.close();
await server.close();
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
process.exit(0);
