import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export function register(program: Command, _ctx: CliContext): void {
  program
    .command('invite')
    .description('(not built yet)')
    .action(() => {
      process.stderr.write('error: papo invite is not built yet\n');
      process.exitCode = 1;
    });
}
