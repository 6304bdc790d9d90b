// Claude Code: `claude mcp add --scope <scope> papo -- <papo> mcp` (docs/cli.md, "papo install"). Claude
// Code passes its own environment to the servers it starts, so secrets need no mention; plain
// variables are written with -e, except in scope project, whose .mcp.json is committed and shared.
// That .mcp.json is the checkout's: papo install refuses a link there before claude mcp add runs
// (config-file.ts, ADR 0094).
import { join } from 'node:path';
import type { AgentClient, Registration, RegistrationTarget } from './agent-client.js';
import { PLUGIN_ID, projectSettingsFile } from './claude-plugin.js';
import { executableNames, runClient } from './client-process.js';
import { checkConfigPath } from './config-file.js';
import { type McpEntry, shellQuote } from './entry.js';
import {
  type ConfigPlace,
  commandLine,
  readJson,
  registrationIn,
  upwards,
  userHome,
} from './registration.js';

function addArgs(entry: McpEntry, scope: string): string[] {
  const env = scope === 'project' ? [] : Object.entries(entry.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return ['mcp', 'add', ...env, '--scope', scope, entry.name, '--', entry.command, ...entry.args];
}

export const claude: AgentClient = {
  id: 'claude',
  label: 'Claude Code',
  executables: executableNames('claude', process.platform),
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
    if (scope === 'project') checkConfigPath(join(target.cwd, '.mcp.json'), target);
    const result = runClient(exe, addArgs(entry, scope), {
      stdio: 'inherit',
      env: target.env,
      cwd: target.cwd,
    });
    if (result.error || result.status !== 0) {
      const status = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
      throw new Error(t.claudeFailed(status, scope));
    }
    const homeNote =
      scope === 'project' && entry.env.PAPO_HOME ? [t.installHomeNote(entry.env.PAPO_HOME)] : [];
    const withheld = entry.withheld.length > 0 ? [t.installWithheld('Claude Code', entry.withheld)] : [];
    return [t.installed(scope), ...withheld, ...homeNote, t.openClaude, t.pluginOffer];
  },
  registration: registeredWithClaude,
};

/**
 * Claude Code's three scopes, read from its files (papo doctor, ADR 0072): local is
 * `projects[<folder>].mcpServers` in ~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json), project
 * is the folder's .mcp.json, user is the top-level `mcpServers`; the nearest folder first, as
 * Claude Code looks.
 */
async function registeredWithClaude(target: RegistrationTarget): Promise<Registration> {
  const added = registrationIn(addedPlaces(target.cwd, target.env), commandLine);
  return added.registered ? added : pluginRegistration(target);
}

function addedPlaces(cwd: string, env: NodeJS.ProcessEnv): ConfigPlace[] {
  const config = join(env.CLAUDE_CONFIG_DIR || userHome(env), '.claude.json');
  const dirs = upwards(cwd);
  return [
    ...dirs.map((d) => ({ scope: 'local', file: config, keys: ['projects', d, 'mcpServers', 'papo'] })),
    ...dirs.map((d) => ({ scope: 'project', file: join(d, '.mcp.json'), keys: ['mcpServers', 'papo'] })),
    { scope: 'user', file: config, keys: ['mcpServers', 'papo'] },
  ];
}

/**
 * The scope in which `claude mcp add` registered papo for `cwd`, or null: papo install --plugin
 * says to remove it, or Claude Code would start two papo mcp on the project's profile.
 */
export function claudeAddedScope(cwd: string, env: NodeJS.ProcessEnv): string | null {
  for (const place of addedPlaces(cwd, env))
    if (registrationIn([place], commandLine).registered) return place.scope;
  return null;
}

/**
 * papo's plugin (ADR 0101), enabled in Claude Code's user settings (~/.claude/settings.json, or
 * $CLAUDE_CONFIG_DIR/settings.json, where `claude plugin install --scope user` writes it), with
 * the profile the project's .claude/settings.local.json gives it.
 */
function pluginRegistration(target: RegistrationTarget): Registration {
  const settings = join(
    target.env.CLAUDE_CONFIG_DIR || join(userHome(target.env), '.claude'),
    'settings.json',
  );
  const enabled = (readJson(settings) as { enabledPlugins?: Record<string, unknown> } | undefined)
    ?.enabledPlugins;
  if (enabled?.[PLUGIN_ID] !== true) return { registered: false, detail: '' };
  const env = (readJson(projectSettingsFile(target.cwd)) as { env?: Record<string, unknown> } | undefined)
    ?.env;
  const profile = typeof env?.PAPO_PROFILE === 'string' ? env.PAPO_PROFILE : 'default';
  return { registered: true, detail: `plugin ${PLUGIN_ID} (${settings}): papo mcp, profile ${profile}` };
}
