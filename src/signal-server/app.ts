// The hono app: GET / (what this is), GET /healthz, GET /metrics (only with PAPO_SIGNAL_METRICS_TOKEN,
// ADR 0075; otherwise on the metrics listener's app alone), and the protocol v1 WebSocket at
// /v1/ws. Each socket is policed here (token, connection limits, size, rate, topic limit, message
// shape); the hub only moves messages. A refusal is always an `error` message, plus a close when
// the socket must go. Nothing here logs message contents or full topics.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type Context, Hono } from 'hono';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  type ErrorMessage,
  PEER_PATTERN,
  SIGNAL_PATH,
  SIGNAL_VERSION,
  type SignalErrorCode,
  type WelcomeMessage,
} from '../signal-protocol.js';
import type { SignalConfig } from './config.js';
import type { Hub, JoinResult, Member } from './hub.js';
import { AddressCounter, addressKey, clientAddress, TokenBucket } from './limits.js';
import type { Metrics } from './metrics.js';
import { parseClientMessage } from './parse.js';
import { TurnIssuer } from './turn-credentials.js';

/** Close codes (RFC 6455 section 7.4.1). */
export const CLOSE = {
  goingAway: 1001,
  policy: 1008,
  tooBig: 1009,
  internal: 1011,
  tryAgainLater: 1013,
} as const;

/**
 * Frames above this are cut off by the WebSocket layer itself (close 1009, no error message);
 * between the protocol limit and this, the message is refused with `too_large` and the socket stays.
 */
export const HARD_FRAME_LIMIT = 256 * 1024;

export interface SignalAppDeps {
  config: SignalConfig;
  hub: Hub;
  metrics: Metrics;
  log: (line: string) => void;
}

export interface SignalApp {
  /** The HTTP routes (GET /, /healthz, /metrics with its token, and a 426 for a plain GET of /v1/ws). */
  app: Hono;
  /** The metrics listener's routes: GET /metrics (with the token when one is set) and /healthz. */
  metricsApp: Hono;
  /** The node:http 'upgrade' handler for the protocol's WebSocket. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every socket with `code` and waits until the hub has dropped them. */
  shutdown(code?: number): Promise<void>;
  connectionCount(): number;
}

class Connection implements Member {
  readonly topics = new Map<string, string>();
  /** Pings sent and not answered yet. */
  unanswered = 0;
  /** Refused messages since the last accepted one (a flood that does not stop is closed). */
  strikes = 0;
  closed = false;
  /** Set while an asynchronous hub operation runs: later messages wait for it, in order. */
  chain: Promise<void> | undefined;
  /** True while this socket's frames are held back until the end of the current tick. */
  corked = false;

  constructor(
    readonly id: number,
    readonly ws: WebSocket,
    /** The socket ws writes to (the one the upgrade came on). */
    readonly socket: Duplex,
    readonly address: string,
    readonly bucket: TokenBucket,
    readonly metrics: Metrics,
    readonly maxBufferedBytes: number,
  ) {}

  sendText(text: string): void {
    if (this.ws.readyState !== 1) return;
    // Every frame for this socket in one tick (all the signals forwarded from one read of a
    // sender's socket) leaves in one write, one system call, instead of one write each. ws corks
    // and uncorks around each frame, which nests inside this.
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(flush, this);
    }
    this.ws.send(text);
    this.metrics.bytesSent += Buffer.byteLength(text);
  }

  refuse(code: SignalErrorCode, message: string, close?: number): void {
    this.metrics.refuse(code);
    this.sendText(JSON.stringify({ t: 'error', code, message } satisfies ErrorMessage));
    if (close !== undefined) this.ws.close(close, code);
  }
}

/** The end of a tick with frames held for `conn`: they go out, then the socket's backlog is checked. */
function flush(conn: Connection): void {
  conn.corked = false;
  conn.socket.uncork();
  // A client that stops reading fills the kernel's buffers, then ws's: what the socket could not
  // write yet (bufferedAmount: the net.Socket's writable queue plus ws's own). Without a bound, a
  // peer sending it signals grows this process at the peer's rate until the ping timeout.
  if (conn.ws.readyState === 1 && conn.ws.bufferedAmount > conn.maxBufferedBytes) {
    conn.metrics.slowClientsClosed++;
    conn.ws.terminate();
  }
}

function sameSecret(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  // Hash both sides so the comparison takes the same time whatever the lengths.
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

/** GET /metrics: the token when one is set (on any listener); 401 otherwise. */
function metricsRoute(app: Hono, token: string | undefined, render: () => string): void {
  app.get('/metrics', (c) => {
    if (token !== undefined && !sameSecret(token, bearer(c.req.header('authorization')))) {
      c.header('WWW-Authenticate', 'Bearer realm="papo signal metrics"');
      return c.text('a metrics token is required (Authorization: Bearer)\n', 401);
    }
    c.header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8');
    return c.body(render());
  });
}

function bearer(header: string | undefined): string | undefined {
  const m = header === undefined ? null : /^Bearer\s+(.+)$/i.exec(header.trim());
  return m?.[1]?.trim();
}

export function createSignalApp(deps: SignalAppDeps): SignalApp {
  const { config, hub, metrics, log } = deps;
  const app = new Hono();
  // The upgrade goes straight to ws rather than through @hono/node-ws, which keeps each upgrade's
  // hono context, Request and IncomingMessage alive as long as the socket (ADR 0020: twice the
  // memory per idle connection). The ws default frame limit is 100 MiB; nothing legitimate comes
  // near HARD_FRAME_LIMIT.
  const wss = new WebSocketServer({ noServer: true, maxPayload: HARD_FRAME_LIMIT, clientTracking: false });

  const connections = new Set<Connection>();
  const addresses = new AddressCounter();
  const turn = new TurnIssuer(config.turn, config.token !== undefined);
  let nextId = 1;
  let stopping = false;

  app.get('/', (c) =>
    c.text(
      `papo signal server\n\nA WebSocket rendezvous for papo rooms (signal protocol v${SIGNAL_VERSION} at ${SIGNAL_PATH}).\n` +
        'It forwards sealed WebRTC offers, answers and ICE candidates between members of a room and keeps nothing.\n' +
        'Health: /healthz.\n',
    ),
  );
  const healthz = (c: Context) =>
    hub.healthy() ? c.text('ok\n') : c.text('shared store unreachable\n', 503);
  app.get('/healthz', healthz);
  const render = () => {
    const { topics, peers } = hub.counts();
    metrics.turnIssued = turn.issued;
    metrics.turnLimited = turn.limited;
    return metrics.render({ connections: connections.size, topics, peers });
  };
  // The signal port is the public one: /metrics there only for a scraper holding the token.
  if (config.metricsToken !== undefined) metricsRoute(app, config.metricsToken, render);
  const metricsApp = new Hono();
  metricsRoute(metricsApp, config.metricsToken, render);
  metricsApp.get('/healthz', healthz);

  const run = (conn: Connection, step: () => void | Promise<void>): void => {
    const fail = (err: unknown) => {
      log(`socket ${conn.id}: hub error: ${err instanceof Error ? err.message : String(err)}`);
      // The client redials with backoff; better than a socket in an unknown state.
      if (!conn.closed) conn.ws.close(CLOSE.internal, 'internal error');
    };
    if (conn.chain !== undefined) {
      const next: Promise<void> = conn.chain
        .then(step)
        .catch(fail)
        .then(() => {
          if (conn.chain === next) conn.chain = undefined;
        });
      conn.chain = next;
      return;
    }
    let result: void | Promise<void>;
    try {
      result = step();
    } catch (err) {
      fail(err);
      return;
    }
    if (result instanceof Promise) {
      const next: Promise<void> = result.catch(fail).then(() => {
        if (conn.chain === next) conn.chain = undefined;
      });
      conn.chain = next;
    }
  };

  const afterJoin = (conn: Connection, result: JoinResult): void => {
    if (result === 'room_full') conn.refuse('room_full', 'this topic has as many peers as the server allows');
  };

  const handle = (conn: Connection, raw: string): void | Promise<void> => {
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) return conn.refuse('bad_request', parsed.reason);
    const m = parsed.message;
    switch (m.t) {
      case 'join': {
        const current = conn.topics.get(m.topic);
        if (current !== undefined && current !== m.peer) {
          return conn.refuse('bad_request', 'this socket is already on the topic as another peer');
        }
        if (current === undefined && conn.topics.size >= config.maxTopicsPerSocket) {
          return conn.refuse('topic_limit', `at most ${config.maxTopicsPerSocket} topics per connection`);
        }
        const result = hub.join(conn, m.topic, m.peer);
        if (result instanceof Promise) return result.then((r) => afterJoin(conn, r));
        return afterJoin(conn, result);
      }
      case 'signal': {
        if (!conn.topics.has(m.topic))
          return conn.refuse('bad_request', 'join the topic before signalling on it');
        const delivered = hub.signal(conn, m.topic, m.to, m.data, parsed.plain);
        const after = (ok: boolean) => {
          if (!ok) conn.refuse('unknown_peer', 'no such peer on this topic');
        };
        if (delivered instanceof Promise) return delivered.then(after);
        return after(delivered);
      }
      case 'leave':
        return hub.leave(conn, m.topic);
    }
  };

  const onMessage = (conn: Connection, data: Buffer, isBinary: boolean): void => {
    metrics.messagesReceived++;
    metrics.bytesReceived += data.length;
    if (conn.closed) return;
    if (!conn.bucket.take()) {
      // One error per flood, not one per dropped message; a flood that outlasts a second burst
      // is closed.
      if (conn.strikes === 0)
        conn.refuse('rate_limited', `at most ${config.messagesPerSecond} messages per second`);
      else metrics.refuse('rate_limited');
      conn.strikes++;
      if (conn.strikes > config.messageBurst) conn.ws.close(CLOSE.policy, 'rate_limited');
      return;
    }
    conn.strikes = 0;
    if (data.length > config.maxMessageBytes) {
      conn.refuse('too_large', `messages are limited to ${config.maxMessageBytes} bytes`);
      return;
    }
    if (isBinary) {
      conn.refuse('bad_request', 'only text messages are part of the protocol');
      return;
    }
    const text = data.toString('utf8');
    run(conn, () => handle(conn, text));
  };

  const open = (
    ws: WebSocket,
    socket: Duplex,
    address: string,
    authorized: boolean,
    tag: string,
  ): Connection | undefined => {
    const conn = new Connection(
      nextId++,
      ws,
      socket,
      address,
      new TokenBucket(config.messagesPerSecond, config.messageBurst),
      metrics,
      config.maxBufferedBytes,
    );
    if (stopping) {
      ws.close(CLOSE.goingAway, 'server shutting down');
      return undefined;
    }
    if (!authorized) {
      conn.refuse('unauthorized', 'a valid token is required', CLOSE.policy);
      return undefined;
    }
    if (connections.size >= config.maxConnections) {
      conn.refuse(
        'rate_limited',
        'the server is at its connection limit, try again later',
        CLOSE.tryAgainLater,
      );
      return undefined;
    }
    if (!addresses.acquire(address, config.maxConnectionsPerIp)) {
      conn.refuse('rate_limited', 'too many connections from your address', CLOSE.tryAgainLater);
      return undefined;
    }
    connections.add(conn);
    metrics.connectionsAccepted++;
    byWebSocket.set(ws, conn);
    ws.on('pong', onPong);
    const ice = turn.forWelcome(address, tag);
    const welcome: WelcomeMessage = { t: 'welcome', v: SIGNAL_VERSION, iceServers: ice.iceServers };
    if (ice.notes.length > 0) welcome.notes = ice.notes;
    conn.sendText(JSON.stringify(welcome));
    return conn;
  };

  const close = (conn: Connection): void => {
    if (conn.closed) return;
    conn.closed = true;
    connections.delete(conn);
    addresses.release(conn.address);
    run(conn, () => hub.dropMember(conn));
  };

  app.get(SIGNAL_PATH, (c) => c.text('this endpoint speaks WebSocket (papo signal protocol v1)\n', 426));

  // Listeners shared by every socket (found through a WeakMap) rather than closures per socket:
  // idle connections are what a signal server holds most of.
  const byWebSocket = new WeakMap<WebSocket, Connection>();
  const ignore = () => {};
  function onPong(this: WebSocket) {
    const conn = byWebSocket.get(this);
    if (conn !== undefined) conn.unanswered = 0;
  }
  function onWsMessage(this: WebSocket, data: Buffer, isBinary: boolean) {
    const conn = byWebSocket.get(this);
    if (conn !== undefined) onMessage(conn, data, isBinary);
  }
  function onWsClose(this: WebSocket) {
    const conn = byWebSocket.get(this);
    if (conn !== undefined) close(conn);
  }

  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const raw = request.url ?? '/';
    const q = raw.indexOf('?');
    if ((q < 0 ? raw : raw.slice(0, q)) !== SIGNAL_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    // Read what the socket needs now; the request itself is not kept with the socket.
    const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
    const header = (name: string) => {
      const v = request.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    // Counted per client: an IPv4 address, or the IPv6 prefix one client is usually given (a /64).
    const address = addressKey(
      clientAddress(request.socket.remoteAddress, header('x-forwarded-for'), config.trustProxyHops),
      config.ipv6Prefix,
    );
    const authorized =
      config.token === undefined ||
      sameSecret(config.token, bearer(header('authorization')) ?? query.get('token') ?? undefined);
    // Optional `?peer=<node id>`: its short form tags the TURN username, the member's one TURN
    // identity (coturn's logs and user-quota; the unit of the per-address credential limit).
    const hint = query.get('peer');
    const tag = hint !== null && PEER_PATTERN.test(hint) ? hint.slice(0, 10) : randomBytes(5).toString('hex');
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('error', ignore); // e.g. a frame over HARD_FRAME_LIMIT: ws closes it, 'close' follows
      if (open(ws, socket, address, authorized, tag) === undefined) return;
      ws.on('message', onWsMessage);
      ws.on('close', onWsClose);
    });
  };

  const heartbeat = setInterval(() => {
    for (const conn of connections) {
      if (conn.unanswered >= 2) {
        metrics.pingTimeouts++;
        conn.ws.terminate();
        continue;
      }
      conn.unanswered++;
      conn.ws.ping();
    }
  }, config.pingIntervalMs);
  heartbeat.unref();

  const shutdown = async (code: number = CLOSE.goingAway): Promise<void> => {
    stopping = true;
    clearInterval(heartbeat);
    const all = [...connections];
    const gone = all.map(
      (conn) =>
        new Promise<void>((resolve) => {
          if (conn.ws.readyState === 3) return resolve();
          conn.ws.once('close', () => resolve());
          conn.ws.close(code, 'server shutting down');
        }),
    );
    // A peer that never answers the close handshake is cut after a short wait.
    const timer = setTimeout(() => {
      for (const conn of all) conn.ws.terminate();
    }, 2000);
    await Promise.all(gone);
    clearTimeout(timer);
    for (const conn of all) close(conn);
    await Promise.all(all.map((conn) => conn.chain));
  };

  return { app, metricsApp, upgrade, shutdown, connectionCount: () => connections.size };
}
