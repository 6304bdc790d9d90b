// Benchmark (not a test) of the short-lived CLI commands beside a room on loopback: `papo say` and
// `papo status` wall time (spawn to exit), Bia online in this process, with no papo mcp of Ana's
// profile (each command opens its own ephemeral member) and with Ana's own papo mcp running (the
// say is handed to it, ADR 0102; status asks it, ADR 0103).
// Usage: npm run build && node dist/bench/status.js [runs=9] [papo's main.js=this build's]
// The second argument measures another build (e.g. main's dist/src/cli/main.js) on the same room.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpStdioClient } from '../src/cli/stdio-client.js';
import { disableNativeCleanup } from '../src/client/net/peer-link.js';
import { openMember } from '../src/client/open-member.js';
import { createProfile } from '../src/client/store/profile-store.js';
import { generateSecret } from '../src/client/wire/room-crypto.js';
import { startSignalServer } from '../src/signal-server/server.js';

const RUNS = Number(process.argv[2] ?? 9);
const BIN = process.argv[3]
  ? resolve(process.argv[3])
  : fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, LANG: 'C', PAPO_ICE_SERVERS: '[]' };

disableNativeCleanup();

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function summary(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  return `p50 ${pct(s, 50).toFixed(1)} ms, p90 ${pct(s, 90).toFixed(1)} ms, min ${s[0]?.toFixed(1)}, max ${s.at(-1)?.toFixed(1)} (n=${s.length})`;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const server = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
const secret = generateSecret();
const homes: Record<string, string> = {};
for (const name of ['Ana', 'Bia']) {
  const home = mkdtempSync(join(tmpdir(), `papo-bench-${name.toLowerCase()}-`));
  homes[name] = home;
  await createProfile({ home, profile: 'default', name, secret, signalUrl: server.url, force: false });
}

/** Wall times of `papo ARGS` in Ana's profile, RUNS counted after `uncounted` first runs. */
async function wallTimes(args: (i: number) => string[], uncounted: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = -uncounted; i < RUNS; i++) {
    const t0 = now();
    const code = await new Promise<number | null>((done) => {
      const child = spawn(process.execPath, [BIN, ...args(i)], {
        env: { ...ENV, PAPO_HOME: homes.Ana },
        stdio: ['ignore', 'ignore', 'ignore'],
      });
      child.on('exit', (c) => done(c));
    });
    if (code !== 0) throw new Error(`papo ${args(i).join(' ')} exited ${code}`);
    if (i >= 0) times.push(now() - t0);
  }
  return times;
}

console.log(`papo say / papo status wall time — ${new Date().toISOString()}, ${BIN}`);
console.log(
  `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
const bia = await openMember({ home: homes.Bia as string, profile: 'default', env: ENV, mode: 'agent' });
const say = (word: string) => (i: number) => ['say', `${word} ${i}`];
const status = () => ['status', '--timeout', '20'];
// A first say, not counted: Ana's profile learns Bia (status then waits for her, as a person's would).
console.log(`papo say, no papo mcp:            ${summary(await wallTimes(say('hello'), 1))}`);
console.log(`papo status, no papo mcp:         ${summary(await wallTimes(status, 0))}`);
const anaMcp = new McpStdioClient(process.execPath, [BIN, 'mcp', '--about', 'bench'], {
  env: { ...ENV, PAPO_HOME: homes.Ana },
  cwd: homes.Ana as string,
});
await anaMcp.initialize();
await until(() => readdirSync(join(homes.Ana as string, 'profiles', 'default')).includes('member.sock'));
await until(() => bia.member.onlineNames().includes('Ana'));
console.log(`papo say, beside papo mcp:        ${summary(await wallTimes(say('handed'), 1))}`);
console.log(`papo status, beside papo mcp:     ${summary(await wallTimes(status, 1))}`);
await anaMcp.close();
await bia.member.close();
await server.close();
for (const dir of Object.values(homes)) rmSync(dir, { recursive: true, force: true });
process.exit(0);
