#!/usr/bin/env node
// The papo command line. Each command lives in its own file under commands/ and registers itself;
// errors go to stderr with exit status 1.
import type { Command } from 'commander';
import type { CliContext } from './context.js';
import type { McpArgs } from './mcp-args.js';

const COMMANDS = [
  'new',
  'join',
  'invite',
  'install',
  'mcp',
  'say',
  'log',
  'status',
  'doctor',
  'forget',
  'review',
  'signal',
  'demo',
  'web',
] as const;
type CommandName = (typeof COMMANDS)[number];

interface CommandModule {
  register(program: Command, ctx: CliContext): void;
}

const load: Record<CommandName, () => Promise<CommandModule>> = {
  new: () => import('./commands/new.js'),
  join: () => import('./commands/join.js'),
  invite: () => import('./commands/invite.js'),
  install: () => import('./commands/install.js'),
  mcp: () => import('./commands/mcp.js'),
  say: () => import('./commands/say.js'),
  log: () => import('./commands/log.js'),
  status: () => import('./commands/status.js'),
  doctor: () => import('./commands/doctor.js'),
  forget: () => import('./commands/forget.js'),
  review: () => import('./commands/review.js'),
  signal: () => import('./commands/signal.js'),
  demo: () => import('./commands/demo.js'),
  web: () => import('./commands/web.js'),
};

/**
 * The command on the command line, if any. Only that command's module is loaded for `papo mcp`
 * (on a line the agent CLIs do not write: theirs skip commander altogether, ADR 0107), `papo say`
 * and `papo status`, which a person runs beside their agents all day, and `papo web`.
 */
function commandIn(argv: readonly string[]): CommandName | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--profile') {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return (COMMANDS as readonly string[]).includes(arg) ? (arg as CommandName) : undefined;
  }
  return undefined;
}

const argv = process.argv.slice(2);
// papo mcp idles beside an agent all day, and its hot paths are native (sealing and signing in
// node:crypto, JSON in V8): it runs without V8's optimising compiler, whose code and the pages of
// the node binary it touches hold ~4 MB resident (ADR 0108). The `#!/usr/bin/env node` line agent
// CLIs start papo with takes no V8 flag, so it is set here, for every `papo mcp` line and before
// any module loads: node's own loader gets hot enough to be optimised within the first 100 ms
// (so this file imports papo's modules only below, dynamically: resolving a static import's tree
// made node's path functions hot enough for Maglev before this line ran, seen on Node 24 and 26).
// `--no-opt` is TurboFan only; from Node 24 (V8 13) Maglev, V8's other optimising compiler,
// optimises the same hot function without it (seen with tests/support/optimiser-probe.ts), so
// both are turned off (ADR 0111). Node 20 and 22 know `--no-maglev` as well.
if (commandIn(argv) === 'mcp') {
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--no-opt');
  setFlagsFromString('--no-maglev');
}
const { chosenProfile, mcpArgs, sayArgs } = await import('./mcp-args.js');
// An agent CLI starting `papo mcp` waits for its initialize answer: its usual lines go straight to
// the server, without commander or the CLI's texts (mcp-args.ts); so does a plain `papo say`, a
// person's quick word. Every other line, and one whose --about the server refuses (commander then
// reports it as any command's error), goes on below.
const fast = mcpArgs(argv);
if (fast === undefined || !(await servedFast(fast))) {
  const said = sayArgs(argv);
  if (said === undefined) await runCommandLine();
  else {
    await forkForSay(said.profile);
    await (await import('./commands/say.js')).sayLine(
      { profileFlag: () => said.profile, env: process.env },
      said.words,
      { to: said.to },
    );
  }
}

/**
 * A say that will run its own member (no papo mcp listens: no member.sock in a configured
 * profile) forks its transport process now, before it loads its modules, so that node and
 * node-datachannel start on the other core meanwhile (ADR 0091, ADR 0109). The member adopts the
 * child when it opens; one never adopted ends with this process. Only a head start: whatever goes
 * wrong here is the say's own path to find and report.
 */
async function forkForSay(flag: string | undefined): Promise<void> {
  try {
    const [{ existsSync }, { join }, { papoHome, profileDir }, files, { isProfileName }] = await Promise.all([
      import('node:fs'),
      import('node:path'),
      import('../client/store/home.js'),
      import('../client/store/profile-files.js'),
      import('../client/wire/names.js'),
    ]);
    const profile = chosenProfile(flag, process.env);
    if (!isProfileName(profile)) return;
    const dir = profileDir(papoHome(process.env), profile);
    if (!existsSync(join(dir, files.PROFILE_FILE)) || existsSync(join(dir, files.SAY_SOCKET))) return;
    (await import('../client/transport/early-fork.js')).forkTransportEarly(process.env);
  } catch {
    // the say goes on, and forks when its member opens
  }
}

/** Serves the agent CLI's line; false, having started nothing, when commander is to answer it. */
async function servedFast({ profile, about }: McpArgs): Promise<boolean> {
  const [{ startMcp }, { checkAbout }] = await Promise.all([
    import('./mcp-start.js'),
    import('../client/wire/about.js'),
  ]);
  let checked: string | undefined;
  try {
    checked = about === undefined ? undefined : checkAbout(about);
  } catch {
    return false;
  }
  try {
    await startMcp({
      profile: chosenProfile(profile, process.env),
      about: checked,
      serverVersion: VERSION(),
      env: process.env,
    });
  } catch (err) {
    // The server did not start: one line, as for every command, and nothing started twice.
    const { reportError } = await import('./context.js');
    reportError({ env: process.env } as CliContext, err);
  }
  return true;
}

async function runCommandLine(): Promise<void> {
  const [{ Command }, { reportError }, { versionLine }] = await Promise.all([
    import('commander'),
    import('./context.js'),
    import('./node-support.js'),
  ]);
  const program = new Command('papo');
  program
    .description('A direct line between your Claude and your colleague’s Claude.')
    .version(versionLine(VERSION()), '-V, --version')
    .option('--profile <profile>', 'profile to use (also PAPO_PROFILE); default "default"');

  const ctx: CliContext = {
    profileFlag: () => program.opts<{ profile?: string }>().profile,
    env: process.env,
  };
  const only = commandIn(argv);
  // `papo say` and `papo status` are a person's quick look and word (ADR 0102): theirs alone, too;
  // `papo web` stays open all day, so what it holds idle is its own modules only (ADR 0103).
  const alone = only === 'mcp' || only === 'say' || only === 'status' || only === 'web';
  const modules = await Promise.all(alone ? [load[only]()] : COMMANDS.map((name) => load[name]()));
  for (const module of modules) module.register(program, ctx);
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    // Every failure is one line on stderr ("error: ..." / "erro: ...") with exit status 1, never a
    // stack trace: the user needs what went wrong and what to do, not where in papo it happened.
    reportError(ctx, err);
  }
}

function VERSION(): string {
  return '0.1.0';
}
