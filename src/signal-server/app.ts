// The signal server's WebSocket side: the upgrade at /v1/ws (token, connection limits, the welcome
// with ICE servers), the heartbeat and the shutdown. Each socket is a Connection (connection.ts:
// rate control and dispatch to the hub, in order); the HTTP routes are in routes.ts. A refusal is
// always an `error` message, plus a close when the socket must go. Nothing here logs message
// contents or full topics.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Hono } from 'hono';
import { type WebSocket, WebSocketServer } from 'ws';
import { PEER_PATTERN, SIGNAL_PATH, SIGNAL_VERSION, type WelcomeMessage } from '../signal-protocol.js';
import type { SignalConfig } from './config.js';
import { CLOSE, Connection } from './connection.js';
import type { Hub } from './hub.js';
import { AddressCounter, addressKey, clientAddress } from './limits.js';
import type { Metrics } from './metrics.js';
import { bearer, sameSecret, signalRoutes } from './routes.js';
import { TurnIssuer } from './turn-credentials.js';

export { CLOSE } from './connection.js';

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

export function createSignalApp(deps: SignalAppDeps): SignalApp {
  const { config, hub, metrics } = deps;
  // The upgrade goes straight to ws rather than through @hono/node-ws, which keeps each upgrade's
  // hono context, Request and IncomingMessage alive as long as the socket (ADR 0020: twice the
  // memory per idle connection). The ws default frame limit is 100 MiB; nothing legitimate comes
  // near HARD_FRAME_LIMIT.
  const wss = new WebSocketServer({ noServer: true, maxPayload: HARD_FRAME_LIMIT, clientTracking: false });
  const connections = new Set<Connection>();
  const addresses = new AddressCounter();
  const turn = new TurnIssuer(config.turn);
  let nextId = 1;
  let stopping = false;

  const { app, metricsApp } = signalRoutes({
    healthy: () => hub.healthy(),
    metricsToken: config.metricsToken,
    notes: config.healthNotes,
    renderMetrics: () => {
      const { topics, peers } = hub.counts();
      metrics.turnIssued = turn.issued;
      metrics.turnLimited = turn.limited;
      return metrics.render({ connections: connections.size, topics, peers });
    },
  });

  /** The socket's Connection once it is accepted; undefined when it was refused and closed. */
  const open = (ws: WebSocket, socket: Duplex, address: string, authorized: boolean, tag: string) => {
    const conn = new Connection(nextId++, ws, socket, address, deps);
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
    const ice = turn.forWelcome(address, tag);
    const welcome: WelcomeMessage = { t: 'welcome', v: SIGNAL_VERSION, iceServers: ice.iceServers };
    if (ice.notes.length > 0) welcome.notes = ice.notes;
    conn.sendText(JSON.stringify(welcome));
    return conn;
  };

  /** Closed sockets whose steps (their drop from the hub last) still run: shutdown waits for them. */
  const leaving = new Set<Connection>();
  const close = (conn: Connection): void => {
    if (conn.closed) return;
    connections.delete(conn);
    addresses.release(conn.address);
    conn.drop();
    leaving.add(conn);
    void conn.idle().then(() => leaving.delete(conn));
  };

  // Listeners shared by every socket (found through a WeakMap) rather than closures per socket:
  // idle connections are what a signal server holds most of.
  const byWebSocket = new WeakMap<WebSocket, Connection>();
  const ignore = () => {};
  function onPong(this: WebSocket) {
    const conn = byWebSocket.get(this);
    if (conn !== undefined) conn.unanswered = 0;
  }
  function onWsMessage(this: WebSocket, data: Buffer, isBinary: boolean) {
    byWebSocket.get(this)?.receive(data, isBinary);
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
    // Optional `?peer=<node id>`: its short form names the member's one TURN identity (coturn's logs
    // and user-quota; the unit of the per-address credential limit), bound to this address by the
    // TurnIssuer (ADR 0114).
    const hint = query.get('peer');
    const tag = hint !== null && PEER_PATTERN.test(hint) ? hint.slice(0, 10) : randomBytes(5).toString('hex');
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('error', ignore); // e.g. a frame over HARD_FRAME_LIMIT: ws closes it, 'close' follows
      const conn = open(ws, socket, address, authorized, tag);
      if (conn === undefined) return;
      byWebSocket.set(ws, conn);
      ws.on('pong', onPong);
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
    await Promise.all([...leaving].map((conn) => conn.idle()));
  };

  return { app, metricsApp, upgrade, shutdown, connectionCount: () => connections.size };
}
