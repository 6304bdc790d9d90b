// Loaded into every test process by scripts/run-tests.mjs (`--import`) only when the suite runs
// under coverage (PAPO_COVERAGE=1, ADR 0078). Node writes a process's V8 coverage only when
// NODE_V8_COVERAGE is in that process's environment, and most tests start their children (the built
// papo, papo mcp, transport processes, fixtures, `ip netns exec` members, agent CLIs) with an
// environment of their own that does not carry it. This adds NODE_V8_COVERAGE, and nothing else, to
// the environment of every child a test process starts, so that what the children run is measured;
// a child whose environment already names it keeps its own. Without coverage this file is not
// loaded, and the tests run exactly as they do with `npm test`.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { promisify } from 'node:util';

const dir = process.env.NODE_V8_COVERAGE;
if (dir) {
  const require = createRequire(import.meta.url);
  const cp = require('node:child_process') as Record<string, (...args: unknown[]) => unknown>;
  type Options = { env?: NodeJS.ProcessEnv } & Record<string, unknown>;

  /** The same options with NODE_V8_COVERAGE in an explicit env (an absent env inherits it). */
  const withCoverage = (options: unknown): unknown => {
    if (options === null || typeof options !== 'object') return options;
    const o = options as Options;
    if (!o.env || 'NODE_V8_COVERAGE' in o.env) return o;
    return { ...o, env: { ...o.env, NODE_V8_COVERAGE: dir } };
  };

  /** In (command[, args][, options][, callback]), options is the first non-array object after the command. */
  const rewrite = (args: unknown[]): unknown[] => {
    for (let i = 1; i < args.length; i++) {
      const a = args[i];
      if (a !== null && typeof a === 'object' && !Array.isArray(a)) {
        args[i] = withCoverage(a);
        break;
      }
    }
    return args;
  };
  const wrapFn = (original: (...args: unknown[]) => unknown, name: string) => {
    const wrapped = function (this: unknown, ...args: unknown[]) {
      return original.apply(this, rewrite(args));
    };
    Object.defineProperty(wrapped, 'name', { value: name });
    return wrapped;
  };
  const wrap = (name: string): void => {
    const original = cp[name];
    if (typeof original !== 'function') return;
    const wrapped = wrapFn(original, name) as typeof original & Record<symbol, unknown>;
    // exec and execFile carry their own promisified form (resolving to { stdout, stderr }).
    const custom = (original as unknown as Record<symbol, unknown>)[promisify.custom];
    if (typeof custom === 'function')
      wrapped[promisify.custom] = wrapFn(custom as (...args: unknown[]) => unknown, name);
    cp[name] = wrapped;
  };
  for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork', 'exec', 'execSync'])
    wrap(name);
  // `import { spawn } from 'node:child_process'` sees the wrapped functions from here on.
  syncBuiltinESMExports();
}
