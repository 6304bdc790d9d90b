// papo install: registers `papo mcp` with an agent CLI for this project (docs/cli.md, "papo install",
// for Claude Code; --client for the others, ADR 0070). Only the executable, the profile name and
// non-secret settings go into a client's configuration, never the room secret, so a committed
// .mcp.json (scope project) leaks nothing.
import type { Command } from 'commander';
import { Option } from 'commander';
import { isPapoError } from '../../client/errors.js';
import { openProfile } from '../../client/store/profile-store.js';
import { type CliContext, checkedProfile, home, text } from '../context.js';
import { CLIENT_IDS, type ClientId, type InstallTarget } from '../install/agent-client.js';
import { claudeAddedScope } from '../install/claude.js';
import { installPlugin, printPlugin } from '../install/claude-plugin.js';
import { executableNames } from '../install/client-process.js';
import { CLIENTS, clientOnPath, findExecutable } from '../install/clients.js';
import { type McpEntry, mcpEntry } from '../install/entry.js';
import { printLines } from '../output.js';

interface InstallOptions {
  client?: ClientId;
  scope?: string;
  print?: boolean;
  plugin?: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('install')
    .description(
      'register papo with your agent CLI (Claude Code, Codex, Gemini CLI, opencode, Qwen Code) for the current project',
    )
    .addOption(
      new Option(
        '--client <client>',
        'the agent CLI (default: the first on PATH, Claude Code first)',
      ).choices(CLIENT_IDS),
    )
    .option(
      '--scope <scope>',
      "where the client keeps the registration (Claude Code: local, user or project; default: the client's own)",
    )
    .option('--print', 'print what would be registered instead of registering it')
    .option(
      '--plugin',
      "Claude Code: install papo's plugin (Claude Code starts papo itself) and set this project's profile, instead of claude mcp add",
    )
    .action(async (opts: InstallOptions) => {
      const t = text(ctx);
      const profile = checkedProfile(ctx);
      // --plugin is Claude Code's way: it names the client by itself.
      const client = opts.client
        ? CLIENTS[opts.client]
        : opts.plugin
          ? CLIENTS.claude
          : (clientOnPath(ctx.env) ?? CLIENTS.claude);
      const scope = opts.scope ?? client.scopes[0] ?? 'user';
      if (!client.scopes.includes(scope)) throw new Error(t.badScope(client.label, scope, client.scopes));
      const target: InstallTarget = { client: client.id, scope, cwd: process.cwd(), env: ctx.env, t };
      const entry = mcpEntry(ctx.env, profile);
      if (opts.plugin) {
        if (client.id !== 'claude') throw new Error(t.pluginOtherClient(client.label));
        // The plugin is the person's, in every project (scope user); the project's part is its profile.
        if (opts.scope !== undefined) throw new Error(t.pluginScope);
        await installWithPlugin(ctx, entry, target, profile, opts.print === true);
        return;
      }
      if (opts.print) {
        printLines(client.print(entry, target));
        return;
      }
      await warnIfMissing(ctx, profile);
      const exe = findExecutable(client.executables, ctx.env);
      if (exe === null) {
        printLines([
          t.clientMissing(client.executables[0] ?? client.id),
          '',
          ...(client.byHand ?? client.print)(entry, target),
        ]);
        return;
      }
      printLines(client.install(entry, target, exe));
    });
}

/** The plugin way (ADR 0101): the plugin for the user, the profile in the project's settings. */
async function installWithPlugin(
  ctx: CliContext,
  entry: McpEntry,
  target: InstallTarget,
  profile: string,
  print: boolean,
): Promise<void> {
  if (print) {
    printLines(printPlugin(entry, target, profile));
    return;
  }
  await warnIfMissing(ctx, profile);
  const exe = findExecutable(CLIENTS.claude.executables, ctx.env);
  if (exe === null) {
    printLines([target.t.clientMissing('claude'), '', ...printPlugin(entry, target, profile)]);
    return;
  }
  const papo = findExecutable(executableNames('papo', process.platform), ctx.env);
  const lines = installPlugin(entry, target, exe, profile, papo !== null);
  const older = claudeAddedScope(target.cwd, ctx.env);
  printLines(
    older === null ? lines : [...lines.slice(0, -1), target.t.pluginAlsoAdded(older), ...lines.slice(-1)],
  );
}

async function warnIfMissing(ctx: CliContext, profile: string): Promise<void> {
  const t = text(ctx);
  try {
    await openProfile({ home: home(ctx), profile });
  } catch (err) {
    if (isPapoError(err, 'profile_missing')) process.stderr.write(`${t.installProfileMissing(profile)}\n`);
  }
}
