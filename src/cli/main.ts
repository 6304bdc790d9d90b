#!/usr/bin/env node
// The papo command line. Each command lives in its own file under commands/ and registers itself;
// errors go to stderr with exit status 1.
import { Command } from 'commander';
import * as demo from './commands/demo.js';
import * as install from './commands/install.js';
import * as invite from './commands/invite.js';
import * as join from './commands/join.js';
import * as log from './commands/log.js';
import * as mcp from './commands/mcp.js';
import * as newRoom from './commands/new.js';
import * as say from './commands/say.js';
import * as signal from './commands/signal.js';
import * as status from './commands/status.js';
import { type CliContext, reportError } from './context.js';

const program = new Command('papo');
program
  .description('A direct line between your Claude and your colleague’s Claude.')
  .version(VERSION(), '-V, --version')
  .option('--profile <profile>', 'profile to use (also PAPO_PROFILE); default "default"');

const ctx: CliContext = { program, env: process.env };
for (const command of [newRoom, join, invite, install, mcp, say, log, status, signal, demo]) {
  command.register(program, ctx);
}
try {
  await program.parseAsync(process.argv);
} catch (err) {
  // Every failure is one line on stderr ("error: ..." / "erro: ...") with exit status 1, never a
  // stack trace: the user needs what went wrong and what to do, not where in papo it happened.
  reportError(ctx, err);
}

function VERSION(): string {
  return '0.1.0';
}
