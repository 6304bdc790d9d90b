#!/usr/bin/env node
// `npm run test:mutation [module ...]`: mutation testing of the modules in scripts/mutation-modules.mjs
// (ADR 0080), one Stryker run per module, one after the other (a shared 2-core machine). Prints each
// module's score, time and surviving mutants, then the table that docs/reliability.md carries, and
// fails when a module scores under 80 %. Stryker's own output (its progress while it runs) goes to reports/mutation/<module>.log.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { modules } from './mutation-modules.mjs';

// fileURLToPath, not the URL's pathname: on Windows that is /C:/... (and %20 for a space).
const root = fileURLToPath(new URL('..', import.meta.url));
const goal = 80;
const wanted = process.argv.slice(2);
const unknown = wanted.filter((k) => !(k in modules));
if (unknown.length > 0) {
  console.error(`unknown module(s): ${unknown.join(', ')}; known: ${Object.keys(modules).join(', ')}`);
  process.exit(2);
}
const keys = wanted.length > 0 ? wanted : Object.keys(modules);
const reports = join(root, 'reports', 'mutation');
mkdirSync(reports, { recursive: true });
const stryker = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');

const rows = [];
const started = Date.now();
for (const key of keys) {
  const json = join(reports, `${key}.json`);
  rmSync(json, { force: true });
  const log = join(reports, `${key}.log`);
  process.stdout.write(`mutation: ${key} (${modules[key].mutate.join(', ')}) ... `);
  const t0 = Date.now();
  const out = openSync(log, 'w');
  const run = spawnSync(process.execPath, [stryker, 'run', 'stryker.config.mjs'], {
    cwd: root,
    env: { ...process.env, PAPO_MUTATE: key, FORCE_COLOR: '0' },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const seconds = Math.round((Date.now() - t0) / 1000);
  if (run.status !== 0) {
    process.stdout.write(`Stryker failed (${log})\n`);
    console.error(readFileSync(log, 'utf8').split('\n').slice(-30).join('\n'));
    rows.push({ key, seconds, failed: true });
    continue;
  }
  const counts = {};
  const survivors = [];
  for (const [file, result] of Object.entries(JSON.parse(readFileSync(json, 'utf8')).files)) {
    for (const m of result.mutants) {
      counts[m.status] = (counts[m.status] ?? 0) + 1;
      if (m.status === 'Survived' || m.status === 'NoCoverage')
        survivors.push(
          `  ${m.status === 'NoCoverage' ? 'not reached' : 'survived'}: ${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName}: ${m.replacement ?? ''}`,
        );
    }
  }
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const undetected = (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  const score = detected + undetected === 0 ? 100 : (100 * detected) / (detected + undetected);
  rows.push({ key, seconds, counts, detected, undetected, score });
  process.stdout.write(`${score.toFixed(2)} % (${detected}/${detected + undetected}) in ${seconds} s\n`);
  for (const s of survivors) console.log(s.replace(/\s+/g, ' ').slice(0, 200));
}

const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\nmutation: ${keys.length} module(s) in ${minutes} min\n`);
console.log(
  '| module | tests run against each mutant | mutants | killed | timeout | survived | not reached | score | time |',
);
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  const tests = modules[r.key].tests.join(', ');
  if (r.failed) console.log(`| ${r.key} | ${tests} | Stryker failed | | | | | | ${r.seconds} s |`);
  else
    console.log(
      `| ${r.key} | ${tests} | ${r.detected + r.undetected} | ${r.counts.Killed ?? 0} | ${r.counts.Timeout ?? 0} | ${r.counts.Survived ?? 0} | ${r.counts.NoCoverage ?? 0} | ${r.score.toFixed(2)} % | ${r.seconds} s |`,
    );
}
const low = rows.filter((r) => r.failed || r.score < goal);
if (low.length > 0) {
  console.error(`mutation: under ${goal} %: ${low.map((r) => r.key).join(', ')}`);
  process.exit(1);
}
