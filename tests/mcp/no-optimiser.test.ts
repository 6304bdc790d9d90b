// papo mcp runs without V8's optimising compiler (ADR 0108): the flag is set at run time, since
// the `#!/usr/bin/env node` line agent CLIs start it with takes none. Node documents that a flag
// set at run time "may simply do nothing", so this checks, on the node that runs the suite, that
// a function hot enough to be optimised stays unoptimised once papo mcp's setting is made, and is
// optimised without it (the test can see the difference).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const START = new URL('../../src/cli/mcp-start.js', import.meta.url).href;

function optimised(setting: boolean): boolean {
  const script = `
    const { withoutOptimiser } = await import(${JSON.stringify(START)});
    if (${setting}) withoutOptimiser();
    function hot(a) { let s = 0; for (let i = 0; i < 100; i++) s += (a * i) ^ i; return s; }
    let x = 0;
    for (let i = 0; i < 300000; i++) x += hot(i);
    // V8's optimisation status: bit 4 is "optimised" (TurboFan), whatever the tier names.
    process.stdout.write(JSON.stringify({ optimised: (%GetOptimizationStatus(hot) & 16) !== 0, x }));`;
  const out = execFileSync(
    process.execPath,
    ['--allow-natives-syntax', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  );
  return (JSON.parse(out) as { optimised: boolean }).optimised;
}

test("papo mcp's setting keeps a hot function unoptimised; without it the same function is optimised", () => {
  assert.equal(optimised(false), true);
  assert.equal(optimised(true), false);
});
