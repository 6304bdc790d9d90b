// The signal server's settings: every limit has a default and an environment variable, so an
// operator tunes a container with `-e` and nothing else. docs/signal-server.md lists them all.
import { SIGNAL_MAX_MESSAGE_BYTES } from '../signal-protocol.js';

export interface TurnConfig {
  /** coturn's `static-auth-secret`; without it no TURN credentials are minted. */
  secret: string | undefined;
  /** TURN URLs handed out with credentials (`turn:host:3478?transport=udp`, `turns:host:5349`). */
  urls: string[];
  /** STUN URLs handed out without credentials. */
  stunUrls: string[];
  /** Lifetime of a minted credential, in seconds. */
  ttlSeconds: number;
  /**
   * TURN identities (distinct `?peer=` hints) one client address (an IPv6 /ipv6Prefix) is given
   * credentials for within `windowMs`, with a signal token or without; 0 = no limit. Past it the
   * welcome carries STUN only and the note `turn_limited` (ADR 0074, ADR 0114).
   */
  perAddress: number;
  windowMs: number;
}

/** Where GET /metrics is served apart from the signal port. */
export interface ListenAddress {
  host: string;
  port: number;
}

export interface SignalConfig {
  host: string;
  port: number;
  /** When set, a client must present it (`Authorization: Bearer` or `?token=`). */
  token: string | undefined;
  /** How many reverse proxies in front append to X-Forwarded-For; 0 = ignore the header. */
  trustProxyHops: number;
  maxConnections: number;
  maxConnectionsPerIp: number;
  /** Token bucket per socket: sustained messages per second and burst size. */
  messagesPerSecond: number;
  messageBurst: number;
  maxMessageBytes: number;
  maxTopicsPerSocket: number;
  maxPeersPerTopic: number;
  /**
   * What the server may hold for one socket that does not read fast enough (bytes not yet taken by
   * the kernel); past it the socket is terminated. Bounds a client that stops reading.
   */
  maxBufferedBytes: number;
  /** IPv6 clients are counted per prefix of this length against maxConnectionsPerIp (128 = per address). */
  ipv6Prefix: number;
  /** A WebSocket ping goes out this often; a socket that misses two is closed. */
  pingIntervalMs: number;
  /** `redis://...` to share membership with other replicas; undefined = in memory. */
  redisUrl: string | undefined;
  /** How long a replica's membership survives in Redis without a refresh. */
  redisTtlMs: number;
  redisPrefix: string;
  turn: TurnConfig;
  /** PEM files: the signal port then speaks https and wss (ADR 0073). */
  tls: { certFile: string; keyFile: string } | undefined;
  /** How often the TLS files are looked at for a renewal. */
  tlsReloadMs: number;
  /**
   * The metrics listener (ADR 0075): an address, 'off', or undefined when PAPO_SIGNAL_METRICS is
   * not set (then `papo signal` uses DEFAULT_METRICS and an embedder none).
   */
  metrics: ListenAddress | 'off' | undefined;
  /**
   * When set, GET /metrics needs `Authorization: Bearer <it>` on the metrics listener, and the
   * signal port serves /metrics too (with the token only). Unset: the signal port has no /metrics.
   */
  metricsToken: string | undefined;
  /**
   * Lines GET /healthz adds after its "ok" (an embedder's warnings, e.g. `papo signal --public`
   * without TURN; what a client needs to find a second STUN destination). Read at each request.
   */
  healthNotes: () => readonly string[];
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7450;

export const DEFAULTS: SignalConfig = {
  host: DEFAULT_HOST,
  port: DEFAULT_PORT,
  token: undefined,
  trustProxyHops: 0,
  maxConnections: 20_000,
  maxConnectionsPerIp: 50,
  messagesPerSecond: 20,
  messageBurst: 100,
  maxMessageBytes: SIGNAL_MAX_MESSAGE_BYTES,
  maxTopicsPerSocket: 16,
  maxPeersPerTopic: 32,
  maxBufferedBytes: 1024 * 1024,
  ipv6Prefix: 64,
  pingIntervalMs: 20_000,
  redisUrl: undefined,
  redisTtlMs: 30_000,
  redisPrefix: 'papo:v1:',
  turn: {
    secret: undefined,
    urls: [],
    stunUrls: [],
    ttlSeconds: 86_400,
    perAddress: 20,
    windowMs: 600_000,
  },
  tls: undefined,
  tlsReloadMs: 5_000,
  metrics: undefined,
  metricsToken: undefined,
  healthNotes: () => [],
};

/** `papo signal`'s metrics listener when PAPO_SIGNAL_METRICS is not set (Prometheus' port range). */
export const DEFAULT_METRICS: ListenAddress = { host: '127.0.0.1', port: 9464 };

/** `host:port`, `[v6]:port` or a bare port (loopback); 'off' turns the listener off. */
export function parseListen(name: string, raw: string): ListenAddress | 'off' {
  if (/^(off|false|no|none)$/i.test(raw)) return 'off';
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(raw) ?? /^()()(\d{1,5})$/.exec(raw);
  const port = m === null ? Number.NaN : Number(m[3]);
  if (m === null || !Number.isInteger(port) || port > 65535) {
    throw new RangeError(`${name} must be host:port, a port, or off`);
  }
  const host = m[1] || m[2] || DEFAULT_METRICS.host;
  return { host, port };
}

/** An empty variable means "not set", like PAPO_SIGNAL= elsewhere in papo. */
function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

/** Durations are given in seconds (decimals allowed, so tests can use 0.2). */
function seconds(env: NodeJS.ProcessEnv, name: string, fallbackMs: number, minMs: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallbackMs;
  const n = Number(raw);
  if (!Number.isFinite(n) || n * 1000 < minMs) {
    throw new RangeError(`${name} must be a number of seconds, at least ${minMs / 1000}`);
  }
  return Math.round(n * 1000);
}

function list(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  return raw
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function trustProxy(env: NodeJS.ProcessEnv): number {
  const raw = read(env, 'PAPO_SIGNAL_TRUST_PROXY');
  if (raw === undefined) return 0;
  const lower = raw.toLowerCase();
  if (lower === 'true' || lower === 'yes' || lower === 'on') return 1;
  if (lower === 'false' || lower === 'no' || lower === 'off') return 0;
  return int(env, 'PAPO_SIGNAL_TRUST_PROXY', 0, 0, 16);
}

/** Both files or neither (the flags --tls-cert/--tls-key go through here too). */
export function tlsFiles(
  certFile: string | undefined,
  keyFile: string | undefined,
): { certFile: string; keyFile: string } | undefined {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    throw new RangeError(
      'a TLS certificate and its key go together: set both PAPO_SIGNAL_TLS_CERT and PAPO_SIGNAL_TLS_KEY (or --tls-cert and --tls-key)',
    );
  }
  return { certFile, keyFile };
}

/** Reads every PAPO_SIGNAL_* / PAPO_TURN_* / PAPO_STUN_* variable; a bad value throws RangeError. */
export function configFromEnv(env: NodeJS.ProcessEnv): SignalConfig {
  const d = DEFAULTS;
  const token = read(env, 'PAPO_SIGNAL_TOKEN');
  // The server's PAPO_SIGNAL_TOKEN is the token itself. The member's takes ORIGIN=TOKEN pairs
  // (ADR 0060); a pair here would make the server require that whole text, so it is refused.
  if (token !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(token)) {
    throw new RangeError(
      'PAPO_SIGNAL_TOKEN of the signal server is the token itself, not ORIGIN=TOKEN (that form is for members)',
    );
  }
  const redisUrl = read(env, 'PAPO_SIGNAL_REDIS');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new RangeError('PAPO_SIGNAL_REDIS must be a redis:// or rediss:// URL');
  }
  for (const url of list(env, 'PAPO_TURN_URLS')) {
    if (!/^turns?:/.test(url)) throw new RangeError('PAPO_TURN_URLS must hold turn: or turns: URLs');
  }
  for (const url of list(env, 'PAPO_STUN_URLS')) {
    if (!/^stuns?:/.test(url)) throw new RangeError('PAPO_STUN_URLS must hold stun: or stuns: URLs');
  }
  const metricsRaw = read(env, 'PAPO_SIGNAL_METRICS');
  return {
    host: read(env, 'PAPO_SIGNAL_HOST') ?? d.host,
    port: int(env, 'PAPO_SIGNAL_PORT', d.port, 0, 65535),
    token,
    trustProxyHops: trustProxy(env),
    maxConnections: int(env, 'PAPO_SIGNAL_MAX_CONNECTIONS', d.maxConnections, 1, 10_000_000),
    maxConnectionsPerIp: int(env, 'PAPO_SIGNAL_MAX_CONNECTIONS_PER_IP', d.maxConnectionsPerIp, 1, 10_000_000),
    messagesPerSecond: int(env, 'PAPO_SIGNAL_RATE', d.messagesPerSecond, 1, 1_000_000),
    messageBurst: int(env, 'PAPO_SIGNAL_BURST', d.messageBurst, 1, 1_000_000),
    maxMessageBytes: int(
      env,
      'PAPO_SIGNAL_MAX_MESSAGE_BYTES',
      d.maxMessageBytes,
      256,
      SIGNAL_MAX_MESSAGE_BYTES,
    ),
    maxTopicsPerSocket: int(env, 'PAPO_SIGNAL_MAX_TOPICS_PER_SOCKET', d.maxTopicsPerSocket, 1, 10_000),
    maxPeersPerTopic: int(env, 'PAPO_SIGNAL_MAX_PEERS_PER_TOPIC', d.maxPeersPerTopic, 2, 10_000),
    // At least two of the largest messages, so a reader that is merely busy is not cut off.
    maxBufferedBytes: int(
      env,
      'PAPO_SIGNAL_MAX_BUFFERED_BYTES',
      d.maxBufferedBytes,
      2 * SIGNAL_MAX_MESSAGE_BYTES,
      1024 * 1024 * 1024,
    ),
    ipv6Prefix: int(env, 'PAPO_SIGNAL_IPV6_PREFIX', d.ipv6Prefix, 16, 128),
    pingIntervalMs: seconds(env, 'PAPO_SIGNAL_PING_INTERVAL', d.pingIntervalMs, 50),
    redisUrl,
    redisTtlMs: seconds(env, 'PAPO_SIGNAL_REDIS_TTL', d.redisTtlMs, 300),
    redisPrefix: read(env, 'PAPO_SIGNAL_REDIS_PREFIX') ?? d.redisPrefix,
    turn: {
      secret: read(env, 'PAPO_TURN_SECRET'),
      urls: list(env, 'PAPO_TURN_URLS'),
      stunUrls: list(env, 'PAPO_STUN_URLS'),
      ttlSeconds: Math.round(seconds(env, 'PAPO_TURN_TTL', d.turn.ttlSeconds * 1000, 1000) / 1000),
      perAddress: int(env, 'PAPO_TURN_CREDENTIALS_PER_ADDRESS', d.turn.perAddress, 0, 1_000_000),
      windowMs: seconds(env, 'PAPO_TURN_CREDENTIALS_WINDOW', d.turn.windowMs, 1000),
    },
    tls: tlsFiles(read(env, 'PAPO_SIGNAL_TLS_CERT'), read(env, 'PAPO_SIGNAL_TLS_KEY')),
    tlsReloadMs: seconds(env, 'PAPO_SIGNAL_TLS_RELOAD', d.tlsReloadMs, 50),
    metrics: metricsRaw === undefined ? undefined : parseListen('PAPO_SIGNAL_METRICS', metricsRaw),
    metricsToken: read(env, 'PAPO_SIGNAL_METRICS_TOKEN'),
    healthNotes: d.healthNotes,
  };
}
