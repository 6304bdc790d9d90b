// Gemini CLI: `gemini mcp add --scope <user|project> ... papo <papo> mcp`, which writes papo's entry
// under mcpServers in ~/.gemini/settings.json (user; $GEMINI_CLI_HOME instead of HOME when set) or
// <project>/.gemini/settings.json (project), keeping every other key and the file's comments, and
// replacing papo's entry when it is there. Measured with Gemini CLI 0.61.0 (tests/clients/gemini.test.ts):
// - "trust": true on papo's entry: its tools run without a confirmation, which headless runs
//   (gemini -p) refuse to ask for. Papo's entry only; never folder trust, never a global setting.
// - "timeout": 1210000 (ms): Gemini CLI cuts a tool call after the entry's timeout, 10 min by
//   default; papo's `wait` runs up to 1200 s.
// - Gemini CLI starts MCP servers with its environment minus every variable whose name holds TOKEN,
//   KEY, SECRET, AUTH... (PAPO_SIGNAL_TOKEN), but expands "$NAME" in the entry's env from its own
//   environment: secrets are written as such references, never as values.
// - It starts stdio servers only in a trusted folder: the person trusts the project folder when
//   Gemini CLI asks (papo install says so and trusts nothing itself).
// `gemini mcp add` parses the options it knows (-e, -s, -t, -d, -H...) even after the command, and
// cuts a -e value at its second "=", so a PAPO_INSTALL_COMMAND with options of its own (docker run
// -i --rm -e ...), or a value with "=" in it (an address with #pin=), is written into the file
// directly instead, the same entry.
// In scope project the file is the checkout's, and Gemini CLI writes through a link planted there
// (measured: `.gemini/settings.json -> ~/.docker/config.json` was overwritten): papo install refuses
// a link before it runs gemini mcp add or writes the file itself (config-file.ts, ADR 0094).
import { join } from 'node:path';
import { messageOf } from '../../client/errors.js';
import type { AgentClient, InstallTarget } from './agent-client.js';
import { executableNames, runClient } from './client-process.js';
import { checkConfigPath, readConfigFile, writeConfigFile } from './config-file.js';
import { type McpEntry, shellQuote } from './entry.js';
import { mcpServersRegistration } from './registration.js';

/** Milliseconds: longer than papo's longest `wait` (1200 s), with a margin for the answer. */
export const GEMINI_TIMEOUT_MS = 1_210_000;

/** The `mcpServers.papo` object papo install writes. */
export function geminiEntry(entry: McpEntry, scope: string): Record<string, unknown> {
  const env: Record<string, string> = scope === 'project' ? {} : { ...entry.env };
  for (const name of entry.passEnv) env[name] = `$${name}`;
  return {
    command: entry.command,
    args: entry.args,
    ...(Object.keys(env).length > 0 ? { env } : {}),
    timeout: GEMINI_TIMEOUT_MS,
    trust: true,
  };
}

/** The settings file of `scope`. */
export function geminiSettingsFile(target: Pick<InstallTarget, 'scope' | 'cwd' | 'env'>): string {
  if (target.scope === 'project') return join(target.cwd, '.gemini', 'settings.json');
  const home = target.env.GEMINI_CLI_HOME || target.env.HOME || target.env.USERPROFILE || '';
  return join(home, '.gemini', 'settings.json');
}

/** Options of `gemini mcp add` (0.61.0) that it would take from papo's command line. */
const ADD_OPTIONS =
  /^-(d|s|t|e|H|h|-debug|-scope|-transport|-type|-env|-header|-timeout|-trust|-description|-include-tools|-exclude-tools|-help)(=|$)/;

/**
 * Can `gemini mcp add` carry this entry as it is? Not a command line with options of its own, nor
 * a value with a second "=": `-e K=V` keeps V only up to it (measured with 0.61.0: PAPO_SIGNAL
 * `wss://host/#pin=sha256/…` became `wss://host/#pin`).
 */
function addCarries(entry: McpEntry, scope: string): boolean {
  const env = (geminiEntry(entry, scope).env ?? {}) as Record<string, string>;
  return (
    ![entry.command, ...entry.args].some((word) => ADD_OPTIONS.test(word)) &&
    !Object.values(env).some((value) => value.includes('='))
  );
}

function addArgs(entry: McpEntry, scope: string): string[] {
  const env = Object.entries((geminiEntry(entry, scope).env ?? {}) as Record<string, string>);
  return [
    'mcp',
    'add',
    '--scope',
    scope,
    ...env.flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    '--timeout',
    String(GEMINI_TIMEOUT_MS),
    '--trust',
    entry.name,
    entry.command,
    ...entry.args,
  ];
}

/** Writes papo's entry into `file`, keeping every other key and the file's mode; atomic. */
function writeEntry(file: string, entry: Record<string, unknown>, target: InstallTarget): void {
  const { t } = target;
  const read = readConfigFile(file, target);
  const text = read?.text ?? '';
  let settings: Record<string, unknown> = {};
  if (text.trim() !== '') {
    try {
      settings = JSON.parse(text);
    } catch (err) {
      throw new Error(t.geminiNotJson(file, messageOf(err)));
    }
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
      throw new Error(t.geminiNotJson(file, 'not an object'));
  }
  const servers = settings.mcpServers;
  settings.mcpServers = {
    ...(typeof servers === 'object' && servers !== null ? servers : {}),
    papo: entry,
  };
  writeConfigFile(file, `${JSON.stringify(settings, null, 2)}\n`, read?.mode ?? 0o600, target);
}

export const gemini: AgentClient = {
  id: 'gemini',
  label: 'Gemini CLI',
  executables: executableNames('gemini', process.platform),
  // user first: the project's .gemini/settings.json is usually committed and shared.
  scopes: ['user', 'project'],
  async registration(target) {
    return mcpServersRegistration((scope) => geminiSettingsFile({ ...target, scope }));
  },
  print(entry, target) {
    const json = { mcpServers: { [entry.name]: geminiEntry(entry, target.scope) } };
    return [`# ${geminiSettingsFile(target)}`, JSON.stringify(json, null, 2)];
  },
  byHand(entry, target) {
    if (!addCarries(entry, target.scope)) return this.print(entry, target);
    return [`  ${['gemini', ...addArgs(entry, target.scope)].map(shellQuote).join(' ')}`];
  },
  install(entry, target, exe) {
    const { t, scope } = target;
    const file = geminiSettingsFile(target);
    if (addCarries(entry, scope)) {
      // The client's own file: the person's in scope user, the checkout's in scope project.
      if (scope === 'project') checkConfigPath(file, target);
      const result = runClient(exe, addArgs(entry, scope), {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: target.env,
        cwd: target.cwd,
      });
      if (result.error || result.status !== 0)
        throw new Error(
          t.geminiFailed(result.error ? result.error.message : `exit ${result.status ?? result.signal}`),
        );
    } else {
      writeEntry(file, geminiEntry(entry, scope), target);
    }
    const homeNote =
      scope === 'project' && entry.env.PAPO_HOME ? [t.geminiHomeNote(entry.env.PAPO_HOME)] : [];
    return [
      t.geminiInstalled(scope, file),
      ...t.geminiEntryNotes(entry.passEnv),
      ...homeNote,
      t.geminiFolderTrust,
      t.openGemini,
    ];
  },
};
