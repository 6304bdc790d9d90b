// `papo mcp` through commander: the stdio MCP server an agent CLI runs (docs/mcp.md). The agent
// CLIs' own lines skip commander (main.ts, mcp-args.ts); both ways end in mcp-start.ts, which
// loads the server only when `mcp` runs and the network stack only after the initialize response.
import type { Command } from 'commander';
import { checkAbout } from '../../client/wire/about.js';
import { type CliContext, profileName } from '../context.js';

interface McpOptions {
  about?: string;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('mcp')
    .description('Run the MCP server over stdio (Claude Code runs this; see `papo install`).')
    .option(
      '--about <text>',
      "what this agent works on, announced to the room (default: the profile's about, set by papo new/join --about; else nothing)",
    )
    .action(async (opts: McpOptions) => {
      // The agent CLIs' own lines skip commander (main.ts); this is every other way in. A bad
      // --about stops the server before it starts, with the reason on stderr (ADR 0059).
      const about = opts.about === undefined ? undefined : checkAbout(opts.about);
      const { startMcp } = await import('../mcp-start.js');
      await startMcp({
        profile: profileName(ctx),
        about,
        serverVersion: program.version() ?? '0.0.0',
        env: ctx.env,
      });
    });
}
