// The bounded fuzz run: every target with its quick budget and a seed printed for replay
// (PAPO_FUZZ_SEED=<n> replays a run). No crash, no hang (per-case timeout), no unhandled
// rejection or uncaught exception while it runs. The long run is bench/fuzz.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ATTACH_TARGETS } from './attach-targets.js';
import { PARSER_TARGETS } from './parser-targets.js';
import { FUZZ_TARGETS } from './targets.js';

const seed = process.env.PAPO_FUZZ_SEED ? Number(process.env.PAPO_FUZZ_SEED) : Date.now() % 2 ** 31;
const stray: string[] = [];
const onRejection = (reason: unknown) => stray.push(`unhandledRejection: ${String(reason)}`);
const onException = (err: Error) => stray.push(`uncaughtException: ${err.stack ?? err.message}`);

before(() => {
  console.log(`# fuzz seed ${seed} (replay with PAPO_FUZZ_SEED=${seed})`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
});
after(() => {
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
});

for (const target of [...FUZZ_TARGETS, ...PARSER_TARGETS, ...ATTACH_TARGETS]) {
  test(`fuzz: ${target.name}`, async () => {
    const outcome = await target.run({ numRuns: target.quickRuns, seed });
    console.log(`# ${target.name}: ${outcome.runs} cases, seed ${seed}`);
    assert.equal(outcome.failure, null, outcome.failure ?? '');
    assert.equal(outcome.runs, target.quickRuns);
    // Give stray promises of this target a turn to surface before the next one starts.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(stray, []);
  });
}
