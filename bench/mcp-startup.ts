// Benchmark (not a test): how fast `papo mcp` answers `initialize`, as a ratio to a bare
// `node -e 0` measured in the same run on the same machine, in two cases:
//   - no profile: the member never opens;
//   - a configured profile (a room on a loopback signal URL): the member opens after the answer
//     — lock, state, signal client, WebRTC mesh, and the embedded signal server it hosts —, so the
//     answer must cost the same as without a profile. Also measured here: the time until a first
//     `status` call succeeds (the member is open), idle RSS with the network stack loaded, and
//     SIGTERM to exit with the member open.
// Usage: npm run build && node dist/bench/mcp-startup.js [runs]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/cli/free-port.js';
import { createProfile } from '../src/client/store/profile-store.js';
import { generateSecret } from '../src/client/wire/room-crypto.js';

const BIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const RUNS = Number(process.argv[2] ?? 15);
const line = (id: number, method: string, params: unknown) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;
const INIT = line(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} });
const INITIALIZED = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`;

function bareNode(): Promise<number> {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    // The environment papo's runs get, not this process's: a variable node reads at start
    // (NODE_EXTRA_CA_CERTS: 40 ms and 2 MB on a machine that sets it) would weigh on bare node
    // alone and flatter every ratio.
    const child = spawn(process.execPath, ['-e', '0'], { env: { PATH: process.env.PATH }, stdio: 'ignore' });
    child.on('exit', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
  });
}

interface McpRun {
  initMs: number;
  /** Spawn to the first successful `status` (configured profile only), else 0. */
  readyMs: number;
  rssKiB: number;
  exitMs: number;
}

const sinceMs = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

function mcpOnce(home: string, cwd: string, opts: { ready: boolean; rss: boolean }): Promise<McpRun> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [BIN, 'mcp'], {
      cwd,
      env: { PATH: process.env.PATH, PAPO_HOME: home },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    child.stdin.write(INIT);
    const run: McpRun = { initMs: 0, readyMs: 0, rssKiB: 0, exitMs: 0 };
    let buffered = '';
    let tTerm = 0n;
    const statusId = 2;
    const stop = async () => {
      if (opts.rss) {
        await new Promise((r) => setTimeout(r, 1500));
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        run.rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      }
      tTerm = process.hrtime.bigint();
      child.kill('SIGTERM');
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let nl = buffered.indexOf('\n');
      while (nl !== -1) {
        const msg = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        nl = buffered.indexOf('\n');
        if (msg.id === 1) {
          run.initMs = sinceMs(t0);
          child.stdin.write(INITIALIZED);
          if (!opts.ready) void stop();
          else child.stdin.write(line(statusId, 'tools/call', { name: 'status', arguments: {} }));
        } else if (msg.id === statusId) {
          if (msg.result?.isError === true) {
            child.kill('SIGKILL');
            reject(new Error(msg.result.content[0].text));
            return;
          }
          run.readyMs = sinceMs(t0);
          void stop();
        }
      }
    });
    child.on('exit', () => {
      run.exitMs = sinceMs(tTerm);
      resolve(run);
    });
    child.on('error', reject);
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

const root = mkdtempSync(join(tmpdir(), 'papo-bench-'));
try {
  const empty = join(root, 'empty');
  const configured = join(root, 'configured');
  const project = join(root, 'payments-api');
  mkdirSync(empty);
  mkdirSync(project);
  await createProfile({
    home: configured,
    profile: 'default',
    name: 'bench',
    secret: generateSecret(),
    signalUrl: `ws://127.0.0.1:${await freePort()}`,
    force: false,
  });

  const bare: number[] = [];
  const none = { init: [] as number[], exit: [] as number[] };
  const conf = { init: [] as number[], ready: [] as number[], exit: [] as number[] };
  // Interleaved, so all three see the same machine load.
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareNode());
    const r = await mcpOnce(empty, project, { ready: false, rss: false });
    none.init.push(r.initMs);
    none.exit.push(r.exitMs);
    const c = await mcpOnce(configured, project, { ready: true, rss: false });
    conf.init.push(c.initMs);
    conf.ready.push(c.readyMs);
    conf.exit.push(c.exitMs);
  }
  const idleNone = await mcpOnce(empty, project, { ready: false, rss: true });
  const idleConf = await mcpOnce(configured, project, { ready: true, rss: true });
  const b = median(bare);
  const ratio = (x: number) => `${x.toFixed(1)} ms (${(x / b).toFixed(2)}x bare node)`;
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `runs: ${RUNS} (medians), node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${cpu}, ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
  );
  console.log(`bare node -e 0 (spawn to exit):              ${b.toFixed(1)} ms`);
  console.log(`no profile: spawn to initialize response:    ${ratio(median(none.init))}`);
  console.log(`no profile: SIGTERM to exit:                 ${median(none.exit).toFixed(1)} ms`);
  console.log(`no profile: idle RSS after initialize:       ${(idleNone.rssKiB / 1024).toFixed(1)} MiB`);
  console.log(`profile: spawn to initialize response:       ${ratio(median(conf.init))}`);
  console.log(`profile: spawn to first status (member open): ${median(conf.ready).toFixed(1)} ms`);
  console.log(`profile: SIGTERM to exit (member open):      ${median(conf.exit).toFixed(1)} ms`);
  console.log(`profile: idle RSS, member open:              ${(idleConf.rssKiB / 1024).toFixed(1)} MiB`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
