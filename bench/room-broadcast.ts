// Benchmark (not a test) of a message to the whole room (ADR 0063, ADR 0064): N members on
// loopback (openMember in this process, each with its transport process, real profiles, real
// node-datachannel links, host candidates only), one sends to the room; measured per message: from
// send() to the message event at the first and at the last of the other N-1 members, and to the
// send's result (every member that is owed it confirmed, or 8 s).
// Usage: npm run build && node dist/bench/room-broadcast.js [members=8] [messages=100]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { type OpenedMember, openMember } from '../src/client/open-member.js';
import { createProfile } from '../src/client/store/profile-store.js';
import { generateSecret } from '../src/client/wire/room-crypto.js';
import { startSignalServer } from '../src/signal-server/server.js';

const N = Number(process.argv[2] ?? 8);
const MESSAGES = Number(process.argv[3] ?? 100);
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, LANG: 'C', PAPO_ICE_SERVERS: '[]' };
const now = () => Number(process.hrtime.bigint()) / 1e6;
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const summary = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return `p50 ${pct(s, 50).toFixed(2)} ms, p99 ${pct(s, 99).toFixed(2)} ms, max ${s.at(-1)?.toFixed(2)} (n=${s.length})`;
};

const server = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
const secret = generateSecret();
const homes: string[] = [];
const members: OpenedMember[] = [];
try {
  console.log(`papo room broadcast benchmark — ${new Date().toISOString()}`);
  console.log(
    `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
  );
  for (let i = 0; i < N; i++) {
    const home = mkdtempSync(join(tmpdir(), `papo-bench-room-${i}-`));
    homes.push(home);
    await createProfile({
      home,
      profile: 'default',
      name: `m${i}`,
      secret,
      signalUrl: server.url,
      force: false,
    });
    members.push(await openMember({ home, profile: 'default', env: ENV, mode: 'agent' }));
  }
  const deadline = Date.now() + 120_000;
  while (!members.every((m) => m.member.onlineNames().length === N - 1)) {
    if (Date.now() > deadline) throw new Error('the room did not form');
    await new Promise((r) => setTimeout(r, 50));
  }
  const [sender, ...others] = members as [OpenedMember, ...OpenedMember[]];
  const first: number[] = [];
  const last: number[] = [];
  const result: number[] = [];
  for (let k = 0; k < MESSAGES + 5; k++) {
    const times: number[] = [];
    const got = others.map(
      (m) =>
        new Promise<void>((resolve) => {
          const on = () => {
            times.push(now());
            m.member.off('message', on);
            resolve();
          };
          m.member.on('message', on);
        }),
    );
    const t0 = now();
    const sent = await sender.member.send({ body: `to the room ${k} ${'x'.repeat(200)}` }, 8000);
    const t1 = now();
    await Promise.all(got);
    for (const m of others) await m.member.consume([sent.id]);
    if (k < 5) continue; // warm-up
    times.sort((a, b) => a - b);
    first.push((times[0] as number) - t0);
    last.push((times.at(-1) as number) - t0);
    result.push(t1 - t0);
  }
  console.log(`${N} members, a message to the room from one of them, ${MESSAGES} messages:`);
  console.log(`  send → stored at the first other member: ${summary(first)}`);
  console.log(`  send → stored at every other member:     ${summary(last)}`);
  console.log(`  send → its result (every member confirmed): ${summary(result)}`);
} finally {
  await Promise.all(members.map((m) => m.member.close()));
  await server.close();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
}
