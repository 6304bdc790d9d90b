// papo install: registers `papo mcp` in Claude Code for this project (the book's "papo install").
// Only the executable and the profile name go into Claude Code's configuration, never the room
// secret, so a committed .mcp.json (scope project) leaks nothing.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { isPapoError } from '../../client/errors.js';
import { openProfile } from '../../client/profile-store.js';
import { type CliContext, checkedProfile, home, text } from '../context.js';
import { printLines } from '../output.js';

const SCOPES = ['local', 'user', 'project'] as const;

interface InstallOptions {
  scope: (typeof SCOPES)[number];
  print?: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('install')
    .description('register papo in Claude Code for the current project')
    .addOption(
      new Option('--scope <scope>', 'Claude Code scope of the registration').choices(SCOPES).default('local'),
    )
    .option('--print', 'print the JSON entry instead of running claude mcp add')
    .action(async (opts: InstallOptions) => {
      const t = text(ctx);
      const profile = checkedProfile(ctx);
      const server = serverCommand(ctx.env, profile);
      if (opts.print) {
        const entry = { mcpServers: { papo: { command: server.command, args: server.args } } };
        process.stdout.write(`${JSON.stringify(entry, null, 2)}\n`);
        return;
      }
      await warnIfMissing(ctx, profile);
      const claudeArgs = ['mcp', 'add', '--scope', opts.scope, 'papo', '--', server.command, ...server.args];
      const claude = findExecutable(
        process.platform === 'win32' ? ['claude', 'claude.cmd'] : ['claude'],
        ctx.env,
      );
      if (claude === null) {
        printLines([t.claudeMissing, '', `  ${['claude', ...claudeArgs].map(shellQuote).join(' ')}`]);
        return;
      }
      const result = spawnSync(claude, claudeArgs, {
        stdio: 'inherit',
        env: ctx.env,
        shell: claude.endsWith('.cmd'), // Windows runs .cmd files through the shell only
      });
      if (result.error || result.status !== 0) {
        const status = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
        throw new Error(t.claudeFailed(status, opts.scope));
      }
      printLines([t.installed(opts.scope), t.openClaude]);
    });
}

/**
 * What Claude Code runs: this papo (its absolute path) with `mcp [--profile p]`, or the command
 * line in PAPO_INSTALL_COMMAND (a `docker run -i ...` inside a container, where the path of papo
 * would mean nothing to the host).
 */
export function serverCommand(env: NodeJS.ProcessEnv, profile: string): { command: string; args: string[] } {
  const profileArgs = profile === 'default' ? [] : ['--profile', profile];
  const custom = env.PAPO_INSTALL_COMMAND?.trim();
  if (custom) {
    const words = splitWords(custom);
    const [command = custom, ...rest] = words;
    return { command, args: [...rest, 'mcp', ...profileArgs] };
  }
  const script = process.argv[1] ?? 'papo';
  return { command: resolve(script), args: ['mcp', ...profileArgs] };
}

async function warnIfMissing(ctx: CliContext, profile: string): Promise<void> {
  const t = text(ctx);
  try {
    await openProfile({ home: home(ctx), profile });
  } catch (err) {
    if (isPapoError(err, 'profile_missing')) process.stderr.write(`${t.installProfileMissing(profile)}\n`);
  }
  if (ctx.env.PAPO_HOME) process.stderr.write(`${t.installHomeNote(home(ctx))}\n`);
}

/** Splits a command line on blanks, honouring '...' and "..." quotes and backslash escapes. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line.charAt(++i);
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line.charAt(++i);
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Quotes a word for a POSIX shell when it needs it, so the printed command can be pasted. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function findExecutable(names: readonly string[], env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    for (const name of names) {
      const path = join(dir, name);
      try {
        if (!statSync(path).isFile()) continue;
        accessSync(path, constants.X_OK);
        return path;
      } catch {}
    }
  }
  return null;
}
