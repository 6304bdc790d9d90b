// Benchmark (not a test): time from spawn to the `initialize` response of `papo mcp`, as a ratio to
// a bare `node -e 0` measured in the same run on the same machine; idle RSS; and the time from
// SIGTERM to exit. Usage: npm run build && node dist/bench/mcp-startup.js [runs]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const RUNS = Number(process.argv[2] ?? 15);
const INIT = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } })}\n`;

function bareNode(): Promise<number> {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('exit', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
  });
}

interface McpRun {
  initMs: number;
  rssKiB: number;
  exitMs: number;
}

function mcpOnce(home: string, measureRss: boolean): Promise<McpRun> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [BIN, 'mcp'], {
      env: { PATH: process.env.PATH, PAPO_HOME: home },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    child.stdin.write(INIT);
    let out = '';
    let initMs = 0;
    let rssKiB = 0;
    let tTerm = 0n;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', async (c: string) => {
      out += c;
      if (initMs !== 0 || !out.includes('\n')) return;
      initMs = Number(process.hrtime.bigint() - t0) / 1e6;
      if (measureRss) {
        await new Promise((r) => setTimeout(r, 1500));
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      }
      tTerm = process.hrtime.bigint();
      child.kill('SIGTERM');
    });
    child.on('exit', () =>
      resolve({ initMs, rssKiB, exitMs: Number(process.hrtime.bigint() - tTerm) / 1e6 }),
    );
    child.on('error', reject);
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

const home = mkdtempSync(join(tmpdir(), 'papo-bench-'));
try {
  const bare: number[] = [];
  const init: number[] = [];
  const exit: number[] = [];
  // Interleaved, so both see the same machine load.
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareNode());
    const r = await mcpOnce(home, false);
    init.push(r.initMs);
    exit.push(r.exitMs);
  }
  const idle = await mcpOnce(home, true);
  const b = median(bare);
  const m = median(init);
  console.log(`runs: ${RUNS} (medians), node ${process.version}, ${new Date().toISOString().slice(0, 10)}`);
  console.log(`bare node -e 0:              ${b.toFixed(1)} ms`);
  console.log(`papo mcp to initialize:      ${m.toFixed(1)} ms (ratio ${(m / b).toFixed(2)}x)`);
  console.log(`SIGTERM to exit:             ${median(exit).toFixed(1)} ms`);
  console.log(`idle RSS after initialize:   ${(idle.rssKiB / 1024).toFixed(1)} MiB`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
