// Claude Code, the plugin way (`papo install --plugin`, ADR 0101): papo's package is the `papo`
// marketplace holding the `papo` plugin, which makes Claude Code start `papo mcp` from PATH in
// every project. The plugin is installed once for the user; what each project needs of its own,
// its profile (and PAPO_HOME and the other plain settings `claude mcp add -e` would write), goes
// into the `env` of the project's .claude/settings.local.json: Claude Code's settings of one person
// for one project, which it passes to every server it starts there, the plugin's included
// (measured with 2.1.332). That file is in the checkout, so it is checked as a scope-project file
// (no link below the project, a plain file; config-file.ts).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InstallTarget } from './agent-client.js';
import { runClient } from './client-process.js';
import { readConfigFile, writeConfigFile } from './config-file.js';
import { type McpEntry, shellQuote } from './entry.js';

/** The plugin as Claude Code names it: <plugin>@<marketplace>. */
export const PLUGIN_ID = 'papo@papo';

/**
 * The folder of this papo's package, which is the marketplace (.claude-plugin/marketplace.json):
 * the same folder in a clone and in an installed package, so an update of papo updates the plugin.
 */
export function marketplaceRoot(): string {
  // resolve drops the closing separator (a backslash on Windows, which a / pattern missed).
  return resolve(fileURLToPath(new URL('../../../../', import.meta.url)));
}

/** The project's settings file of one person, where the profile goes (and doctor reads it). */
export function projectSettingsFile(cwd: string): string {
  return join(cwd, '.claude', 'settings.local.json');
}

/** What the project's settings get: the profile always, so that each project says its own. */
function projectEnv(entry: McpEntry, profile: string): Record<string, string> {
  return { PAPO_PROFILE: profile, ...entry.env };
}

/** The two claude commands, as a person would type them. */
function pluginCommands(root: string): string[][] {
  return [
    ['plugin', 'marketplace', 'add', root],
    ['plugin', 'install', PLUGIN_ID, '--scope', 'user'],
  ];
}

/** `papo install --plugin --print`: the commands and the settings, ready to paste. */
export function printPlugin(entry: McpEntry, target: InstallTarget, profile: string): string[] {
  return [
    ...pluginCommands(marketplaceRoot()).map((args) => ['claude', ...args].map(shellQuote).join(' ')),
    '',
    target.t.printAddTo(projectSettingsFile(target.cwd)),
    JSON.stringify({ env: projectEnv(entry, profile) }, null, 2),
  ];
}

/**
 * Adds the marketplace and installs the plugin with the `claude` at `exe` (both are no-ops when
 * already done), then writes the project's profile into its settings. The plugin runs `papo` from
 * PATH: without one there (a papo run from a clone by its path), the person is told. Returns what
 * to tell the person; throws an Error of one line with the fix.
 */
export function installPlugin(
  entry: McpEntry,
  target: InstallTarget,
  exe: string,
  profile: string,
  papoOnPath: boolean,
): string[] {
  const { t } = target;
  const root = marketplaceRoot();
  if (!existsSync(join(root, '.claude-plugin', 'marketplace.json')))
    throw new Error(t.pluginNoMarketplace(root));
  // Every check of the settings file before Claude Code is changed: a refusal leaves all as it was.
  const file = projectSettingsFile(target.cwd);
  const asProject: InstallTarget = { ...target, scope: 'project' };
  const read = readConfigFile(file, asProject);
  let settings: Record<string, unknown> = {};
  if (read !== null && read.text.trim() !== '') {
    try {
      settings = JSON.parse(read.text);
    } catch {
      throw new Error(t.pluginSettingsNotJson(file));
    }
    if (settings === null || typeof settings !== 'object' || Array.isArray(settings))
      throw new Error(t.pluginSettingsNotJson(file));
  }
  for (const args of pluginCommands(root)) {
    const r = runClient(exe, args, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: target.env,
      cwd: target.cwd,
    });
    if (r.error || r.status !== 0) {
      const status = r.error ? r.error.message : `exit ${r.status ?? r.signal}`;
      throw new Error(t.pluginFailed(`claude ${args.slice(0, 3).join(' ')}`, status));
    }
  }
  const env = settings.env;
  const merged = { ...(env !== null && typeof env === 'object' ? env : {}), ...projectEnv(entry, profile) };
  writeConfigFile(
    file,
    `${JSON.stringify({ ...settings, env: merged }, null, 2)}\n`,
    read?.mode ?? 0o600,
    asProject,
  );
  const withheld = entry.withheld.length > 0 ? [t.installWithheld('Claude Code', entry.withheld)] : [];
  return [
    t.pluginInstalled(PLUGIN_ID, root),
    t.pluginProfile(profile, file),
    ...withheld,
    ...(papoOnPath ? [] : [t.pluginNoPapoOnPath]),
    t.openClaudePlugin,
  ];
}
