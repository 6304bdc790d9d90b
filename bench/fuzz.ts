// The long fuzz run (not a test): every target of tests/fuzz/targets.ts for a fixed time, printing
// the cases tried per target and any failure with its seed. The counts go to docs/reliability.md.
// Usage: npm run build && node dist/bench/fuzz.js [seconds per target, default 20] [seed] [target name part]
import { FUZZ_TARGETS } from '../tests/fuzz/targets.js';

const seconds = Number(process.argv[2] ?? 20);
const seed = process.argv[3] !== undefined ? Number(process.argv[3]) : Date.now() % 2 ** 31;
const only = process.argv[4];
const stray: string[] = [];
process.on('unhandledRejection', (reason) => stray.push(`unhandledRejection: ${String(reason)}`));
process.on('uncaughtException', (err) => stray.push(`uncaughtException: ${err.stack ?? err.message}`));

console.log(`fuzz long run: ${seconds} s per target, seed ${seed}, ${new Date().toISOString()}`);
let failed = false;
for (const target of FUZZ_TARGETS.filter((t) => only === undefined || t.name.includes(only))) {
  const outcome = await target.run({ timeMs: seconds * 1000, seed });
  const rate = Math.round(outcome.runs / seconds);
  console.log(
    `${target.name.padEnd(50)} ${String(outcome.runs).padStart(9)} cases  (${rate}/s)  ${outcome.failure === null ? 'ok' : `FAILED ${outcome.failure}`}`,
  );
  if (outcome.failure !== null) failed = true;
}
if (stray.length > 0) {
  console.log(`stray errors:\n${stray.join('\n')}`);
  failed = true;
}
process.exit(failed ? 1 : 0);
