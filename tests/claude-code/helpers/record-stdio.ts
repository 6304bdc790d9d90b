// A recording pass-through between Claude Code and `papo mcp`, registered with
// PAPO_INSTALL_COMMAND="node record-stdio.js <log> <papo main.js>" (papo install appends `mcp`):
//   node record-stdio.js <log> <command> [args...]
// runs `node <command> args...` with the same environment and passes stdin and stdout through
// unchanged, appending each line to <log> as {"dir":"in"|"out","line":"..."} (in: what Claude Code
// wrote; out: what papo answered). So a test reads what Claude Code really sends in `initialize`,
// and which channel notifications papo wrote. When Claude Code closes stdin, papo sees its EOF.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [log, command, ...args] = process.argv.slice(2);
if (log === undefined || command === undefined) {
  process.stderr.write('usage: record-stdio <log> <command> [args...]\n');
  process.exit(2);
}

const child = spawn(process.execPath, [command, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });

function recorder(dir: 'in' | 'out'): (chunk: Buffer) => void {
  let buffered = '';
  return (chunk) => {
    buffered += chunk.toString('utf8');
    let nl = buffered.indexOf('\n');
    while (nl !== -1) {
      appendFileSync(log as string, `${JSON.stringify({ dir, line: buffered.slice(0, nl) })}\n`);
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
    }
  };
}

const fromClient = recorder('in');
const fromServer = recorder('out');
process.stdin.on('data', (c: Buffer) => {
  fromClient(c);
  child.stdin.write(c);
});
process.stdin.on('end', () => child.stdin.end());
child.stdin.on('error', () => {});
child.stdout.on('data', (c: Buffer) => {
  fromServer(c);
  process.stdout.write(c);
});
process.stdout.on('error', () => {});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal === null ? 1 : 128);
  process.stdin.destroy();
});
