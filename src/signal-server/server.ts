// Starting and stopping a signal server: used by `papo signal` and embedded by the room member
// (DESIGN.md: a `papo mcp` whose room uses a loopback URL starts one in-process when the port is
// free). A factory that returns a handle, like trystero's relays: tests pass port 0.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { CLOSE, createSignalApp } from './app.js';
import { configFromEnv, type SignalConfig } from './config.js';
import { type Hub, MemoryHub } from './hub.js';
import { Metrics } from './metrics.js';
import { RedisHub } from './redis-hub.js';

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
}

export interface SignalServerHandle {
  /** ws://host:port (no path; clients connect to `${url}/v1/ws`). */
  url: string;
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
      : await RedisHub.connect({
          url: config.redisUrl,
          prefix: config.redisPrefix,
          ttlMs: config.redisTtlMs,
          maxPeersPerTopic: config.maxPeersPerTopic,
          metrics,
          log,
        });
  const signal = createSignalApp({ config, hub, metrics, log });
  const server = createAdaptorServer({ fetch: signal.app.fetch }) as Server;
  server.on('upgrade', signal.upgrade);

  try {
    await new Promise<void>((resolve, reject) => {
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
      server.listen(config.port, config.host);
    });
  } catch (err) {
    await signal.shutdown();
    await hub.close();
    throw err;
  }
  // Errors after start (e.g. EMFILE on accept) must not crash the process.
  server.on('error', (err) => log(`server error: ${err.message}`));
  server.on('clientError', (_err, socket) => socket.destroy());

  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `ws://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    config,
    metrics,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await signal.shutdown(CLOSE.goingAway);
        server.closeAllConnections();
        await stopped;
        await hub.close();
      })();
      return closing;
    },
  };
}
