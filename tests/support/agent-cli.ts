// A real agent CLI for the tests in tests/claude-code/ and tests/clients/: the pinned version that
// scripts/agent-cli.mjs installs into its cache (never a dependency of papo), or one line saying why
// the tests that need it skip.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export type AgentClient = 'claude' | 'codex' | 'gemini' | 'opencode' | 'qwen';

export interface AgentCli {
  /** The executable. */
  bin: string;
  /** Its folder, to put on PATH (papo install looks for the client there). */
  binDir: string;
  /** The version it reports. */
  version: string;
}

const installed = new Map<AgentClient, AgentCli | { skip: string }>();

/**
 * The pinned `client`, installed into its cache when it is not there yet (up to a few minutes and
 * a few hundred MB the first time), or `{ skip }` with one line saying why the tests cannot run.
 */
export function agentCli(client: AgentClient): AgentCli | { skip: string } {
  const known = installed.get(client);
  if (known !== undefined) return known;
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'agent-cli.mjs'), client], {
    encoding: 'utf8',
    timeout: 660_000,
  });
  const bin = r.stdout.trim().split('\n').pop() ?? '';
  let found: AgentCli | { skip: string };
  if (r.status !== 0 || !existsSync(bin)) {
    const why = r.error?.message ?? (r.stderr.trim().split('\n').pop() || `exit ${r.status}`);
    found = { skip: `${client} is not installed and could not be (${why})` };
  } else {
    // Its own HOME, as the install script's check: --version must not touch the user's state.
    const home = join(dirname(bin), '..', '..', 'version-home');
    mkdirSync(home, { recursive: true });
    const v = spawnSync(bin, ['--version'], {
      encoding: 'utf8',
      timeout: 60_000,
      // This Node first, as clientSandbox puts it for the runs (Qwen Code's bin is `#!/usr/bin/env node`).
      env: {
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
      },
    });
    const version = /\d+\.\d+\.\d+/.exec(v.stdout)?.[0] ?? '';
    found = { bin, binDir: dirname(bin), version };
  }
  installed.set(client, found);
  return found;
}
