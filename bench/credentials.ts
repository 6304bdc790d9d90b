// Benchmark (not a test) of the credential refusal of `send` (ADR 0041, ADR 0061) on 48 KiB
// messages, the most `send` takes: the worst cases of the split-token pass beside ordinary text.
// - plain text: letters, spaces and punctuation, no prefix (only the detectors' patterns run);
// - prefixes and short pieces: decoy prefixes every few characters, each followed by pieces too
//   short and too regular to be a token (tests/attacks/credential-bypass.test.ts checks that it
//   passes);
// - hostile split texts (the worst of those tried): a GitHub prefix in every piece, each followed by
//   3 random characters, so each prefix joins the next 24 pieces, all random enough to be tried,
//   yet the next prefix cuts every token short; two random pieces after each prefix; an invite's
//   prefix followed by 30 pieces of its alphabet (joins decoded, a checksum that never holds).
// Each must pass (no finding); the time of one check is printed per input.
// Usage: npm run build && node dist/bench/credentials.js [checks=20]
import { cpus, loadavg } from 'node:os';
import { findCredential } from '../src/mcp/credentials.js';
import { ALNUM, LOW, seededText } from '../tests/support/seeded-text.js';

const N = Number(process.argv[2] ?? 20);
const SIZE = 48 * 1024;
const B32 = 'abcdefghijklmnopqrstuvwxyz234567';
const rnd = seededText(20261202);
const join = (...parts: string[]) => parts.join('');
/** `unit()` repeated until the text is `SIZE` characters long. */
const fill = (unit: () => string) => {
  let s = '';
  while (s.length < SIZE) s += unit();
  return s.slice(0, SIZE);
};

const inputs: [string, string][] = [
  ['plain text', rnd(`${LOW}  \n.,`, SIZE)],
  [
    'prefixes and short pieces (the bypass test)',
    fill(() => `${join('gh', 'p_')} ab ${join('sk', '-')} Cd 9 ${join('AK', 'IA')} `),
  ],
  ['hostile split: a prefix in every piece', fill(() => `${join('gh', 'p_')}${rnd(ALNUM, 3)} `)],
  [
    'hostile split: random pieces after prefixes',
    fill(() => `${join('gh', 'p_')} ${rnd(ALNUM, 5)} ${rnd(ALNUM, 5)} `),
  ],
  [
    'hostile split: invite prefix, 3-letter pieces',
    fill(() => `${join('pa', 'po1')} ${Array.from({ length: 30 }, () => rnd(B32, 3)).join(' ')} `),
  ],
];

console.log(
  `${new Date().toISOString()}  ${cpus()[0]?.model} x${cpus().length}  load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}  node ${process.version}  checks=${N}`,
);
for (const [label, text] of inputs) {
  const found = findCredential(text); // warm up, and the verdict
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    findCredential(text);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const p = (q: number) =>
    (times[Math.min(times.length - 1, Math.floor(q * times.length))] as number).toFixed(1);
  console.log(
    `${label.padEnd(48)} ${String(text.length).padStart(6)} chars  p50 ${p(0.5).padStart(7)} ms  max ${p(1).padStart(7)} ms  ${found === null ? 'passes' : `REFUSED (${found.kind})`}`,
  );
}
