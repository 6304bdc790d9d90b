// One npm package installed into a cache folder of its own, for CI's tools outside the package:
// the agent CLIs (agent-cli.mjs) and the Node releases (node-major.mjs). Into a temporary folder
// beside `dir`, then renamed: two processes installing at once do not see a half install, and an
// interrupted one leaves nothing that looks whole.
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Installs `spec` (`name@version`) into `dir` unless `works(dir)` already; throws with one line,
 * naming `what`, when npm fails or the install does not pass `works`.
 */
export function installIntoPrefix(dir, spec, works, what) {
  if (works(dir)) return;
  mkdirSync(dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  process.stderr.write(`installing ${spec} into ${dir}\n`);
  const windows = process.platform === 'win32';
  const r = spawnSync(
    windows ? 'npm.cmd' : 'npm',
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
      spec,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], shell: windows, timeout: 600_000 },
  );
  if (r.status !== 0 || !works(tmp)) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`could not install ${what} (npm ${r.error?.message ?? `exit ${r.status}`})`);
  }
  try {
    renameSync(tmp, dir);
  } catch (err) {
    // Another process finished first: keep its install.
    rmSync(tmp, { recursive: true, force: true });
    if (!works(dir)) throw err;
  }
}
