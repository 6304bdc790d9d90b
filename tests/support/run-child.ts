// Runs a child process to its end without blocking this process's event loop: its output, how it
// ended, and whether a bound had to end it. Shared by the tests that drive a binary or a fixture.
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** stdout as the bytes it was (stdout is their UTF-8 decoding). */
  stdoutBytes: Buffer;
  stderr: string;
  /** Ended by one of the bounds below (SIGKILL) rather than by itself. */
  killed: boolean;
}

export interface RunChildOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to the child's stdin, which is then closed (without it, stdin is /dev/null). */
  input?: string;
  /** SIGKILL after this long (default 60 s). */
  timeoutMs?: number;
  /** Once stdout contains `marker`, the child has `withinMs` to exit by itself, or it is killed. */
  exitAfter?: { marker: string; withinMs: number };
}

export function runChild(cmd: string, args: string[], options: RunChildOptions = {}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      // stdin is /dev/null unless there is input to write (as spawnSync's `input`).
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    const { stdin, stdout: outPipe, stderr: errPipe } = child;
    if (outPipe === null || errPipe === null) throw new Error('spawn gave no stdout or stderr pipe');
    if (stdin !== null) {
      stdin.on('error', () => {});
      stdin.end(options.input);
    }
    let stdout = '';
    const bytes: Buffer[] = [];
    const decoder = new StringDecoder('utf8');
    let stderr = '';
    let killed = false;
    let grace: NodeJS.Timeout | undefined;
    const kill = () => {
      killed = true;
      child.kill('SIGKILL');
    };
    const bound = setTimeout(kill, options.timeoutMs ?? 60_000);
    outPipe.on('data', (chunk: Buffer) => {
      bytes.push(chunk);
      stdout += decoder.write(chunk);
      const after = options.exitAfter;
      if (after && grace === undefined && stdout.includes(after.marker))
        grace = setTimeout(kill, after.withinMs);
    });
    errPipe.setEncoding('utf8').on('data', (c: string) => {
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
      stdout += decoder.end();
      resolve({ code, signal, stdout, stdoutBytes: Buffer.concat(bytes), stderr, killed });
    });
  });
}
