// Starting and stopping a signal server: used by `papo signal` and embedded by the room member
// (docs/architecture.md, "The local signal server": a `papo mcp` whose room uses a loopback URL
// starts one in-process when the port is free). A factory that returns a handle, like trystero's
// relays: tests pass port 0.
import type { Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { type AddressInfo, isIP } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { CLOSE, createSignalApp } from './app.js';
import { configFromEnv, type ListenAddress, type SignalConfig } from './config.js';
import { type Hub, MemoryHub } from './hub.js';
import { Metrics } from './metrics.js';
import { type LoadedPair, loadPair, TlsReloader } from './tls.js';

export interface SignalServerOptions {
  /** Listen address; default PAPO_SIGNAL_HOST, else 127.0.0.1. */
  host?: string;
  /** Listen port (0 = any free port); default PAPO_SIGNAL_PORT, else 7450. */
  port?: number;
  /** Where the limits and settings are read from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Overrides on top of the environment (tests and embedders). */
  config?: Partial<SignalConfig>;
  /** Operational log lines (never message contents); default: silent. */
  log?: (line: string) => void;
  /**
   * The metrics listener when PAPO_SIGNAL_METRICS is not set (`papo signal` passes DEFAULT_METRICS;
   * embedders none). Such a default that cannot bind is logged; an explicit one is an error.
   */
  defaultMetrics?: ListenAddress;
}

export interface SignalServerHandle {
  /** ws://host:port, or wss:// with TLS (no path; clients connect to `${url}/v1/ws`). */
  url: string;
  /** http://host:port of the metrics listener (GET /metrics), when there is one. */
  metricsUrl: string | undefined;
  /** The leaf certificate in use (serial, expiry), with TLS. */
  tls: LoadedPair | undefined;
  host: string;
  port: number;
  config: SignalConfig;
  metrics: Metrics;
  /** Closes every socket with 1001 (going away), stops listening, leaves the shared store. */
  close(): Promise<void>;
}

/**
 * Starts a signal server. Rejects with the listen error (its `code` kept, e.g. 'EADDRINUSE') when
 * the port cannot be taken, leaving nothing open behind; a bad setting rejects with RangeError.
 */
export async function startSignalServer(options: SignalServerOptions = {}): Promise<SignalServerHandle> {
  const config: SignalConfig = { ...configFromEnv(options.env ?? process.env), ...options.config };
  if (options.host !== undefined) config.host = options.host;
  if (options.port !== undefined) config.port = options.port;
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) {
    throw new RangeError('port must be an integer from 0 to 65535');
  }
  const log = options.log ?? (() => {});
  const metrics = new Metrics();
  const hub: Hub =
    config.redisUrl === undefined
      ? new MemoryHub(config.maxPeersPerTopic, metrics)
      : // ioredis only for a server that uses Redis: loaded, it holds about 9 MB of every process.
        await (await import('./redis-hub.js')).RedisHub.connect({
          url: config.redisUrl,
          prefix: config.redisPrefix,
          ttlMs: config.redisTtlMs,
          maxPeersPerTopic: config.maxPeersPerTopic,
          maxMessageBytes: config.maxMessageBytes,
          metrics,
          log,
        });
  // Read before anything listens: a missing, unreadable or mismatched file stops the start.
  let pair: LoadedPair | undefined;
  try {
    pair = config.tls === undefined ? undefined : loadPair(config.tls);
  } catch (err) {
    await hub.close();
    throw err;
  }
  const signal = createSignalApp({ config, hub, metrics, log });
  const server = (
    pair === undefined
      ? createAdaptorServer({ fetch: signal.app.fetch })
      : createAdaptorServer({
          fetch: signal.app.fetch,
          createServer: createHttpsServer,
          serverOptions: { cert: pair.cert, key: pair.key },
        })
  ) as Server;
  server.on('upgrade', signal.upgrade);
  const metricsAt =
    config.metrics === undefined
      ? options.defaultMetrics
      : config.metrics === 'off'
        ? undefined
        : config.metrics;
  const metricsServer =
    metricsAt === undefined ? undefined : (createAdaptorServer({ fetch: signal.metricsApp.fetch }) as Server);

  try {
    await listen(server, config.port, config.host);
    if (metricsServer !== undefined && metricsAt !== undefined) {
      try {
        await listen(metricsServer, metricsAt.port, metricsAt.host);
      } catch (err) {
        const at = `${metricsAt.host}:${metricsAt.port}`;
        const e = err as NodeJS.ErrnoException;
        if (config.metrics !== undefined) {
          const wrapped = new Error(
            `the metrics address ${at} (PAPO_SIGNAL_METRICS): ${e.code ?? e.message}`,
          );
          Object.assign(wrapped, { code: e.code, metrics: true, address: at, reason: e.message });
          throw wrapped;
        }
        // The default address taken (another `papo signal` on this machine): serve without metrics.
        log(
          `metrics: ${at} not available (${e.code ?? e.message}); no metrics listener (set PAPO_SIGNAL_METRICS)`,
        );
        metricsServer.close();
      }
    }
  } catch (err) {
    if (server.listening) server.close();
    await signal.shutdown();
    await hub.close();
    throw err;
  }
  // Errors after start (e.g. EMFILE on accept) must not crash the process.
  server.on('error', (err) => log(`server error: ${err.message}`));
  server.on('clientError', (_err, socket) => socket.destroy());
  // A TLS handshake that fails (a client that does not trust the certificate) is the client's
  // problem; 'tlsClientError' is ignored rather than logged per attempt.
  if (pair !== undefined) server.on('tlsClientError', () => {});
  metricsServer?.on('error', (err) => log(`metrics server error: ${err.message}`));
  const reloader =
    config.tls === undefined
      ? undefined
      : new TlsReloader(
          config.tls,
          config.tlsReloadMs,
          (context, loaded) => {
            (server as unknown as HttpsServer).setSecureContext(context);
            handle.tls = loaded;
          },
          log,
        );

  const address = server.address() as AddressInfo;
  const metricsAddress = metricsServer?.listening ? (metricsServer.address() as AddressInfo) : undefined;
  let closing: Promise<void> | undefined;
  const handle: SignalServerHandle = {
    url: `${pair === undefined ? 'ws' : 'wss'}://${urlHost(address)}:${address.port}`,
    metricsUrl:
      metricsAddress === undefined ? undefined : `http://${urlHost(metricsAddress)}:${metricsAddress.port}`,
    tls: pair,
    host: address.address,
    port: address.port,
    config,
    metrics,
    close() {
      closing ??= (async () => {
        reloader?.stop();
        if (metricsServer?.listening) {
          metricsServer.close();
          metricsServer.closeAllConnections();
        }
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await signal.shutdown(CLOSE.goingAway);
        server.closeAllConnections();
        await stopped;
        await hub.close();
      })();
      return closing;
    },
  };
  return handle;
}

function urlHost(address: AddressInfo): string {
  return isIP(address.address) === 6 ? `[${address.address}]` : address.address;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}
