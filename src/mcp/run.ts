// `papo mcp` as a process: stdio, signals and exit. Claude Code stops a stdio server with SIGINT,
// then SIGTERM 100 ms later, then SIGKILL 400 ms after that (on Windows it closes stdin and kills
// the tree 300 ms later). So on the first of stdin EOF, SIGINT or SIGTERM papo cancels the calls in
// flight, closes the member within CLOSE_BUDGET_MS and exits, well inside the first 100 ms.
import { type McpServerOptions, startMcpServer } from './server.js';

/** Time given to member.close() (goodbye to neighbours, flush, unlock) before exiting anyway. */
export const CLOSE_BUDGET_MS = 70;

export type RunMcpOptions = Omit<McpServerOptions, 'stdin' | 'stdout' | 'stderr'>;

export function runMcpServer(options: RunMcpOptions): void {
  // stdout is the protocol channel: anything a dependency prints with console.log goes to stderr.
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;

  const server = startMcpServer(options);
  let exiting = false;
  const stop = (why: string) => {
    if (exiting) {
      // A second signal while closing: the client is out of patience.
      if (why !== 'stdin') process.exit(0);
      return;
    }
    exiting = true;
    void server.shutdown(CLOSE_BUDGET_MS).finally(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // SIGHUP: the terminal that ran a hand-driven server went away.
  process.on('SIGHUP', () => stop('SIGHUP'));
  void server.inputEnded.then(() => stop('stdin'));
}
