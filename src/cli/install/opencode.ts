// opencode: no command registers a server without asking (`opencode mcp add` is interactive), so papo
// install edits its configuration file (measured with opencode 1.18.33, tests/clients/opencode.test.ts):
//   scope project: <project>/opencode.json (or opencode.jsonc when that is the one there), the file
//     opencode reads in that folder; scope user: $XDG_CONFIG_HOME/opencode/opencode.json (~/.config/…;
//     opencode.jsonc when there: opencode writes one itself on its first run, and it is read last).
// papo's entry is `mcp.papo = {type: "local", command: [papo, "mcp", ...], environment, timeout}`.
// opencode passes its own environment to the servers it starts; secrets are written as opencode's
// "{env:NAME}" references, never as values. `timeout` (ms) is how long a tool call may run (without
// it, opencode's default, reset by papo's progress notifications). opencode allows every tool by
// default, but a configuration that says `"permission": {"*": "ask"}` makes `opencode run` refuse
// papo's calls ("auto-rejecting"): papo's five tools, and only they, are allowed by name.
// The file is rewritten whole (every other key kept, in order), atomically, with its mode; a file
// that is not plain JSON (JSONC comments) is left alone, with an error saying what to add by hand.
// In scope project the file is the checkout's: read and written without following a link
// (config-file.ts, ADR 0094).
import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { messageOf } from '../../client/errors.js';
import { TOOL_NAMES } from '../../mcp/tool-list.js';
import type { AgentClient, InstallTarget } from './agent-client.js';
import { executableNames } from './client-process.js';
import { type ConfigText, readConfigFile, writeConfigFile } from './config-file.js';
import type { McpEntry } from './entry.js';
import { commandLine, registrationIn, upwards } from './registration.js';

/** How long a call of papo's tools may run: papo's longest wait (1200 s) and a margin. */
export const OPENCODE_TOOL_TIMEOUT_MS = 1_210_000;

/** The names opencode gives papo's tools (server name, "_", tool name), allowed in `permission`. */
export const OPENCODE_TOOL_NAMES = TOOL_NAMES.map((name) => `papo_${name}`);

type JsonObject = Record<string, unknown>;

/**
 * The configuration file of `scope`: the .jsonc when there is one (a link named so counts, and is
 * then refused rather than passed over), else the .json (created if missing).
 */
export function opencodeConfigFile(target: Pick<InstallTarget, 'scope' | 'cwd' | 'env'>): string {
  const dir =
    target.scope === 'user'
      ? join(target.env.XDG_CONFIG_HOME || join(target.env.HOME || homedir(), '.config'), 'opencode')
      : target.cwd;
  const jsonc = join(dir, 'opencode.jsonc');
  return isThere(jsonc) ? jsonc : join(dir, 'opencode.json');
}

function isThere(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** papo's entry under `mcp`: plain values written (not in scope project), secrets as references. */
export function opencodeEntry(entry: McpEntry, scope: string): JsonObject {
  const environment: Record<string, string> = scope === 'project' ? {} : { ...entry.env };
  for (const name of entry.passEnv) environment[name] = `{env:${name}}`;
  return {
    type: 'local',
    command: [entry.command, ...entry.args],
    ...(Object.keys(environment).length > 0 ? { environment } : {}),
    enabled: true,
    timeout: OPENCODE_TOOL_TIMEOUT_MS,
  };
}

/** `config` with papo's entry and papo's permissions set, every other key kept. */
export function withPapo(config: JsonObject, entry: McpEntry, scope: string): JsonObject {
  const out: JsonObject = { ...config };
  const mcp = isObject(config.mcp) ? { ...config.mcp } : {};
  mcp[entry.name] = opencodeEntry(entry, scope);
  out.mcp = mcp;
  // A string permission ("ask") is opencode's shorthand for {"*": "ask"}. The last matching rule
  // wins, so papo's names go after the others.
  const permission: JsonObject =
    typeof config.permission === 'string'
      ? { '*': config.permission }
      : isObject(config.permission)
        ? { ...config.permission }
        : {};
  for (const name of OPENCODE_TOOL_NAMES) delete permission[name];
  for (const name of OPENCODE_TOOL_NAMES) permission[name] = 'allow';
  out.permission = permission;
  return out;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readConfig(file: string, target: InstallTarget): { config: JsonObject; read: ConfigText | null } {
  const { t } = target;
  let read: ConfigText | null;
  try {
    read = readConfigFile(file, target);
  } catch (err) {
    // A link refused is said as such; a file the system cannot read, with the system's reason.
    if (err instanceof Error && 'errno' in err) throw new Error(t.opencodeUnreadable(file, messageOf(err)));
    throw err;
  }
  if (read === null) return { config: {}, read };
  const { text } = read;
  if (text.trim() === '') return { config: {}, read };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(t.opencodeNotJson(file));
  }
  if (!isObject(parsed)) throw new Error(t.opencodeNotJson(file));
  return { config: parsed, read };
}

export const opencode: AgentClient = {
  id: 'opencode',
  label: 'opencode',
  executables: executableNames('opencode', process.platform),
  scopes: ['project', 'user'],
  async registration(target) {
    // opencode reads the project's files from the folder upwards, then the user's.
    const project = upwards(target.cwd).flatMap((d) =>
      ['opencode.json', 'opencode.jsonc'].map((f) => ({
        scope: 'project',
        file: join(d, f),
        keys: ['mcp', 'papo'],
      })),
    );
    const user = opencodeConfigFile({ ...target, scope: 'user' });
    return registrationIn([...project, { scope: 'user', file: user, keys: ['mcp', 'papo'] }], commandLine);
  },
  print(entry, target) {
    const file = opencodeConfigFile(target);
    return [target.t.printAddTo(file), JSON.stringify(withPapo({}, entry, target.scope), null, 2)];
  },
  install(entry, target) {
    const { t, scope } = target;
    const file = opencodeConfigFile(target);
    const { config, read } = readConfig(file, target);
    const base = read === null ? { $schema: 'https://opencode.ai/config.json', ...config } : config;
    const text = `${JSON.stringify(withPapo(base, entry, scope), null, 2)}\n`;
    writeConfigFile(file, text, read?.mode ?? 0o600, target);
    const homeNote =
      scope === 'project' && entry.env.PAPO_HOME
        ? [t.installHomeNoteFor('opencode', entry.env.PAPO_HOME)]
        : [];
    return [
      t.installedIn('opencode', scope, file),
      t.opencodeAllowed(OPENCODE_TOOL_NAMES.join(', ')),
      t.installTimeout(OPENCODE_TOOL_TIMEOUT_MS / 1000),
      ...(entry.withheld.length > 0 ? [t.installWithheld('opencode', entry.withheld)] : []),
      ...homeNote,
      t.installOpen('opencode', 'opencode'),
    ];
  },
};
