// Codex CLI: `codex mcp add papo --env K=V... -- <papo> mcp` writes [mcp_servers.papo] into
// $CODEX_HOME/config.toml (default ~/.codex/config.toml), replacing an entry of that name. It has no
// flag for the three settings papo needs, so they are then added to papo's table, and only there:
//   - tool_timeout_sec = 1210: Codex ends a tool call after 300 s by default, and `wait` may take
//     up to 1200 s;
//   - env_vars = [...]: Codex starts MCP servers with a small fixed environment (HOME, PATH), not
//     its own; secrets (PAPO_SIGNAL_TOKEN, PAPO_ICE_SERVERS) are passed on by name, never written;
//   - tools.<tool>.approval_mode = "approve" for papo's tools that are not read-only (send, wait,
//     inbox): `codex exec` refuses them otherwise ("requires approval, but approval policy is
//     never"), and the interactive UI asks before each call. Read-only tools run without it.
// The file is then read back by `codex mcp get papo --json`; if Codex does not see the settings,
// the file is put back as `codex mcp add` left it. papo reads and writes it without following a
// link, and refuses one before codex mcp add runs, so that a refusal changes nothing (ADR 0094).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { TOOLS } from '../../mcp/tool-list.js';
import type { AgentClient, InstallTarget } from './agent-client.js';
import { executableNames, runClient } from './client-process.js';
import { checkConfigPath, readConfigFile, writeConfigFile } from './config-file.js';
import { type McpEntry, shellQuote } from './entry.js';
import { commandLine } from './registration.js';

/** Seconds Codex lets one papo tool call run: `wait` takes up to 1200 s, plus a margin. */
export const CODEX_TOOL_TIMEOUT_SEC = 1210;

/** papo's tools that Codex asks approval for (those not marked read-only). */
export const CODEX_APPROVED_TOOLS: readonly string[] = TOOLS.filter(
  (tool) => tool.annotations.readOnlyHint !== true,
).map((tool) => tool.name);

/** The configuration file Codex reads and `codex mcp add` writes. */
export function codexConfigPath(env: NodeJS.ProcessEnv): string {
  const home = env.CODEX_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.codex');
  return join(home, 'config.toml');
}

/** A TOML basic string (JSON's escapes are a subset of TOML's). */
const str = (value: string): string => JSON.stringify(value);
const strArray = (values: readonly string[]): string => `[${values.map(str).join(', ')}]`;
/** A TOML key: bare when it can be. */
const key = (name: string): string => (/^[A-Za-z0-9_-]+$/.test(name) ? name : str(name));

/** The lines papo adds to its table after `codex mcp add`. */
function extraLines(entry: McpEntry): string[] {
  const approvals = CODEX_APPROVED_TOOLS.map((name) => `${key(name)} = { approval_mode = "approve" }`);
  return [
    `tool_timeout_sec = ${CODEX_TOOL_TIMEOUT_SEC}`,
    ...(entry.passEnv.length > 0 ? [`env_vars = ${strArray(entry.passEnv)}`] : []),
    `tools = { ${approvals.join(', ')} }`,
  ];
}

/** papo's whole entry, as it ends up in config.toml. */
function tomlEntry(entry: McpEntry): string[] {
  const env = Object.entries(entry.env);
  return [
    `[mcp_servers.${entry.name}]`,
    `command = ${str(entry.command)}`,
    `args = ${strArray(entry.args)}`,
    ...extraLines(entry),
    ...(env.length > 0
      ? ['', `[mcp_servers.${entry.name}.env]`, ...env.map(([k, v]) => `${key(k)} = ${str(v)}`)]
      : []),
  ];
}

function addArgs(entry: McpEntry): string[] {
  const env = Object.entries(entry.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  return ['mcp', 'add', entry.name, ...env, '--', entry.command, ...entry.args];
}

/** The header of papo's table as Codex writes it (`[mcp_servers.papo]`, spaces and quotes allowed). */
function headerPattern(name: string): RegExp {
  return new RegExp(
    `^[ \\t]*\\[[ \\t]*mcp_servers[ \\t]*\\.[ \\t]*(?:${name}|"${name}"|'${name}')[ \\t]*\\][ \\t]*(?:#.*)?$`,
    'm',
  );
}

function run(exe: string, args: string[], target: InstallTarget) {
  return runClient(exe, args, {
    env: target.env,
    cwd: target.cwd,
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Does Codex read papo's entry with the settings papo added? */
function codexSees(exe: string, entry: McpEntry, target: InstallTarget): boolean {
  const r = run(exe, ['mcp', 'get', entry.name, '--json'], target);
  if (r.error || r.status !== 0) return false;
  try {
    const got = JSON.parse(r.stdout);
    const envVars: unknown[] = got?.transport?.env_vars ?? [];
    return (
      got?.tool_timeout_sec === CODEX_TOOL_TIMEOUT_SEC &&
      entry.passEnv.every((name) => envVars.includes(name)) &&
      got?.transport?.command === entry.command
    );
  } catch {
    return false;
  }
}

export const codex: AgentClient = {
  id: 'codex',
  label: 'Codex CLI',
  executables: executableNames('codex', process.platform),
  scopes: ['user'],
  async registration(target) {
    const file = codexConfigPath(target.env);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return { registered: false, detail: '' };
    }
    const header = headerPattern('papo').exec(text);
    if (header === null) return { registered: false, detail: '' };
    // The table's own lines, up to the next table: `command` and `args` are TOML basic strings.
    const body = text.slice(header.index + header[0].length).split(/^[ \t]*\[/m)[0] ?? '';
    const value = (name: string) => {
      const m = new RegExp(`^[ \\t]*${name}[ \\t]*=[ \\t]*(.+)$`, 'm').exec(body);
      try {
        return m?.[1] === undefined ? undefined : JSON.parse(m[1]);
      } catch {
        return undefined;
      }
    };
    return {
      registered: true,
      // Bounded as registrationIn bounds it: a long `args` array is the file's, not ours to print whole.
      detail:
        `scope user (${file}): ${commandLine({ command: value('command'), args: value('args') })}`.slice(
          0,
          300,
        ),
    };
  },
  print(entry, target) {
    return [`# ${codexConfigPath(target.env)}`, ...tomlEntry(entry)];
  },
  byHand(entry, target) {
    return [
      `  ${['codex', ...addArgs(entry)].map(shellQuote).join(' ')}`,
      '',
      target.t.codexThenAdd(codexConfigPath(target.env)),
      '',
      ...extraLines(entry).map((line) => `  ${line}`),
    ];
  },
  install(entry, target, exe) {
    const { t } = target;
    const path = codexConfigPath(target.env);
    checkConfigPath(path, target);
    const added = run(exe, addArgs(entry), target);
    if (added.error || added.status !== 0) {
      const status = added.error ? added.error.message : `exit ${added.status ?? added.signal}`;
      const said = added.stderr
        .split(/\r?\n/)
        .filter((l) => l.trim() !== '' && !l.startsWith('WARNING:'))
        .slice(0, 3)
        .join(' / ');
      throw new Error(t.codexFailed(status, said));
    }
    const read = readConfigFile(path, target);
    const before = read?.text ?? '';
    const header = headerPattern(entry.name).exec(before);
    if (read === null || header === null) throw new Error(t.codexNoEntry(path));
    const at = header.index + header[0].length;
    const eol = before.includes('\r\n') ? '\r\n' : '\n';
    const text = `${before.slice(0, at)}${eol}${extraLines(entry).join(eol)}${before.slice(at)}`;
    writeConfigFile(path, text, read.mode, target);
    if (!codexSees(exe, entry, target)) {
      writeConfigFile(path, before, read.mode, target);
      throw new Error(t.codexNoEntry(path));
    }
    return [
      t.codexInstalled(path),
      t.codexTimeout(CODEX_TOOL_TIMEOUT_SEC),
      t.codexApproval(CODEX_APPROVED_TOOLS),
      ...(entry.passEnv.length > 0 ? [t.codexPassEnv(entry.passEnv)] : []),
      t.openCodex,
    ];
  },
};
