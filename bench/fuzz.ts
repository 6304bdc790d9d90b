// The long fuzz run (not a test): every target of tests/fuzz/targets.ts and
// tests/fuzz/parser-targets.ts for a fixed time, or until a number of cases, printing the cases
// tried per target, the time, the rate, and any failure with its seed. The counts go to
// docs/reliability.md.
// Usage: npm run build && node dist/bench/fuzz.js [seconds per target, default 20] [seed] [target name part]
//        node dist/bench/fuzz.js --cases 1000000 [seed] [target name part]   (until N cases each)
//        node dist/bench/fuzz.js --path <path> --cases 1 <seed> <target name part>   (replays the case
//        a failure printed as "seed S path P"; values a target draws outside fast-check, such as
//        random keys, differ between runs, so the replayed case has the same shape, not the same bytes)
import { ATTACH_TARGETS } from '../tests/fuzz/attach-targets.js';
import { PARSER_TARGETS } from '../tests/fuzz/parser-targets.js';
import { FUZZ_TARGETS, fuzzProgress } from '../tests/fuzz/targets.js';

const args = process.argv.slice(2);
let path: string | undefined;
const pathAt = args.indexOf('--path');
if (pathAt >= 0) {
  path = args[pathAt + 1];
  if (path === undefined || !/^\d+(:\d+)*$/.test(path))
    throw new Error('--path takes a path a failure printed, e.g. 640646:3');
  args.splice(pathAt, 2);
}
let cases: number | undefined;
const casesAt = args.indexOf('--cases');
if (casesAt >= 0) {
  cases = Number(args[casesAt + 1]);
  if (!Number.isInteger(cases) || cases < 1) throw new Error('--cases takes a positive whole number');
  args.splice(casesAt, 2);
  args.unshift('0'); // the seconds slot is unused
}
const seconds = Number(args[0] ?? 20);
const seed = args[1] !== undefined ? Number(args[1]) : Date.now() % 2 ** 31;
const only = args[2];
const stray: string[] = [];
process.on('unhandledRejection', (reason) => stray.push(`unhandledRejection: ${String(reason)}`));
process.on('uncaughtException', (err) => stray.push(`uncaughtException: ${err.stack ?? err.message}`));

const budgetText = cases !== undefined ? `${cases} cases per target` : `${seconds} s per target`;
console.log(`fuzz long run: ${budgetText}, seed ${seed}, ${new Date().toISOString()}`);
let failed = false;
for (const target of [...FUZZ_TARGETS, ...PARSER_TARGETS, ...ATTACH_TARGETS].filter(
  (t) => only === undefined || t.name.includes(only),
)) {
  const started = performance.now();
  fuzzProgress.cases = 0;
  // A long run says where it is every minute (from the case hook: a synchronous property holds
  // the event loop, so neither a timer nor a signal handler would run), so a run stopped early
  // still tells how far it got.
  let said = started;
  fuzzProgress.afterCase = () => {
    const now = performance.now();
    if (now - said < 60_000) return;
    said = now;
    console.log(
      `# ${target.name}: ${fuzzProgress.cases} cases in ${((now - started) / 1000).toFixed(0)} s, no failure so far (${new Date().toISOString()})`,
    );
  };
  const outcome = await target.run({
    ...(cases !== undefined ? { numRuns: cases, seed } : { timeMs: seconds * 1000, seed }),
    ...(path !== undefined ? { path } : {}),
  });
  const took = (performance.now() - started) / 1000;
  const rate = Math.round(outcome.runs / took);
  console.log(
    `${target.name.padEnd(66)} ${String(outcome.runs).padStart(9)} cases  ${took.toFixed(1).padStart(7)} s  (${rate}/s)  ${outcome.failure === null ? 'ok' : `FAILED ${outcome.failure}`}`,
  );
  if (outcome.failure !== null) failed = true;
}
if (stray.length > 0) {
  console.log(`stray errors:\n${stray.join('\n')}`);
  failed = true;
}
process.exit(failed ? 1 : 0);
