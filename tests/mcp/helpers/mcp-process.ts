// Spawns the built `papo mcp` with its own PAPO_HOME and hands back a JSON-RPC client on its stdio.
// Each test closes what it opens: `stop()` ends the process (SIGKILL if it ignores SIGTERM) and
// removes the temporary home.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RpcClient } from './rpc-client.js';

/** The repository root (tests run from dist/tests/...). */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const PAPO_BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

export interface McpProcess {
  child: ChildProcessWithoutNullStreams;
  client: RpcClient;
  home: string;
  stderr: () => string;
  /** Resolves when the process exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'papo-mcp-test-'));
}

export function spawnMcp(
  opts: { home?: string; args?: string[]; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): McpProcess {
  const ownHome = opts.home === undefined;
  const home = opts.home ?? tempHome();
  const child = spawn(process.execPath, [PAPO_BIN, 'mcp', ...(opts.args ?? [])], {
    cwd: opts.cwd ?? home,
    env: { PATH: process.env.PATH, ...opts.env, PAPO_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => {
    err += c;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const client = new RpcClient(child.stdin, child.stdout);
  child.stdin.on('error', () => {});
  return {
    child,
    client,
    home,
    stderr: () => err,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
        await exited;
        clearTimeout(timer);
      }
      if (ownHome) rmSync(home, { recursive: true, force: true });
    },
  };
}
