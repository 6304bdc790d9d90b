// Runs a child process to its end without blocking this process's event loop: its output, how it
// ended, and whether a bound had to end it. Shared by the tests that drive a binary or a fixture.
import { spawn } from 'node:child_process';

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Ended by one of the bounds below (SIGKILL) rather than by itself. */
  killed: boolean;
}

export interface RunChildOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** SIGKILL after this long (default 60 s). */
  timeoutMs?: number;
  /** Once stdout contains `marker`, the child has `withinMs` to exit by itself, or it is killed. */
  exitAfter?: { marker: string; withinMs: number };
}

export function runChild(cmd: string, args: string[], options: RunChildOptions = {}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    let grace: NodeJS.Timeout | undefined;
    const kill = () => {
      killed = true;
      child.kill('SIGKILL');
    };
    const bound = setTimeout(kill, options.timeoutMs ?? 60_000);
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      const after = options.exitAfter;
      if (after && grace === undefined && stdout.includes(after.marker))
        grace = setTimeout(kill, after.withinMs);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('error', (err) => {
      clearTimeout(bound);
      clearTimeout(grace);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(bound);
      clearTimeout(grace);
      resolve({ code, signal, stdout, stderr, killed });
    });
  });
}
