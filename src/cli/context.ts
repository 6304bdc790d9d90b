// What every command needs from the global options and the environment.
import type { Command } from 'commander';

export interface CliContext {
  /** The program, to read global options (`--profile`) at action time. */
  program: Command;
  env: NodeJS.ProcessEnv;
}

/** The profile the user chose: --profile, else PAPO_PROFILE, else "default". */
export function profileName(ctx: CliContext): string {
  const opt = ctx.program.opts<{ profile?: string }>().profile;
  return opt ?? (ctx.env.PAPO_PROFILE || 'default');
}
