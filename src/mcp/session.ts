// The JSON-RPC session: MCP's protocol layer between the stdio transport (stdio-transport.ts) and
// papo's tool server (tool-server.ts) — by hand, what the SDK splits into Protocol and Server (ADR
// 0040). It owns the lifecycle: `initialize` and the protocol-version negotiation,
// notifications/initialized, ping, -32601 for every method the tool server does not serve
// (server/discover included), and shutdown within a time budget. And the requests in flight: one
// AbortController per long request in a map keyed by id, so notifications/cancelled aborts it and
// no response is ever sent for it; the progress token of each; and results that can still be
// taken back when a cancellation crosses them on the wire. What the methods mean, it does not know.
import { messageOf } from '../client/errors.js';
import type { Diagnostics } from './diagnostics.js';
import {
  INVALID_PARAMS,
  type Incoming,
  isObject,
  type JsonRpcId,
  type JsonRpcRequest,
  METHOD_NOT_FOUND,
  type OutgoingError,
} from './json-rpc.js';
import { negotiateProtocolVersion } from './protocol-version.js';
import type { StdioTransport } from './stdio-transport.js';
import { PROTOCOL_ERRORS } from './texts.js';

/** How long a result that can be taken back still can be, by a late cancellation. */
const ANSWERED_KEPT_MS = 60_000;
/** Such results remembered at most (the oldest is forgotten first). */
const ANSWERED_KEPT_MAX = 32;

const idKey = (id: JsonRpcId) => `${typeof id}:${id}`;

/** Sends notifications/progress for the request's progress token. */
export type Progress = (progress: number, total: number, message: string) => void;

/** What a long request runs with. */
export interface CallContext {
  requestId: JsonRpcId;
  /** Aborted by notifications/cancelled or by shutdown; the request then gets no response. */
  signal: AbortSignal;
  /** Present when the client sent `_meta.progressToken`; silent once the request is cancelled. */
  progress: Progress | null;
}

/** The outcome of a long request. */
export interface Answer {
  result: unknown;
  /** Runs just before the result is written (not when the request was cancelled meanwhile). */
  beforeSend?: () => void;
  /**
   * The client will never read this result: the request was cancelled before the result was
   * written (`crossed` false: it is dropped), or just after (`crossed` true: the cancellation crossed
   * the result on the wire, and the client drops a result it no longer waits for). Kept for the
   * latter ANSWERED_KEPT_MS, for the last ANSWERED_KEPT_MAX such results.
   */
  takeBack?: (crossed: boolean) => void;
}

/**
 * How a method handles one request: a result or an error at once, or a long request started with
 * its own AbortController (null when it ends cancelled: no response).
 */
export type Handled =
  | { result: unknown }
  | { error: OutgoingError }
  | { start: (call: CallContext) => Promise<Answer | null> };

export type RequestHandler = (params: unknown) => Handled;

/** The server behind the session (papo's tool server). */
export interface SessionApp {
  /** The answer to `initialize`, after `protocolVersion`. */
  initializeResult(): {
    capabilities: object;
    serverInfo: { name: string; version: string };
    instructions: string;
  };
  /** The answer to `initialize` has been written. */
  initializeAnswered(): void;
  /** notifications/initialized came. */
  initialized(): void;
  /** The methods served besides `initialize` and `ping`; any other gets -32601. */
  readonly methods: ReadonlyMap<string, RequestHandler>;
  /** Shutting down, after the calls in flight were aborted: stop everything that writes. */
  stop(): void;
  /** Releases what the server holds; waited for within the shutdown's budget. */
  close(): Promise<void>;
}

export interface Session {
  /** One classified line from the transport. */
  receive(msg: Incoming): void;
  /**
   * Cancels in-flight calls (they get no response), stops the app and the writing, and closes the
   * app, waiting at most `budgetMs` for it. Requests after it are ignored. Idempotent.
   */
  shutdown(budgetMs: number): Promise<void>;
}

export function createSession(transport: StdioTransport, app: SessionApp, log: Diagnostics): Session {
  const writer = transport.writer;
  let shuttingDown = false;
  const inflight = new Map<string, AbortController>();
  // Results that can be taken back, kept a while by request id: a cancellation that crossed the
  // result on the wire means the client dropped it.
  const answered = new Map<string, { takeBack: (crossed: boolean) => void; timer: NodeJS.Timeout }>();

  function rememberAnswered(key: string, takeBack: (crossed: boolean) => void): void {
    const timer = setTimeout(() => answered.delete(key), ANSWERED_KEPT_MS);
    timer.unref();
    answered.set(key, { takeBack, timer });
    if (answered.size > ANSWERED_KEPT_MAX) {
      const [oldest] = answered.keys();
      if (oldest !== undefined) {
        clearTimeout(answered.get(oldest)?.timer);
        answered.delete(oldest);
      }
    }
  }

  function onInitialize(req: JsonRpcRequest): void {
    const params = req.params;
    if (!isObject(params) || typeof params.protocolVersion !== 'string') {
      writer.error(req.id, { code: INVALID_PARAMS, message: PROTOCOL_ERRORS.missingProtocolVersion });
      return;
    }
    const protocolVersion = negotiateProtocolVersion(params.protocolVersion);
    writer.result(req.id, { protocolVersion, ...app.initializeResult() });
    log.log('info', `initialize: client asked ${params.protocolVersion}, answered ${protocolVersion}`);
    app.initializeAnswered();
  }

  function start(id: JsonRpcId, params: unknown, run: (call: CallContext) => Promise<Answer | null>): void {
    const meta = isObject(params) && isObject(params._meta) ? params._meta : {};
    const token = meta.progressToken;
    const hasToken = typeof token === 'string' || typeof token === 'number';

    const controller = new AbortController();
    const key = idKey(id);
    inflight.set(key, controller);
    const progress: Progress | null = hasToken
      ? (progress, total, message) => {
          if (controller.signal.aborted) return;
          writer.notify('notifications/progress', { progressToken: token, progress, total, message });
        }
      : null;
    run({ requestId: id, signal: controller.signal, progress }).then((answer) => {
      // A cancelled request gets no response (MCP "Cancellation"), and what it did for its result
      // is taken back.
      if (answer !== null && !controller.signal.aborted) {
        answer.beforeSend?.();
        writer.result(id, answer.result);
        if (answer.takeBack !== undefined) rememberAnswered(key, answer.takeBack);
      } else if (answer !== null) {
        answer.takeBack?.(false);
      }
      if (inflight.get(key) === controller) inflight.delete(key);
    });
  }

  function onRequest(req: JsonRpcRequest): void {
    if (shuttingDown) return;
    if (req.method === 'initialize') {
      onInitialize(req);
      return;
    }
    if (req.method === 'ping') {
      writer.result(req.id, {});
      return;
    }
    const handler = app.methods.get(req.method);
    if (handler === undefined) {
      // Every other method, server/discover included: answering it would let a client move the
      // session to the 2026-07-28 era, where channel push does not exist.
      writer.error(req.id, { code: METHOD_NOT_FOUND, message: PROTOCOL_ERRORS.methodNotFound(req.method) });
      return;
    }
    const handled = handler(req.params);
    if ('start' in handled) start(req.id, req.params, handled.start);
    else if ('error' in handled) writer.error(req.id, handled.error);
    else writer.result(req.id, handled.result);
  }

  function onNotification(method: string, params: unknown): void {
    if (method === 'notifications/initialized') {
      app.initialized();
    } else if (method === 'notifications/cancelled') {
      const requestId = isObject(params) ? params.requestId : undefined;
      if (typeof requestId === 'string' || typeof requestId === 'number') {
        const key = idKey(requestId);
        const controller = inflight.get(key);
        if (controller !== undefined) {
          log.log('debug', `cancelled request ${String(requestId)}`);
          inflight.delete(key);
          controller.abort();
        }
        // Answered already: the cancellation crossed the result, which the client drops.
        const done = answered.get(key);
        if (done !== undefined) {
          answered.delete(key);
          clearTimeout(done.timer);
          done.takeBack(true);
        }
      }
    }
    // Other notifications are ignored, as JSON-RPC asks.
  }

  function receive(msg: Incoming): void {
    switch (msg.kind) {
      case 'request':
        onRequest(msg);
        break;
      case 'notification':
        onNotification(msg.method, msg.params);
        break;
      case 'invalid':
        log.log('debug', `invalid line: ${msg.message}`);
        writer.error(msg.id, { code: msg.code, message: msg.message });
        break;
      case 'response':
        // papo sends no requests.
        break;
    }
  }

  let shutdownPromise: Promise<void> | null = null;
  function shutdown(budgetMs: number): Promise<void> {
    if (shutdownPromise !== null) return shutdownPromise;
    shuttingDown = true;
    for (const controller of inflight.values()) controller.abort();
    inflight.clear();
    app.stop();
    transport.close();
    const closing = app.close();
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        log.log('warn', `member did not close within ${budgetMs} ms; exiting anyway`);
        resolve();
      }, budgetMs);
    });
    const closed = closing.catch((err: unknown) =>
      log.log('warn', `the room member did not close cleanly: ${messageOf(err)}`),
    );
    shutdownPromise = Promise.race([closed, budget]).finally(() => clearTimeout(timer));
    return shutdownPromise;
  }

  return { receive, shutdown };
}
