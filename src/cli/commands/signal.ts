// `papo signal [--host H] [--port P]`: the standalone signal server (what the Docker image runs).
// Settings come from PAPO_SIGNAL_* / PAPO_TURN_* (docs/signal-server.md); the flags win over them.
import type { Command } from 'commander';
import { startSignalServer } from '../../signal-server/server.js';
import type { CliContext } from '../context.js';

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new Error(`--port must be a number from 0 to 65535`);
  return n;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('signal')
    .description('run a signal server (rendezvous for papo rooms); settings in PAPO_SIGNAL_* variables')
    .option('--host <host>', 'address to listen on (PAPO_SIGNAL_HOST; default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (PAPO_SIGNAL_PORT; default 7450)')
    .action(async (opts: { host?: string; port?: string }) => {
      const log = (line: string) => process.stderr.write(`papo signal: ${line}\n`);
      let server: Awaited<ReturnType<typeof startSignalServer>>;
      try {
        server = await startSignalServer({
          env: ctx.env,
          log,
          ...(opts.host !== undefined ? { host: opts.host } : {}),
          ...(opts.port !== undefined ? { port: parsePort(opts.port) } : {}),
        });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        const message =
          e.code === 'EADDRINUSE'
            ? 'that address and port are already in use (another signal server?)'
            : e.code === 'EACCES'
              ? 'permission denied to listen on that port'
              : e.message;
        process.stderr.write(`error: ${message}\n`);
        process.exitCode = 1;
        return;
      }
      const c = server.config;
      log(`listening on ${server.url}/v1/ws`);
      log(
        `store: ${c.redisUrl === undefined ? 'memory (one process)' : 'redis (replicas)'}; ` +
          `token: ${c.token === undefined ? 'off' : 'on'}; ` +
          `turn credentials: ${c.turn.secret !== undefined && c.turn.urls.length > 0 ? 'on' : 'off'}`,
      );
      if (c.turn.urls.length > 0 && c.turn.secret === undefined) {
        log('PAPO_TURN_URLS is set without PAPO_TURN_SECRET: no TURN server is handed out');
      }
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          log(`${signal}: closing connections`);
          server.close().then(resolve, (err: unknown) => {
            log(`error while closing: ${err instanceof Error ? err.message : String(err)}`);
            resolve();
          });
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      log('stopped');
    });
}
