// `papo mcp`: the stdio MCP server Claude Code runs (docs/mcp.md). This file stays light because
// main.ts loads every command at start: the server modules are imported only when `mcp` runs, and
// the network stack only after the initialize response.
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import type { RoomMember } from '../../client/member-api.js';
import { type CliContext, profileName } from '../context.js';

const PROFILE_NAME = /^[A-Za-z0-9_-]{1,32}$/;

interface McpOptions {
  about?: string;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('mcp')
    .description('Run the MCP server over stdio (Claude Code runs this; see `papo install`).')
    .option('--about <text>', 'what this agent works on, announced to the room (default: the folder name)')
    .action(async (opts: McpOptions) => {
      const profile = profileName(ctx);
      const dir = join(papoHome(ctx.env), 'profiles', profile);
      const [{ runMcpServer }, { peekProfile }] = await Promise.all([
        import('../../mcp/run.js'),
        import('../../mcp/profile-peek.js'),
      ]);
      const peek = () => (PROFILE_NAME.test(profile) ? peekProfile(dir) : null);
      runMcpServer({
        profile,
        serverVersion: program.version() ?? '0.0.0',
        env: ctx.env,
        describe: peek,
        openMember: () => {
          // The announced `about`: --about, else the profile's, else the project folder's name.
          const about = opts.about ?? peek()?.about ?? basename(process.cwd());
          return openMember(profile, dir, about);
        },
      });
    });
}

function papoHome(env: NodeJS.ProcessEnv): string {
  return env.PAPO_HOME !== undefined && env.PAPO_HOME !== '' ? env.PAPO_HOME : join(homedir(), '.papo');
}

/**
 * THE WIRING TO SWAP when the room node lands: open the member of `profile` (lock, identity,
 * signal client, mesh) announcing `about`, with the network stack loaded by dynamic import.
 * Until then it reports a missing profile as such and otherwise says the member is not built.
 */
async function openMember(profile: string, dir: string, _about: string): Promise<RoomMember> {
  const { PapoError } = await import('../../client/errors.js');
  const { existsSync } = await import('node:fs');
  if (!PROFILE_NAME.test(profile)) {
    throw new PapoError(
      'invalid_profile_name',
      `'${profile}' is not a valid profile name (1 to 32 letters, digits, '-' or '_')`,
    );
  }
  if (!existsSync(join(dir, 'profile.json'))) {
    throw new PapoError('profile_missing', `profile '${profile}' is not configured`);
  }
  throw new PapoError('open_failed', 'the room member is not built yet');
}
