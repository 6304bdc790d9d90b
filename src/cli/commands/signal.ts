// `papo signal [--public ADDR] [--host H] [--port P] [--tls-cert F --tls-key F] [--state DIR]`: the
// standalone signal server (what the Docker image runs). Settings come from PAPO_SIGNAL_* /
// PAPO_TURN_* (docs/signal-server.md); the flags win over them. With --public it is the operator's
// whole set-up (ADR 0088, signal-public/public-signal.ts) and prints the room creator's command.
import { join } from 'node:path';
import type { Command } from 'commander';
import { messageOf, PapoError, type PapoErrorDetails } from '../../client/errors.js';
import { bareHost, isLoopbackHost } from '../../client/hosts.js';
import { papoHome } from '../../client/store/home.js';
import { DEFAULT_METRICS, tlsFiles } from '../../signal-server/config.js';
import { startSignalServer } from '../../signal-server/server.js';
import { type CliContext, reportError, text } from '../context.js';
import {
  DEFAULT_TURN_PORT,
  DEFAULT_TURN_TLS_PORT,
  type PublicSignal,
  startPublicSignal,
} from '../signal-public/public-signal.js';

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

function parsePort(value: string, flag = '--port'): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new Error(`${flag} must be a number from 0 to 65535`);
  return n;
}

interface SignalOptions {
  public?: string;
  host?: string;
  port?: string;
  tlsCert?: string;
  tlsKey?: string;
  state?: string;
  turnPort?: string;
  turnTlsPort?: string;
}

function turnMode(c: Awaited<ReturnType<typeof startSignalServer>>['config']): string {
  if (c.turn.secret === undefined || c.turn.urls.length === 0) return 'off';
  const who = c.token !== undefined ? 'to clients with the token' : 'to anyone: no token';
  if (c.turn.perAddress === 0) return `on (${who}, no per-address limit)`;
  return `on (${who}; ${c.turn.perAddress} TURN identities per address per ${c.turn.windowMs / 1000} s)`;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('signal')
    .description('run a signal server (rendezvous for papo rooms); settings in PAPO_SIGNAL_* variables')
    .option(
      '--host <host>',
      'address to listen on (PAPO_SIGNAL_HOST; default 127.0.0.1, with --public every interface)',
    )
    .option('--port <port>', 'port to listen on (PAPO_SIGNAL_PORT; default 7450)')
    .option(
      '--tls-cert <file>',
      'PEM certificate (chain): serve https and wss, reloaded when renewed (PAPO_SIGNAL_TLS_CERT)',
    )
    .option('--tls-key <file>', 'PEM private key of --tls-cert (PAPO_SIGNAL_TLS_KEY)')
    .option(
      '--public <addr>',
      "serve members on other machines at this name or IP address: every interface, TLS (self-signed unless --tls-cert), a token, coturn when installed; prints the room creator's command",
    )
    .option(
      '--state <dir>',
      'with --public: where the key, token and TURN secret are kept (default $PAPO_HOME/signal)',
    )
    .option('--turn-port <port>', `with --public: coturn's UDP and TCP port (default ${DEFAULT_TURN_PORT})`)
    .option('--turn-tls-port <port>', `with --public: coturn's TLS port (default ${DEFAULT_TURN_TLS_PORT})`)
    .action(async (opts: SignalOptions) => {
      const log = (line: string) => process.stderr.write(`papo signal: ${line}\n`);
      let server: Awaited<ReturnType<typeof startSignalServer>>;
      let pub: PublicSignal | undefined;
      try {
        // A flag wins over its variable; the pair is checked as a pair.
        const env = ctx.env;
        const flagTls =
          opts.tlsCert !== undefined || opts.tlsKey !== undefined
            ? tlsFiles(opts.tlsCert ?? env.PAPO_SIGNAL_TLS_CERT, opts.tlsKey ?? env.PAPO_SIGNAL_TLS_KEY)
            : undefined;
        if (opts.public !== undefined) {
          pub = await startPublicSignal({
            address: opts.public,
            host: opts.host,
            port: opts.port === undefined ? undefined : parsePort(opts.port),
            stateDir: opts.state ?? join(papoHome(env), 'signal'),
            tls: flagTls,
            turnPort:
              opts.turnPort === undefined ? DEFAULT_TURN_PORT : parsePort(opts.turnPort, '--turn-port'),
            turnTlsPort:
              opts.turnTlsPort === undefined
                ? DEFAULT_TURN_TLS_PORT
                : parsePort(opts.turnTlsPort, '--turn-tls-port'),
            env,
            log,
            noTurnWarning: text(ctx).signalNoTurn,
          });
          server = pub.server;
        } else {
          if (opts.state !== undefined || opts.turnPort !== undefined || opts.turnTlsPort !== undefined) {
            throw new Error('--state, --turn-port and --turn-tls-port go with --public');
          }
          server = await startSignalServer({
            env,
            log,
            defaultMetrics: DEFAULT_METRICS,
            ...(flagTls !== undefined ? { config: { tls: flagTls } } : {}),
            ...(opts.host !== undefined ? { host: opts.host } : {}),
            ...(opts.port !== undefined ? { port: parsePort(opts.port) } : {}),
          });
        }
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
        const host = bareHost(new URL(server.metricsUrl).hostname);
        if (c.metricsToken === undefined && !isLoopbackHost(host)) {
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
      const messages = text(ctx);
      if (pub === undefined && isLoopbackHost(server.host)) log(messages.signalLoopbackOnly(server.url));
      if (pub !== undefined) {
        if (pub.made.length > 0) log(`state: made ${pub.made.join(', ')} in ${pub.stateDir}`);
        else log(`state: ${pub.stateDir}`);
        log(`tls: pin ${pub.pin}`);
        if (pub.turn === 'coturn') {
          log(`turn: coturn started (pid ${pub.coturn?.pid}; configuration ${pub.coturn?.confPath})`);
        }
        log(`stun: ${pub.stunUrls.join(' ')}`);
        if (pub.relay?.kind === 'mapped' && pub.relay.relayIp !== undefined) {
          // The address coturn hands out (ADDR, or the one a DNS name resolved to here).
          const shown = pub.relay.externalIp?.split('/')[0] ?? bareHost(new URL(pub.signalAddress).hostname);
          log(messages.signalMapped(shown, pub.relay.relayIp));
        }
        for (const line of messages.signalNoTurn) if (pub.turn === 'none') log(line);
        log(messages.signalPorts(pub.ports));
        log(messages.signalCreatorCommand);
        // On a line of its own on stdout (stderr has the rest), so a script can take it alone.
        process.stdout.write(`papo new --signal '${pub.signalAddress}'\n`);
      }
      const closeAll = pub === undefined ? () => server.close() : () => (pub as PublicSignal).close();
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          log(`${signal}: closing connections`);
          closeAll().then(resolve, (err: unknown) => {
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
