import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export function register(program: Command, _ctx: CliContext): void {
  program
    .command('demo')
    .description('(not built yet)')
    .action(() => {
      process.stderr.write('error: papo demo is not built yet\n');
      process.exitCode = 1;
    });
}
