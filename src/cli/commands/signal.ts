// `papo signal [--host H] [--port P] [--tls-cert F --tls-key F]`: the standalone signal server (what
// the Docker image runs). Settings come from PAPO_SIGNAL_* / PAPO_TURN_* (docs/signal-server.md); the
// flags win over them.
import type { Command } from 'commander';
import { messageOf, PapoError, type PapoErrorDetails } from '../../client/errors.js';
import { DEFAULT_METRICS, tlsFiles } from '../../signal-server/config.js';
import { startSignalServer } from '../../signal-server/server.js';
import { type CliContext, reportError } from '../context.js';

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new Error(`--port must be a number from 0 to 65535`);
  return n;
}

/** A listen error from startSignalServer as a PapoError with its data; any other error as it is. */
function listenFailure(err: unknown): unknown {
  const e = err as NodeJS.ErrnoException & { metrics?: boolean; address?: string; reason?: string };
  if (e.metrics === true && e.address !== undefined) {
    const detail = {
      listener: 'metrics',
      address: e.address,
      errno: e.code,
      reason: e.reason ?? e.message,
    } as const;
    return new PapoError('listen_failed', listenFailedText(detail), { detail, cause: err });
  }
  if (e.code === 'EADDRINUSE' || e.code === 'EACCES') {
    const detail = { listener: 'signal', errno: e.code } as const;
    return new PapoError('listen_failed', listenFailedText(detail), { detail, cause: err });
  }
  return err;
}

function listenFailedText(d: PapoErrorDetails['listen_failed']): string {
  if (d.listener === 'metrics') {
    const inUse =
      d.errno === 'EADDRINUSE' ? ' is in use: set PAPO_SIGNAL_METRICS to another address, or off' : '';
    return `the metrics address ${d.address} (PAPO_SIGNAL_METRICS): ${d.errno ?? d.reason}${inUse}`;
  }
  return d.errno === 'EADDRINUSE'
    ? 'that address and port are already in use (another signal server?)'
    : 'permission denied to listen on that port';
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function turnMode(c: Awaited<ReturnType<typeof startSignalServer>>['config']): string {
  if (c.turn.secret === undefined || c.turn.urls.length === 0) return 'off';
  if (c.token !== undefined) return 'on (to clients with the token)';
  if (c.turn.perAddress === 0) return 'on (to anyone: no token, no per-address limit)';
  return `on (no token: ${c.turn.perAddress} TURN identities per address per ${c.turn.windowMs / 1000} s)`;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('signal')
    .description('run a signal server (rendezvous for papo rooms); settings in PAPO_SIGNAL_* variables')
    .option('--host <host>', 'address to listen on (PAPO_SIGNAL_HOST; default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (PAPO_SIGNAL_PORT; default 7450)')
    .option(
      '--tls-cert <file>',
      'PEM certificate (chain): serve https and wss, reloaded when renewed (PAPO_SIGNAL_TLS_CERT)',
    )
    .option('--tls-key <file>', 'PEM private key of --tls-cert (PAPO_SIGNAL_TLS_KEY)')
    .action(async (opts: { host?: string; port?: string; tlsCert?: string; tlsKey?: string }) => {
      const log = (line: string) => process.stderr.write(`papo signal: ${line}\n`);
      let server: Awaited<ReturnType<typeof startSignalServer>>;
      try {
        // A flag wins over its variable; the pair is checked as a pair.
        const env = ctx.env;
        const flagTls =
          opts.tlsCert !== undefined || opts.tlsKey !== undefined
            ? tlsFiles(opts.tlsCert ?? env.PAPO_SIGNAL_TLS_CERT, opts.tlsKey ?? env.PAPO_SIGNAL_TLS_KEY)
            : undefined;
        server = await startSignalServer({
          env,
          log,
          defaultMetrics: DEFAULT_METRICS,
          ...(flagTls !== undefined ? { config: { tls: flagTls } } : {}),
          ...(opts.host !== undefined ? { host: opts.host } : {}),
          ...(opts.port !== undefined ? { port: parsePort(opts.port) } : {}),
        });
      } catch (err) {
        // papo signal speaks English, whatever the person's language: every line it writes is a
        // server's log, read by its operator's tools (docs/signal-server.md).
        reportError(ctx, listenFailure(err), 'en');
        return;
      }
      const c = server.config;
      log(`listening on ${server.url}/v1/ws`);
      if (server.tls !== undefined) {
        log(
          `tls: certificate serial ${server.tls.serial}, valid until ${server.tls.validTo}; ` +
            `renewed files are loaded within ${c.tlsReloadMs / 1000} s`,
        );
      }
      if (server.metricsUrl !== undefined) {
        log(
          `metrics on ${server.metricsUrl}/metrics${c.metricsToken === undefined ? '' : ' (token required)'}`,
        );
        const host = new URL(server.metricsUrl).hostname.replace(/^\[|\]$/g, '');
        if (c.metricsToken === undefined && !isLoopback(host)) {
          log(
            `warning: metrics are served without a token on ${host}: set PAPO_SIGNAL_METRICS_TOKEN, or keep that port private`,
          );
        }
      } else if (c.metrics === 'off') log('metrics listener: off');
      if (c.metricsToken !== undefined) log('metrics also on the signal port at /metrics, with the token');
      log(
        `store: ${c.redisUrl === undefined ? 'memory (one process)' : 'redis (replicas)'}; ` +
          `token: ${c.token === undefined ? 'off' : 'on'}; ` +
          `turn credentials: ${turnMode(c)}`,
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
            log(`error while closing: ${messageOf(err)}`);
            resolve();
          });
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      log('stopped');
    });
}
