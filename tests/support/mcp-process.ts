// The one driver of a `papo mcp` process in the tests: the built binary (under a wrapper command
// when given, as the NAT lab's `ip netns exec <ns>`), a JSON-RPC client on its stdio (rpc-client.ts),
// its stderr kept, and the three ways it ends: stop (SIGTERM, then SIGKILL), kill (SIGKILL, as a
// crash) and close (stdin EOF, as Claude Code closes a session). Each test ends what it starts.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync } from 'node:fs';
import { makeTempDir } from './files.js';
import { spawnPapo } from './papo.js';
import { type Json, RpcClient, resultText } from './rpc-client.js';

export interface McpProcess {
  child: ChildProcessWithoutNullStreams;
  client: RpcClient;
  /** The papo mcp process (its transport process is a child of it; `ip netns exec` execs it). */
  pid: number;
  home: string;
  /** What it wrote on stderr (its last `stderrLimit` characters at the most, when that is set). */
  stderr: () => string;
  /** Resolves when the process exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True until the process has exited. */
  running(): boolean;
  /** tools/call; the text of the result, an error result's too (callText in room.ts throws on those). */
  tool(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<string>;
  /** SIGTERM, SIGKILL after 2 s. Each of the three ways to end removes the home, once the process
   * is gone, when spawnMcp made it (or `removeHome`). */
  stop(): Promise<void>;
  /** SIGKILL (a crash), and waits until the process is gone. */
  kill(): Promise<void>;
  /** Ends the session as Claude Code does: stdin EOF; SIGKILL if it is still running after 3 s. */
  close(): Promise<void>;
}

export interface SpawnMcpOptions {
  /** PAPO_HOME (default: a new temporary folder, removed by stop()). */
  home?: string;
  /** stop() removes `home` too (default: only the home spawnMcp made itself). */
  removeHome?: boolean;
  /** Arguments after `mcp`. */
  args?: string[];
  /** Added to { PATH }; PAPO_HOME is set to `home`. */
  env?: NodeJS.ProcessEnv;
  /** The working folder (default: the home). */
  cwd?: string;
  /** A command papo runs under, e.g. ['ip', 'netns', 'exec', ns]. */
  wrap?: string[];
  /** Keep only the last part of stderr beyond this many characters (long chaos runs). */
  stderrLimit?: number;
  /** Keep only the last lines from stdout beyond this many (RpcClient's `keep`; default all). */
  keepLines?: number;
}

/** Starts `papo mcp`; the session is not initialized (client.initialize()). */
export function spawnMcp(opts: SpawnMcpOptions = {}): McpProcess {
  const removeHome = opts.removeHome ?? opts.home === undefined;
  const home = opts.home ?? makeTempDir('papo-mcp-test-');
  const child = spawnPapo(['mcp', ...(opts.args ?? [])], {
    cwd: opts.cwd ?? home,
    env: { PATH: process.env.PATH, ...opts.env, PAPO_HOME: home },
    ...(opts.wrap ? { wrap: opts.wrap } : {}),
  });
  let err = '';
  const limit = opts.stderrLimit;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => {
    err += c;
    if (limit !== undefined && err.length > limit) err = err.slice(-Math.floor(limit / 2));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const client = new RpcClient(child.stdin, child.stdout, opts.keepLines);
  child.stdin.on('error', () => {});
  const running = () => child.exitCode === null && child.signalCode === null;
  const removeOwnHome = () => {
    if (removeHome) rmSync(home, { recursive: true, force: true });
  };
  const within = async (ms: number) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    await exited;
    clearTimeout(timer);
  };
  return {
    child,
    client,
    pid: child.pid as number,
    home,
    stderr: () => err,
    exited,
    running,
    async tool(name, args = {}, timeoutMs = 30_000) {
      return resultText(await client.call(name, args as Json, undefined, timeoutMs));
    },
    async stop() {
      if (running()) {
        child.kill('SIGTERM');
        await within(2000);
      }
      removeOwnHome();
    },
    async kill() {
      if (running()) child.kill('SIGKILL');
      await exited;
      removeOwnHome();
    },
    async close() {
      if (running()) {
        child.stdin.end();
        await within(3000);
      }
      removeOwnHome();
    },
  };
}
