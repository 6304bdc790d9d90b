// The two ways `papo say` could hand a say to the running papo mcp (ADR 0102), measured (not a
// test), each a round trip between two processes over a profile-like folder:
//   1. a request file (profile-requests.ts, as papo forget/review use): the CLI writes it durably,
//      the member takes it on its look every REQUEST_POLL_MS (1 s) and deletes it, the CLI sees it
//      gone on its 100 ms look; and the same with fs.watch instead of the member's look;
//   2. a Unix socket in the folder: connect, one line each way.
// Usage: npm run build && node dist/bench/say-handover.js [rounds=20]
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, watch } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  leaveRequest,
  REQUEST_POLL_MS,
  requestTaken,
  takeRequests,
} from '../src/client/store/profile-requests.js';

const N = Number(process.argv[2] ?? 20);
const now = () => Number(process.hrtime.bigint()) / 1e6;
const summary = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  const at = (p: number) => (s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0).toFixed(2);
  return `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, min ${s[0]?.toFixed(2)} (n=${s.length})`;
};

if (process.argv[2] === 'member') {
  const dir = process.argv[3] as string;
  const way = process.argv[4];
  if (way === 'socket') {
    createServer((s) => s.once('data', () => s.end('{"outcome":{}}\n'))).listen(join(dir, 's.sock'), () =>
      process.send?.('ready'),
    );
  } else if (way === 'poll') {
    setInterval(() => void takeRequests(dir, 'review', async () => true), REQUEST_POLL_MS);
    process.send?.('ready');
  } else {
    watch(dir, () => void takeRequests(dir, 'review', async () => true));
    process.send?.('ready');
  }
  process.on('disconnect', () => process.exit(0));
} else {
  const self = new URL(import.meta.url).pathname;
  for (const way of ['poll', 'watch', 'socket'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'papo-handover-'));
    const child = fork(self, ['member', dir, way], { stdio: 'inherit' });
    await new Promise((r) => child.once('message', r));
    const times: number[] = [];
    for (let i = 0; i < (way === 'poll' ? Math.min(N, 10) : N); i++) {
      const t0 = now();
      if (way === 'socket') {
        await new Promise<void>((resolve) => {
          const s = connect(join(dir, 's.sock'), () => s.write('{"say":{}}\n'));
          s.once('data', () => {
            s.destroy();
            resolve();
          });
        });
      } else {
        const path = await leaveRequest(dir, 'review', { say: i });
        if (!(await requestTaken(path, 5_000))) await unlink(path);
      }
      times.push(now() - t0);
    }
    console.log(`${way.padEnd(6)} round trip: ${summary(times)}`);
    child.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}
