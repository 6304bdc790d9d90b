#!/usr/bin/env node
// Runs the compiled test files with node:test. Node 20's `node --test` takes paths, not globs,
// so this finds them. Usage: node scripts/run-tests.mjs [substring ...] to run a subset.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
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
const files = walk(testsDir).filter(
  (f) => filters.length === 0 || filters.some((s) => relative(testsDir, f).includes(s)),
);
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.PAPO_TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    // A guard against a hung file, not a measure: a file that drives real agent CLIs can take a
    // few minutes on a loaded machine.
    '--test-timeout=300000',
    '--import',
    join(testsDir, 'exit-guard.js'),
    ...files,
  ],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
