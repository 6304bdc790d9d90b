import type { Command } from 'commander';
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
      'what this agent works on, announced to the room (default: the name of the project folder: CLAUDE_PROJECT_DIR, else the working folder)',
    )
    .action(async (opts: McpOptions) => {
      // The agent CLIs' own lines skip commander (main.ts); this is every other way in.
      const { startMcp } = await import('../mcp-start.js');
      await startMcp({
        profile: profileName(ctx),
        about: opts.about,
        serverVersion: program.version() ?? '0.0.0',
        env: ctx.env,
      });
    });
}
