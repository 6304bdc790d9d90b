// Claude Code: `claude mcp add --scope <scope> papo -- <papo> mcp` (the book's papo install). Claude
// Code passes its own environment to the servers it starts, so secrets need no mention; plain
// variables are written with -e, except in scope project, whose .mcp.json is committed and shared.
import { spawnSync } from 'node:child_process';
import type { AgentClient } from './clients.js';
import { type McpEntry, shellQuote } from './entry.js';

function addArgs(entry: McpEntry, scope: string): string[] {
  const env = scope === 'project' ? [] : Object.entries(entry.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return ['mcp', 'add', ...env, '--scope', scope, entry.name, '--', entry.command, ...entry.args];
}

export const claude: AgentClient = {
  id: 'claude',
  label: 'Claude Code',
  executables: process.platform === 'win32' ? ['claude', 'claude.cmd'] : ['claude'],
  scopes: ['local', 'user', 'project'],
  print(entry, target) {
    const env = target.scope === 'project' ? {} : entry.env;
    const json = {
      mcpServers: {
        [entry.name]: {
          command: entry.command,
          args: entry.args,
          ...(Object.keys(env).length > 0 ? { env } : {}),
        },
      },
    };
    return [JSON.stringify(json, null, 2)];
  },
  byHand(entry, target) {
    return [`  ${['claude', ...addArgs(entry, target.scope)].map(shellQuote).join(' ')}`];
  },
  install(entry, target, exe) {
    const { t, scope } = target;
    const result = spawnSync(exe, addArgs(entry, scope), {
      stdio: 'inherit',
      env: target.env,
      cwd: target.cwd,
      shell: exe.endsWith('.cmd'), // Windows runs .cmd files through the shell only
    });
    if (result.error || result.status !== 0) {
      const status = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
      throw new Error(t.claudeFailed(status, scope));
    }
    const homeNote =
      scope === 'project' && entry.env.PAPO_HOME ? [t.installHomeNote(entry.env.PAPO_HOME)] : [];
    return [t.installed(scope), ...homeNote, t.openClaude];
  },
};
