// Benchmark (not a test) of the review gate's decision on one message (ADR 0081, 0095): `holds`
// with the most hold patterns review.json keeps (64) on a 60,000-character message, ASCII and not
// (the reader view folds only text that is not ASCII), beside the same patterns matched one by one
// with the text folded for each, as the gate did before 2026-12-03 (9cc4b36). papo mcp runs the
// gate on its main thread for every message that reaches it while review is on.
// Usage: npm run build && node dist/bench/review-gate.js [runs=15]
import { cpus, loadavg } from 'node:os';
import { holds } from '../src/client/store/review-gate.js';
import { compilePattern, matchesPattern } from '../src/client/store/review-patterns.js';
import { MAX_REVIEW_RULES, type ReviewSettings } from '../src/client/store/review-settings.js';
import type { Envelope } from '../src/client/wire/messages.js';

const RUNS = Number(process.argv[2] ?? 15);
const SIZE = 60_000;
const hold = Array.from({ length: MAX_REVIEW_RULES }, (_, i) => `pattern number ${i} * here`);
const settings: ReviewSettings = { on: true, allow: [], people: [], hold };
const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
const bodies: [string, string][] = [
  ['ASCII text', fill('the webhook contract: POST /events with a signed body. ')],
  ['text with accents and fullwidth letters', fill('contrato café naïve ｒｍ — versão 2. ')],
];

function p50(f: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

console.log(
  `review gate, ${MAX_REVIEW_RULES} hold patterns, a ${SIZE}-character message, p50 of ${RUNS}; ${new Date().toISOString()}, node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load ${loadavg()[0]?.toFixed(2)}`,
);
for (const [what, body] of bodies) {
  const msg: Envelope = {
    id: '0123456789',
    from: 'colega',
    node: '0'.repeat(64),
    kind: 'agent',
    ts: 0,
    body,
  };
  const compiled = hold.map(compilePattern);
  const gate = p50(() => holds(settings, msg));
  const perPattern = p50(() => compiled.some((p) => matchesPattern(p, body)));
  console.log(
    `${what.padEnd(40)} holds ${gate.toFixed(2)} ms; folded per pattern ${perPattern.toFixed(2)} ms`,
  );
}
