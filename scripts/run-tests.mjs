#!/usr/bin/env node
// Runs the compiled test files with node:test. Node 20's `node --test` takes paths, not globs,
// so this finds them. Usage: node scripts/run-tests.mjs [substring ...] to run a subset.
// With PAPO_COVERAGE=1 (what `npm run test:coverage` and .ci/run set), the same run is measured:
// every process the tests start writes its V8 coverage, c8 maps it back to src/*.ts, prints the
// table per folder and fails the run below the thresholds in .c8rc.json (ADR 0078).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// fileURLToPath, not the URL's pathname: on Windows that is /C:/... (and %20 for a space).
const root = fileURLToPath(new URL('..', import.meta.url));
const testsDir = join(root, 'dist', 'tests');

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
// A filter is written with / (`member/`, `mcp/tools`) on every system.
const slashed = (f) => relative(testsDir, f).split(sep).join('/');
const files = walk(testsDir).filter(
  (f) => filters.length === 0 || filters.some((s) => slashed(f).includes(s)),
);
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.PAPO_TEST_CONCURRENCY ?? '2';
const coverage = process.env.PAPO_COVERAGE === '1';
const coverageTemp = join(root, 'coverage', 'tmp');
if (coverage) {
  rmSync(join(root, 'coverage'), { recursive: true, force: true });
  mkdirSync(coverageTemp, { recursive: true });
}
const started = Date.now();
const result = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    // A guard against a hung file, not a measure: a file that drives real agent CLIs can take a few
    // minutes on a loaded machine, and under coverage every process also writes its profile when it
    // exits (a CLI file runs papo a hundred times), so the bound is twice as long there.
    `--test-timeout=${coverage ? 600_000 : 300_000}`,
    // Under coverage: NODE_V8_COVERAGE into the environment of every child the tests start.
    // --import takes a module specifier: a file URL, which a Windows path (C:\\...) is not.
    ...(coverage ? ['--import', pathToFileURL(join(testsDir, 'support', 'coverage-env.js')).href] : []),
    '--import',
    pathToFileURL(join(testsDir, 'exit-guard.js')).href,
    ...files,
  ],
  { stdio: 'inherit', ...(coverage ? { env: { ...process.env, NODE_V8_COVERAGE: coverageTemp } } : {}) },
);
const status = result.status ?? 1;
if (!coverage) process.exit(status);

const minutes = ((Date.now() - started) / 60_000).toFixed(1);
const c8 = join(dirname(createRequire(import.meta.url).resolve('c8/package.json')), 'bin', 'c8.js');
console.log(`\ncoverage: the tests took ${minutes} min; mapping the coverage of every process to src/`);
// Modules that hold only types compile to `export {};`: nothing of them runs, so they are not
// counted (c8's `all` would count each of their lines as a line never run).
const typeOnly = walkJs(join(root, 'dist', 'src')).filter(
  (f) =>
    readFileSync(f, 'utf8')
      .replace(/\/\/.*$/gm, '')
      .trim() === 'export {};',
);
const gate = spawnSync(
  process.execPath,
  [
    c8,
    'report',
    '--check-coverage',
    ...typeOnly.flatMap((f) => ['--exclude', relative(root, f)]),
    // papo web's page runs in the browser (tests/web drives it in chromium), where V8's coverage
    // of node processes does not reach: counted, each of its lines would be a line never run.
    '--exclude',
    'dist/src/cli/web/page/**',
  ],
  { cwd: root, stdio: 'inherit' },
).status;
printFolderTable(JSON.parse(readFileSync(join(root, 'coverage', 'coverage-summary.json'), 'utf8')));
if (gate !== 0) console.error('coverage: under the thresholds of .c8rc.json (ADR 0078)');
process.exit(status !== 0 ? status : (gate ?? 1));

function walkJs(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walkJs(path));
    else if (name.endsWith('.js')) out.push(path);
  }
  return out;
}

/** Lines, branches and functions per folder of src/, from c8's json-summary. */
function printFolderTable(summary) {
  const folders = new Map();
  const add = (key, file) => {
    const f = folders.get(key) ?? { files: 0, lines: [0, 0], branches: [0, 0], functions: [0, 0] };
    f.files += 1;
    for (const m of ['lines', 'branches', 'functions']) {
      f[m][0] += file[m].covered;
      f[m][1] += file[m].total;
    }
    folders.set(key, f);
  };
  for (const [path, file] of Object.entries(summary)) {
    if (path === 'total') continue;
    add(relative(root, dirname(path)), file);
  }
  const pct = ([c, t]) => (t === 0 ? '100.00' : ((100 * c) / t).toFixed(2));
  const row = (cells) => `| ${cells.join(' | ')} |`;
  console.log(row(['folder', 'files', '% lines', '% branches', '% functions', 'lines uncovered']));
  console.log(row(['---', '---:', '---:', '---:', '---:', '---:']));
  for (const [key, f] of [...folders].sort(([a], [b]) => a.localeCompare(b)))
    console.log(
      row([key, f.files, pct(f.lines), pct(f.branches), pct(f.functions), f.lines[1] - f.lines[0]]),
    );
  const t = summary.total;
  console.log(
    row([
      '**all of src/**',
      folders.size === 0 ? 0 : [...folders.values()].reduce((n, f) => n + f.files, 0),
      t.lines.pct.toFixed(2),
      t.branches.pct.toFixed(2),
      t.functions.pct.toFixed(2),
      t.lines.total - t.lines.covered,
    ]),
  );
}
