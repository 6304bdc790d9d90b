#!/usr/bin/env node
// Installs the pinned Claude Code for the tests in tests/claude-code/, outside the package, and
// prints the path of its `claude` executable (the only line on stdout). Idempotent: a cached install
// that answers `--version` with the pinned version is used as it is.
//
//   node scripts/claude-code.mjs            install if needed, print the path
//   node scripts/claude-code.mjs --check    print the path if installed; exit 1 if not (no network)
//
// Where: $PAPO_CLAUDE_CODE_CACHE/<version>, else ~/.cache/papo-claude-code/<version>
// ($XDG_CACHE_HOME is honoured). Which version: CLAUDE_CODE_VERSION below, or
// $PAPO_CLAUDE_CODE_VERSION to try another one (docs/mcp.md, "Claude Code itself").
// Claude Code is never a dependency of papo: the package is ~400 MB with its native binary.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Claude Code the harness is pinned to. */
export const CLAUDE_CODE_VERSION = '2.1.332';

const version = process.env.PAPO_CLAUDE_CODE_VERSION || CLAUDE_CODE_VERSION;
const cacheRoot =
  process.env.PAPO_CLAUDE_CODE_CACHE ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'papo-claude-code');
const dir = join(cacheRoot, version);
const binOf = (prefix) => join(prefix, 'node_modules', '.bin', 'claude');

/** Does the install at `prefix` run and report the wanted version? */
function works(prefix) {
  const bin = binOf(prefix);
  if (!existsSync(bin)) return false;
  // A HOME of its own: `--version` must not read or write the user's Claude Code state.
  const home = join(prefix, 'version-home');
  mkdirSync(home, { recursive: true });
  const r = spawnSync(bin, ['--version'], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', HOME: home },
  });
  return r.status === 0 && r.stdout.startsWith(`${version} `);
}

if (works(dir)) {
  process.stdout.write(`${binOf(dir)}\n`);
  process.exit(0);
}
if (process.argv.includes('--check')) {
  process.stderr.write(`Claude Code ${version} is not installed in ${dir}\n`);
  process.exit(1);
}

// Into a folder of its own, then renamed: two test processes installing at once do not see a half
// install, and an interrupted install leaves nothing that looks complete.
mkdirSync(cacheRoot, { recursive: true });
const tmp = `${dir}.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
process.stderr.write(`installing @anthropic-ai/claude-code@${version} into ${dir}\n`);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const r = spawnSync(
  npm,
  [
    'install',
    '--prefix',
    tmp,
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    '--fetch-retries=1',
    '--fetch-timeout=60000',
    `@anthropic-ai/claude-code@${version}`,
  ],
  { stdio: ['ignore', 'ignore', 'inherit'], shell: process.platform === 'win32', timeout: 600_000 },
);
if (r.status !== 0 || !works(tmp)) {
  rmSync(tmp, { recursive: true, force: true });
  process.stderr.write(
    `could not install Claude Code ${version} (npm ${r.error?.message ?? `exit ${r.status}`})\n`,
  );
  process.exit(1);
}
try {
  renameSync(tmp, dir);
} catch (err) {
  // Another process finished first: keep its install.
  rmSync(tmp, { recursive: true, force: true });
  if (!works(dir)) throw err;
}
process.stdout.write(`${binOf(dir)}\n`);
