import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import type { RoomMember } from '../../client/member-api.js';
import { papoHome, profileDir } from '../../client/store/home.js';
import { PROFILE_FILE } from '../../client/store/profile-files.js';
import { checkAbout, normaliseAbout } from '../../client/wire/about.js';
import { isProfileName } from '../../client/wire/names.js';
import { type CliContext, profileName } from '../context.js';
import { hostLocalSignalServer } from '../local-signal-server.js';

interface McpOptions {
  about?: string;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('mcp')
    .description('Run the MCP server over stdio (Claude Code runs this; see `papo install`).')
    .option(
      '--about <text>',
      'what this agent works on, announced to the room (default: the name of the project folder: CLAUDE_PROJECT_DIR, else the working folder)',
    )
    .action(async (opts: McpOptions) => {
      // A bad --about stops the server before it starts, with the reason on stderr (ADR 0059).
      const aboutFlag = opts.about === undefined ? undefined : checkAbout(opts.about);
      const profile = profileName(ctx);
      const dir = join(papoHome(ctx.env), 'profiles', profile);
      const [{ runMcpServer }, { peekProfile }] = await Promise.all([
        import('../../mcp/run.js'),
        import('../../client/store/profile-file.js'),
      ]);
      const peek = () => (isProfileName(profile) ? peekProfile(dir) : null);
      runMcpServer({
        profile,
        serverVersion: program.version() ?? '0.0.0',
        env: ctx.env,
        describe: peek,
        openMember: () => {
          // The announced `about`: --about, else the profile's, else the project folder's name.
          // Only the flag was checked: a hand-edited profile or an odd folder name is made one
          // printable line of at most 200 characters, as receivers would make it anyway.
          const about = aboutFlag ?? normaliseAbout(peek()?.about ?? basename(projectFolder(ctx.env))) ?? '';
          return openMember(profile, papoHome(ctx.env), about, ctx.env);
        },
      });
    });
}

/**
 * Opens the member of `profile` (lock, identity, signal client, mesh) announcing `about`. The
 * network stack is loaded here, by dynamic import, after the initialize response.
 */
async function openMember(
  profile: string,
  home: string,
  about: string,
  env: NodeJS.ProcessEnv,
): Promise<RoomMember> {
  // The profile first: a room that is not configured must not pay for loading WebRTC. Where its
  // file is there, the transport process is forked now, to start while this one loads the member
  // (it joins nothing before the member holds the lock and sends it the room: early-fork.ts).
  const early = await import('../../client/transport/early-fork.js');
  if (existsSync(join(profileDir(home, profile), PROFILE_FILE))) early.forkTransportEarly(env);
  try {
    const { openProfile } = await import('../../client/store/profile-store.js');
    await openProfile({ home, profile });
    return await openAgent(profile, home, about, env);
  } finally {
    // Adopted by now when the member opened; ended when it did not.
    early.dropEarlyTransport();
  }
}

async function openAgent(
  profile: string,
  home: string,
  about: string,
  env: NodeJS.ProcessEnv,
): Promise<RoomMember> {
  // WebRTC runs in a transport process that this one supervises and starts again when it freezes
  // or dies (ADR 0057): this process never loads the native library, so it always answers.
  const { openMember: open } = await import('../../client/open-member.js');
  const { createDiagnostics } = await import('../../mcp/diagnostics.js');
  const diagnostics = createDiagnostics(env.PAPO_LOG, process.stderr);
  const log = (line: string) => diagnostics.log('info', line);
  // papo mcp exits within 70 ms of a stop signal: its transport finishes closing by itself.
  const opened = await open({
    home,
    profile,
    env,
    mode: 'agent',
    about,
    log,
    waitForTransportExit: false,
    hostSignalServer: hostLocalSignalServer,
  });
  return opened.member;
}

/**
 * The project the agent works in: Claude Code gives its servers the project's root as
 * CLAUDE_PROJECT_DIR, which stays the same when the session's working folder moves (`cd` in a
 * hook, `--add-dir`); other clients, and a server started by hand, have the working folder.
 */
export function projectFolder(env: NodeJS.ProcessEnv): string {
  const dir = env.CLAUDE_PROJECT_DIR?.trim();
  return dir ? dir : process.cwd();
}
