// Loaded into a papo process with `--import` (optimiserProbeEnv): on SIGUSR2 it runs a function
// hot enough for V8 to optimise and writes to PAPO_TEST_OPTIMISER_PROBE whether V8 did, so a test
// can tell whether the process runs with its optimising compiler (ADR 0108). V8's natives syntax
// cannot be given in NODE_OPTIONS, so it is turned on here, for the one function parsed after it.
import { renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

const out = process.env.PAPO_TEST_OPTIMISER_PROBE;
// The transport process a papo mcp forks inherits the environment: only its parent answers.
if (out !== undefined && process.send === undefined) {
  process.on('SIGUSR2', () => {
    setFlagsFromString('--allow-natives-syntax');
    // Optimised by either of V8's optimising compilers: Maglev optimises without TurboFan from Node
    // 24, and %GetOptimizationStatus's bits moved between V8 versions; the tier natives did not.
    const optimised = new Function('f', 'return %ActiveTierIsTurbofan(f) || %ActiveTierIsMaglev(f)') as (
      f: unknown,
    ) => boolean;
    const hot = (a: number) => {
      let s = 0;
      for (let i = 0; i < 100; i++) s += (a * i) ^ i;
      return s;
    };
    let x = 0;
    for (let i = 0; i < 300_000; i++) x += hot(i);
    // Whole or not at all: the test reads it as soon as it is there.
    writeFileSync(`${out}.part`, JSON.stringify({ optimised: optimised(hot), x }));
    renameSync(`${out}.part`, out);
  });
  // A SIGUSR2 before the handler is in place would end the process: the test waits for this.
  writeFileSync(`${out}.ready`, '');
}

/** The environment that loads this probe into a papo process, answering into `file`. */
export function optimiserProbeEnv(file: string): Record<string, string> {
  return { PAPO_TEST_OPTIMISER_PROBE: file, NODE_OPTIONS: `--import=${fileURLToPath(import.meta.url)}` };
}
