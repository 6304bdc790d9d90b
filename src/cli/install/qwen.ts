// Qwen Code: `qwen mcp add --scope <scope> -e K=V... --timeout <ms> --trust papo <papo> -- mcp ...`
// writes mcpServers.papo into .qwen/settings.json of the project (scope project) or ~/.qwen/ (user),
// and replaces papo's entry when it is there (measured with Qwen Code 0.24.4,
// tests/clients/qwen.test.ts). `--` keeps papo's own arguments (--profile) from being read as qwen's.
//   - scope project: Qwen Code (0.24; not 0.15) starts a server of the project's .qwen/settings.json
//     only once the person has approved it (`qwen mcp approve <name>`, kept in ~/.qwen/
//     mcpApprovals.json for that folder and bound to a hash of the entry); until then `qwen mcp list`
//     says "Pending approval" and `qwen -p` runs without papo's tools. papo install approves papo's
//     entry, the one it has just written, on the person's own command: nothing else in the
//     project, and a later change to the entry (someone else's commit) asks again.
//   - trust: true for papo's entry only: without it `qwen -p` refuses every papo tool that is not
//     read-only ("requires user approval but cannot execute in non-interactive mode").
//   - timeout (ms) is how long a tool call may run, 600 s by default and not reset by progress
//     notifications: papo's wait lasts up to 1200 s. 0.24 also cuts a call that sends nothing for
//     300 s (QWEN_CODE_MCP_TOOL_IDLE_TIMEOUT_MS); papo's wait sends progress every 15 s, which
//     starts that count again, so nothing is written for it.
//   - Qwen Code passes its whole environment to the servers it starts (no variable dropped, whatever
//     its name), so secrets need no mention; its "$NAME" expansion of settings would leave the text
//     "$NAME" in place when the variable is not set, so none is written.
// In scope project the settings are the checkout's, and qwen mcp add writes through a link planted
// there (measured: `.qwen -> ~/.docker` got a settings.json): papo install refuses a link before it
// runs qwen mcp add (config-file.ts, ADR 0094).
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentClient, InstallTarget } from './agent-client.js';
import { executableNames, runClient } from './client-process.js';
import { checkConfigPath } from './config-file.js';
import { type McpEntry, shellQuote } from './entry.js';
import { mcpServersRegistration } from './registration.js';

/** How long a call of papo's tools may run: papo's longest wait (1200 s) and a margin. */
export const QWEN_TOOL_TIMEOUT_MS = 1_210_000;

/** The settings file `qwen mcp add --scope <scope>` writes. */
export function qwenSettingsFile(target: Pick<InstallTarget, 'scope' | 'cwd' | 'env'>): string {
  const dir = target.scope === 'user' ? target.env.HOME || homedir() : target.cwd;
  return join(dir, '.qwen', 'settings.json');
}

function plainEnv(entry: McpEntry, scope: string): Record<string, string> {
  return scope === 'project' ? {} : entry.env;
}

/** `qwen mcp approve papo`: run in the project folder, after qwen mcp add (scope project only). */
function approveArgs(entry: McpEntry): string[] {
  return ['mcp', 'approve', entry.name];
}

function addArgs(entry: McpEntry, scope: string): string[] {
  const env = Object.entries(plainEnv(entry, scope)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return [
    'mcp',
    'add',
    '--scope',
    scope,
    ...env,
    '--timeout',
    String(QWEN_TOOL_TIMEOUT_MS),
    '--trust',
    entry.name,
    entry.command,
    '--',
    ...entry.args,
  ];
}

export const qwen: AgentClient = {
  id: 'qwen',
  label: 'Qwen Code',
  executables: executableNames('qwen', process.platform),
  scopes: ['project', 'user'],
  async registration(target) {
    return mcpServersRegistration((scope) => qwenSettingsFile({ ...target, scope }));
  },
  print(entry, target) {
    const env = plainEnv(entry, target.scope);
    const json = {
      mcpServers: {
        [entry.name]: {
          command: entry.command,
          args: entry.args,
          ...(Object.keys(env).length > 0 ? { env } : {}),
          timeout: QWEN_TOOL_TIMEOUT_MS,
          trust: true,
        },
      },
    };
    const lines = [target.t.printAddTo(qwenSettingsFile(target)), JSON.stringify(json, null, 2)];
    return target.scope === 'project' ? [...lines, target.t.qwenApproveByHand] : lines;
  },
  byHand(entry, target) {
    const add = `  ${['qwen', ...addArgs(entry, target.scope)].map(shellQuote).join(' ')}`;
    if (target.scope !== 'project') return [add];
    return [add, `  ${['qwen', ...approveArgs(entry)].map(shellQuote).join(' ')}`];
  },
  install(entry, target, exe) {
    const { t, scope } = target;
    if (scope === 'project') checkConfigPath(qwenSettingsFile(target), target);
    const result = runClient(exe, addArgs(entry, scope), {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: target.env,
      cwd: target.cwd,
      timeout: 120_000,
    });
    if (result.error || result.status !== 0) {
      const status = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
      throw new Error(t.qwenFailed(status, scope));
    }
    const approved = scope === 'project' ? approve(entry, target, exe) : [];
    const homeNote =
      scope === 'project' && entry.env.PAPO_HOME
        ? [t.installHomeNoteFor('Qwen Code', entry.env.PAPO_HOME)]
        : [];
    return [
      t.installedIn('Qwen Code', scope, qwenSettingsFile(target)),
      ...approved,
      t.qwenTrusted,
      t.installTimeout(QWEN_TOOL_TIMEOUT_MS / 1000),
      ...(entry.withheld.length > 0 ? [t.installWithheld('Qwen Code', entry.withheld)] : []),
      ...homeNote,
      t.installOpen('Qwen Code', 'qwen'),
      t.qwenPush,
    ];
  },
};

/**
 * `qwen mcp approve papo` in the project folder, so that Qwen Code starts papo's entry of the
 * project's settings without asking (qwen -p cannot ask). A Qwen Code without approvals (0.15)
 * answers "Unknown arguments: approve": it starts the entry anyway, so nothing is said.
 */
function approve(entry: McpEntry, target: InstallTarget, exe: string): string[] {
  const result = runClient(exe, approveArgs(entry), {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: target.env,
    cwd: target.cwd,
    timeout: 120_000,
  });
  if (!result.error && result.status === 0) return [target.t.qwenApproved];
  if (/Unknown arguments?:.*\bapprove\b/.test(result.stderr ?? '')) return [];
  const status = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
  throw new Error(target.t.qwenApproveFailed(status));
}
