// Child processes for tests: a free port, a real redis-server, a `papo signal` replica.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/cli/free-port.js';

export { freePort } from '../../src/cli/free-port.js';

export const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** Waits until `pattern` appears on the child's stdout or stderr; resolves with the match. */
export function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 10_000,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out waiting for ${pattern}; output: ${seen.slice(-800)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = seen.match(pattern);
      if (m) {
        cleanup();
        resolve(m);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`process exited (${code}) before ${pattern}; output: ${seen.slice(-800)}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Kills a child (if still running) and waits for it to exit. */
export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}

/** A redis-server on a free loopback port; `args` are more of its options (`--aclfile`, ...). */
export async function startRedis(args: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await waitForOutput(child, /Ready to accept connections/);
  return { url: `redis://127.0.0.1:${port}`, child };
}

/**
 * `papo signal --port 0` as a child process; resolves once it has said where it listens. Its metrics
 * listener is on a free loopback port (PAPO_SIGNAL_METRICS=127.0.0.1:0) unless `env` says otherwise,
 * so that parallel tests do not compete for the default 9464.
 */
export async function startCliSignal(
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; metricsUrl: string | undefined; child: ChildProcess; startLines: string }> {
  const child = spawn(process.execPath, [CLI, 'signal', '--host', '127.0.0.1', '--port', '0'], {
    env: { PATH: process.env.PATH, PAPO_SIGNAL_METRICS: '127.0.0.1:0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The start lines come in order; the `store:` line is the last of them.
  const m = await waitForOutput(
    child,
    /^[\s\S]*?listening on (wss?:\/\/[^\s]+)\/v1\/ws[\s\S]*?store: [^\n]*\n/,
  );
  const metrics = /metrics on (http:\/\/[^\s]+)\/metrics/.exec(m[0]);
  return { url: m[1] as string, metricsUrl: metrics?.[1], child, startLines: m[0] };
}
