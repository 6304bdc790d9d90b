// From both `papo mcp` started to the first message delivered, across the NAT lab (not a test;
// issue 26): for each kind of network, one lab with `papo signal --public` (and the coturn it
// starts) and a room made from its printed line; then, run after run, ana's and bob's `papo mcp`
// are spawned at the same moment in their namespaces, ana sends at once (the message waits in her
// outbox until a link forms), and the time is read when bob's `wait` returns it. Both are closed
// (stdin EOF) before the next run. Root and `ip netns` needed, as for tests/nat.
// Usage: npm run build && node dist/bench/lab-first-message.js [runs=10] [case ...]
import { cpus, totalmem } from 'node:os';
import { labSkipReason, type SiteOptions } from '../tests/nat/lab.js';
import { publicLab, startPair } from '../tests/nat/public-room.js';
import { waitMessage } from '../tests/support/members.js';

const CASES: Record<string, [SiteOptions, SiteOptions]> = {
  'eim-eim': [{ nat: 'eim' }, { nat: 'eim' }],
  'eim-symmetric': [{ nat: 'eim' }, { nat: 'symmetric' }],
  'symmetric-symmetric': [{ nat: 'symmetric' }, { nat: 'symmetric' }],
  'udp-blocked': [{ nat: 'eim', blockUdp: true }, { nat: 'eim' }],
};

const runs = Number(process.argv[2] ?? 10);
const wanted = process.argv.slice(3);
const skip = labSkipReason();
if (skip) {
  console.error(`cannot run: ${skip}`);
  process.exit(2);
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

console.log(
  `papo lab benchmark: papo mcp started → first message delivered; ${new Date().toISOString()}, node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
);
for (const [name, sites] of Object.entries(CASES)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const room = await publicLab(sites);
  const times: number[] = [];
  const paths: string[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const [ana, bob] = await startPair(room);
      try {
        const body = `first message, run ${i + 1}`;
        const sent = ana.send(body, { to: 'bob' });
        await waitMessage(bob, body, 60_000);
        times.push(performance.now() - t0);
        await sent;
        paths.push(
          /link: (\w+)/.exec(
            (await ana.status()).split('\n').find((l) => l.startsWith('- bob')) ?? '',
          )?.[1] ?? '?',
        );
      } finally {
        await Promise.all([ana.close(), bob.close()]);
      }
    }
  } finally {
    await room.close();
  }
  const sorted = [...times].sort((a, b) => a - b);
  const counts = [...new Set(paths)].map((p) => `${p} ${paths.filter((x) => x === p).length}`).join(', ');
  console.log(
    `${name.padEnd(20)} p50 ${(pct(sorted, 50) / 1000).toFixed(2)} s, p90 ${(pct(sorted, 90) / 1000).toFixed(2)} s, min ${((sorted[0] ?? 0) / 1000).toFixed(2)} s, max ${((sorted.at(-1) ?? 0) / 1000).toFixed(2)} s (n=${sorted.length}; path ${counts})`,
  );
}
