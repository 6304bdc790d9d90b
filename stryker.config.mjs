// Mutation testing of the modules where a wrong line is a security or delivery failure (ADR 0080).
// One Stryker run per module: scripts/mutation.mjs sets PAPO_MUTATE to a key of `modules` below and
// runs Stryker with this file. Stryker copies the project into a sandbox, writes every mutant of the
// module into its TypeScript source at once (each one switched on by an environment variable), tsc
// builds the sandbox once, and the tap runner runs the module's fast test files (compiled, in dist/)
// once per mutant, only those whose run reached the mutant.
import { modules } from './scripts/mutation-modules.mjs';

const key = process.env.PAPO_MUTATE;
const module = key ? modules[key] : undefined;
if (!module) throw new Error(`PAPO_MUTATE must name one of: ${Object.keys(modules).join(', ')}`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner'],
  mutate: module.mutate,
  tap: {
    testFiles: module.tests.map((t) => `dist/tests/${t}.test.js`),
    nodeArgs: ['--test-reporter=tap', ...(module.nodeArgs ?? []), '-r', '{{hookFile}}', '{{testFile}}'],
  },
  // The sandbox is built once, as the checkout is (5 s with TypeScript 7); the mutants are switched
  // at run time. The build's postbuild makes the transport process's bundle (ADR 0110) from tsc's
  // output, mutants and all. (Stryker runs this command without a shell: one command, no `&&`.)
  buildCommand: 'npm run build',
  // Stryker rewrites the sandbox's tsconfig (paths of `extends` and `references` that would leave the
  // sandbox) with TypeScript's JS API, which TypeScript 7 no longer has; papo's tsconfig has neither,
  // so Stryker is pointed at a file that does not exist and leaves tsconfig.json as it is.
  tsconfigFile: 'tsconfig.not-rewritten-by-stryker.json',
  coverageAnalysis: 'perTest',
  // A shared 2-core machine.
  concurrency: 1,
  timeoutMS: 10_000,
  ignorePatterns: ['dist', 'coverage', 'docs', 'docker', 'reports', '.ci', '.tmp', '.stryker-tmp*'],
  reporters: ['clear-text', 'json', 'progress'],
  jsonReporter: { fileName: `reports/mutation/${key}.json` },
  clearTextReporter: { allowEmojis: false, logTests: false, reportScoreTable: true },
  // A sandbox folder per module, so that two modules may run at once (each its own test process).
  tempDirName: `.stryker-tmp-${key}`,
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: null },
};
