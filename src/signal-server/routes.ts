// The HTTP routes: GET / (what this is), GET /healthz, GET /metrics (on the signal port only with
// PAPO_SIGNAL_METRICS_TOKEN, ADR 0075; otherwise on the metrics listener's app alone) and a 426
// for a plain GET of /v1/ws. Plain hono apps: tests call them through `app.request()`.
import { createHash, timingSafeEqual } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { SIGNAL_PATH, SIGNAL_VERSION } from '../signal-protocol.js';

export interface RouteDeps {
  /** False while a shared store is unreachable (GET /healthz answers 503). */
  healthy(): boolean;
  /** The Prometheus text of GET /metrics. */
  renderMetrics(): string;
  /** PAPO_SIGNAL_METRICS_TOKEN: /metrics needs it on every listener, and only with it is /metrics on the signal port. */
  metricsToken: string | undefined;
  /** Lines after /healthz's "ok" (warnings, the STUN destinations); none by default. */
  notes?: () => readonly string[];
}

export interface SignalRoutes {
  /** The signal port's routes. */
  app: Hono;
  /** The metrics listener's routes: GET /metrics (with the token when one is set) and /healthz. */
  metricsApp: Hono;
}

export function signalRoutes(deps: RouteDeps): SignalRoutes {
  const notes = () => (deps.notes?.() ?? []).map((line) => `${line}\n`).join('');
  const healthz = (c: Context) =>
    deps.healthy() ? c.text(`ok\n${notes()}`) : c.text(`shared store unreachable\n${notes()}`, 503);
  const app = new Hono();
  app.get('/', (c) =>
    c.text(
      `papo signal server\n\nA WebSocket rendezvous for papo rooms (signal protocol v${SIGNAL_VERSION} at ${SIGNAL_PATH}).\n` +
        'It forwards sealed WebRTC offers, answers and ICE candidates between members of a room and keeps nothing.\n' +
        'Health: /healthz.\n',
    ),
  );
  app.get('/healthz', healthz);
  // The signal port is the public one: /metrics there only for a scraper holding the token.
  if (deps.metricsToken !== undefined) metricsRoute(app, deps);
  app.get(SIGNAL_PATH, (c) => c.text('this endpoint speaks WebSocket (papo signal protocol v1)\n', 426));

  const metricsApp = new Hono();
  metricsRoute(metricsApp, deps);
  metricsApp.get('/healthz', healthz);
  return { app, metricsApp };
}

/** GET /metrics: the token when one is set (on any listener); 401 otherwise. */
function metricsRoute(app: Hono, deps: RouteDeps): void {
  app.get('/metrics', (c) => {
    const token = deps.metricsToken;
    if (token !== undefined && !sameSecret(token, bearer(c.req.header('authorization')))) {
      c.header('WWW-Authenticate', 'Bearer realm="papo signal metrics"');
      return c.text('a metrics token is required (Authorization: Bearer)\n', 401);
    }
    c.header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8');
    return c.body(deps.renderMetrics());
  });
}

/** A secret compared in the same time whatever is given. */
export function sameSecret(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  // Hash both sides so the comparison takes the same time whatever the lengths.
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearer(header: string | undefined): string | undefined {
  const m = header === undefined ? null : /^Bearer\s+(.+)$/i.exec(header.trim());
  return m?.[1]?.trim();
}
