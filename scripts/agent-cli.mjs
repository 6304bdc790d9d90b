#!/usr/bin/env node
// Installs one pinned agent CLI for the tests in tests/claude-code/ and tests/clients/, outside the
// package, and prints the path of its executable (the only line on stdout). Idempotent: a cached
// install that answers `--version` with the pinned version is used as it is.
//
//   node scripts/agent-cli.mjs <client>            install if needed, print the path
//   node scripts/agent-cli.mjs <client> --check    print the path if installed; exit 1 if not
//   node scripts/agent-cli.mjs --all               install every client (CI), one line each
//
// <client> is one of the keys of CLIENTS below. Where: $PAPO_AGENT_CLI_CACHE/<client>/<version>,
// else ~/.cache/papo-agent-cli/<client>/<version> ($XDG_CACHE_HOME is honoured). Which version: the
// table, or $PAPO_<CLIENT>_VERSION (e.g. PAPO_CODEX_VERSION) to try another one. None of them is
// ever a dependency of papo: together they weigh about a gigabyte.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { installIntoPrefix } from './prefix-install.mjs';

/** The agent CLIs papo is proven with, pinned (docs/status.md says when each was run). */
export const CLIENTS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  opencode: { pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  qwen: { pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen' },
};

const cacheRoot =
  process.env.PAPO_AGENT_CLI_CACHE ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'papo-agent-cli');

const binOf = (prefix, client) => join(prefix, 'node_modules', '.bin', CLIENTS[client].bin);
const versionOf = (client) => process.env[`PAPO_${client.toUpperCase()}_VERSION`] || CLIENTS[client].version;

/** Does the install at `prefix` run and report the wanted version? */
function works(prefix, client) {
  const bin = binOf(prefix, client);
  if (!existsSync(bin)) return false;
  // A HOME of its own: `--version` must not read or write the user's state.
  const home = join(prefix, 'version-home');
  mkdirSync(home, { recursive: true });
  // This Node first on PATH, as the tests run the clients: a `#!/usr/bin/env node` CLI (Codex CLI,
  // Gemini CLI, Qwen Code) must not be judged on an older node found first on the caller's PATH.
  const r = spawnSync(bin, ['--version'], {
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
    },
  });
  const wanted = versionOf(client);
  return (
    r.status === 0 && new RegExp(`(^|[^0-9.])${wanted.replaceAll('.', '\\.')}([^0-9.]|$)`).test(r.stdout)
  );
}

/** Installs `client` if needed; returns the path of its executable, or throws with one line. */
function install(client, checkOnly) {
  const version = versionOf(client);
  const dir = join(cacheRoot, client, version);
  if (checkOnly) {
    if (!works(dir, client)) throw new Error(`${client} ${version} is not installed in ${dir}`);
    return binOf(dir, client);
  }
  installIntoPrefix(
    dir,
    `${CLIENTS[client].pkg}@${version}`,
    (prefix) => works(prefix, client),
    `${client} ${version}`,
  );
  return binOf(dir, client);
}

const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const wanted = args.includes('--all') ? Object.keys(CLIENTS) : args.filter((a) => !a.startsWith('--'));
if (wanted.length === 0 || wanted.some((c) => !(c in CLIENTS))) {
  process.stderr.write(
    `usage: node scripts/agent-cli.mjs <${Object.keys(CLIENTS).join('|')}>|--all [--check]\n`,
  );
  process.exit(2);
}
let failed = false;
for (const client of wanted) {
  try {
    process.stdout.write(`${install(client, checkOnly)}\n`);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
