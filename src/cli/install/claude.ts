// Claude Code: `claude mcp add --scope <scope> papo -- <papo> mcp` (the book's papo install). Claude
// Code passes its own environment to the servers it starts, so secrets need no mention; plain
// variables are written with -e, except in scope project, whose .mcp.json is committed and shared.
import { spawn, spawnSync } from 'node:child_process';
import type { AgentClient, Registration, RegistrationTarget } from './clients.js';
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
  registration: registeredWithClaude,
};

/**
 * `claude mcp get papo` (papo doctor, ADR 0072): exit 0 with the entry when papo is registered in
 * a scope that applies here, "No MCP server named ..." and a non-zero exit when not. Claude Code
 * checks the entry by starting it: beside the profile's papo mcp that one finds the profile locked.
 */
function registeredWithClaude(target: RegistrationTarget, exe: string): Promise<Registration | null> {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(exe, ['mcp', 'get', 'papo'], {
      cwd: target.cwd,
      env: target.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: exe.endsWith('.cmd'),
    });
    child.stdout.on('data', (d) => {
      if (out.length < 64_000) out += d;
    });
    child.stderr.on('data', (d) => {
      if (out.length < 64_000) out += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, target.timeoutMs);
    child.on('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes
      const text = out.replace(/\u001b\[[0-9;]*m/g, '');
      const line = (name: string) => new RegExp(`^\\s*${name}:\\s*(.+)$`, 'm').exec(text)?.[1]?.trim();
      if (status === 0) {
        const detail = [line('Scope'), line('Status')].filter((x) => x !== undefined).join('; ');
        resolve({ registered: true, detail: detail.slice(0, 200) });
      } else if (/no mcp server/i.test(text)) {
        resolve({ registered: false, detail: (text.trim().split('\n')[0] ?? '').slice(0, 200) });
      } else resolve(null);
    });
  });
}
