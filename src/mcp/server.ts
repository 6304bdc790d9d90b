// The MCP server: dispatches JSON-RPC lines to the protocol methods and the five tools, opens the
// room member in the background, runs the channel pump, and shuts down on request. Structure after
// the book's "O servidor MCP (mcp)": a reader, one task per tools/call kept in a map so that
// notifications/cancelled can abort it, a single writer, and a pump that starts after
// notifications/initialized. Streams are injected with production defaults so tests can drive the
// server in-process; the process-level concerns (signals, exit) live in run.ts.

import type { Readable, Writable } from 'node:stream';
import { isPapoError } from '../client/errors.js';
import { papoRelaySet } from '../client/ice-config.js';
import type { RoomMember } from '../client/member-api.js';
import type { Envelope } from '../client/messages.js';
import { CHANNEL_METHOD, ChannelPush } from './channel-pump.js';
import { createDiagnostics, type Diagnostics } from './diagnostics.js';
import { INVALID_PARAMS, type JsonRpcId, type JsonRpcRequest, METHOD_NOT_FOUND } from './json-rpc.js';
import { negotiateProtocolVersion } from './protocol-version.js';
import { createSendWindow, parseMaxSends } from './send-rate.js';
import { createStdioTransport } from './stdio-transport.js';
import { instructions, LIMITS, NOT_READY, PROTOCOL_ERRORS, progressMessage } from './texts.js';
import { type Args, ArgumentError } from './tool-args.js';
import { isToolName, TOOLS } from './tool-list.js';
import {
  CallCancelled,
  CONSUMED,
  createToolHandlers,
  errorResult,
  MemberUnavailable,
  type ToolContext,
  type ToolResult,
} from './tools.js';

/** What the instructions need before the member is open (read from profile.json, cheaply). */
export interface ProfileDescription {
  name: string;
  roomId: string;
}

export interface McpServerOptions {
  /** Profile name, for the texts. */
  profile: string;
  /** Opens the room member (lock, identity, network). Called once, after the initialize response. */
  openMember: () => Promise<RoomMember>;
  /** Member name and room id for the instructions, or null when the profile is not configured. */
  describe: () => ProfileDescription | null;
  serverVersion: string;
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  env?: NodeJS.ProcessEnv;
  /** Interval of notifications/progress during `wait` (the book: 15 s). */
  progressIntervalMs?: number;
  /** How long `send` waits for the first ack (the book: 8 s). */
  ackTimeoutMs?: number;
  now?: () => number;
}

export interface McpServer {
  /** Resolves when the input ends (the client closed stdin). */
  readonly inputEnded: Promise<void>;
  /**
   * Cancels in-flight calls (they get no response), stops the pump, and closes the member (which
   * tells the neighbours, flushes state and releases the lock), waiting at most `budgetMs` for it.
   */
  shutdown(budgetMs: number): Promise<void>;
}

const idKey = (id: JsonRpcId) => `${typeof id}:${id}`;
/** How long a result that marked messages read can still be taken back by a late cancellation. */
const ANSWERED_KEPT_MS = 60_000;
/** Such results remembered at most (the oldest is forgotten first). */
const ANSWERED_KEPT_MAX = 32;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Maps a failure to open the member to the text every tool returns (book, "Solução de problemas"). */
export function unavailableText(err: unknown, profile: string): string {
  if (isPapoError(err, 'profile_missing')) return NOT_READY.profileMissing(profile);
  if (isPapoError(err, 'profile_locked')) return NOT_READY.profileLocked(profile);
  if (isPapoError(err, 'invalid_signal_token')) return NOT_READY.signalToken(err.message);
  return NOT_READY.other(err instanceof Error ? err.message : String(err));
}

/** The book's interval of notifications/progress during `wait`. */
export const PROGRESS_INTERVAL_MS = 15_000;

/**
 * Test-only: PAPO_TEST_PROGRESS_MS (an integer of milliseconds, at least 50) shortens the progress
 * interval so end-to-end tests of the built binary need not wait 15 s. Anything else is ignored.
 */
export function progressIntervalFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.PAPO_TEST_PROGRESS_MS;
  if (raw === undefined || !/^\d+$/.test(raw)) return PROGRESS_INTERVAL_MS;
  const ms = Number(raw);
  return ms >= 50 ? ms : PROGRESS_INTERVAL_MS;
}

export function startMcpServer(options: McpServerOptions): McpServer {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const env = options.env ?? process.env;
  const log: Diagnostics = createDiagnostics(env.PAPO_LOG, options.stderr ?? process.stderr);
  const transport = createStdioTransport(stdin, stdout, log);
  const writer = transport.writer;

  let initialized = false;
  let shuttingDown = false;
  let member: RoomMember | null = null;
  let memberPromise: Promise<RoomMember> | null = null;
  let pumpStarted = false;
  // What was pushed and whether pushes are known to reach the model (ADR 0066): per session.
  const channel = new ChannelPush((line) => log.log('info', line));
  const inflight = new Map<string, AbortController>();
  // Results that marked messages read, kept a while by request id: a cancellation that crossed
  // the result on the wire means the client dropped it, so the messages go back to unread.
  const answered = new Map<string, { messages: Envelope[]; timer: NodeJS.Timeout }>();

  /** Puts messages a cancelled call had consumed back among the unread (member-api `restore`). */
  function restore(messages: Envelope[], why: string): void {
    if (messages.length === 0 || memberPromise === null) return;
    log.log('info', `${messages.length} message(s) back to unread: ${why}`);
    void memberPromise
      .then((m) => m.restore(messages))
      .catch((err: unknown) => log.log('warn', `could not put messages back to unread: ${String(err)}`));
  }

  function rememberAnswered(key: string, messages: Envelope[]): void {
    const timer = setTimeout(() => answered.delete(key), ANSWERED_KEPT_MS);
    timer.unref();
    answered.set(key, { messages, timer });
    if (answered.size > ANSWERED_KEPT_MAX) {
      const [oldest] = answered.keys();
      if (oldest !== undefined) {
        clearTimeout(answered.get(oldest)?.timer);
        answered.delete(oldest);
      }
    }
  }

  function openInBackground(): Promise<RoomMember> {
    if (memberPromise === null) {
      log.log('info', 'opening the room member');
      memberPromise = options.openMember().then(
        (m) => {
          if (shuttingDown) {
            // Opened too late to be used: release the lock at once.
            void m.close().catch(() => {});
            throw new MemberUnavailable(NOT_READY.shuttingDown);
          }
          member = m;
          log.log('info', `room member open: ${m.name} in room ${m.roomId}`);
          maybeStartPump();
          return m;
        },
        (err: unknown) => {
          if (err instanceof MemberUnavailable) throw err;
          log.log('warn', `room member not available: ${err instanceof Error ? err.message : String(err)}`);
          throw new MemberUnavailable(unavailableText(err, options.profile), { cause: err });
        },
      );
      // Tools observe the failure; an unobserved rejection must not end the process.
      memberPromise.catch(() => {});
    }
    return memberPromise;
  }

  function maybeStartPump(): void {
    if (pumpStarted || !initialized || member === null || shuttingDown) return;
    pumpStarted = true;
    log.log('debug', 'channel pump started');
    channel.start(member, (params) => writer.notify(CHANNEL_METHOD, params));
  }

  const handlers = createToolHandlers({
    member: (signal) => {
      const opening = openInBackground();
      if (signal.aborted) return Promise.reject(new CallCancelled('cancelled'));
      return new Promise<RoomMember>((resolve, reject) => {
        const onAbort = () => reject(new CallCancelled('cancelled'));
        signal.addEventListener('abort', onAbort, { once: true });
        opening.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
    },
    sendWindow: createSendWindow(parseMaxSends(env.PAPO_MAX_SENDS_PER_10MIN), options.now),
    ackTimeoutMs: options.ackTimeoutMs ?? LIMITS.ackTimeoutSeconds * 1000,
    progressIntervalMs: options.progressIntervalMs ?? progressIntervalFromEnv(env),
    papoRelaySet: papoRelaySet(env),
    channel,
  });

  function describeSafely(): ProfileDescription | null {
    try {
      return options.describe();
    } catch (err) {
      log.log('warn', `could not read the profile: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  }

  function onInitialize(req: JsonRpcRequest): void {
    const params = req.params;
    if (!isObject(params) || typeof params.protocolVersion !== 'string') {
      writer.error(req.id, { code: INVALID_PARAMS, message: PROTOCOL_ERRORS.missingProtocolVersion });
      return;
    }
    const protocolVersion = negotiateProtocolVersion(params.protocolVersion);
    writer.result(req.id, {
      protocolVersion,
      capabilities: { tools: {}, experimental: { 'claude/channel': {} } },
      serverInfo: { name: 'papo', version: options.serverVersion },
      instructions: instructions(describeSafely(), options.profile),
    });
    log.log('info', `initialize: client asked ${params.protocolVersion}, answered ${protocolVersion}`);
    // The network stack loads only now, after the answer is on its way (startup cost, ADR 0040).
    setImmediate(() => {
      if (!shuttingDown) openInBackground();
    });
  }

  function onToolsCall(req: JsonRpcRequest): void {
    const params = req.params;
    if (!isObject(params)) {
      writer.error(req.id, { code: INVALID_PARAMS, message: PROTOCOL_ERRORS.paramsNotObject });
      return;
    }
    if (typeof params.name !== 'string') {
      writer.error(req.id, { code: INVALID_PARAMS, message: PROTOCOL_ERRORS.missingToolName });
      return;
    }
    const name = params.name;
    if (!isToolName(name)) {
      writer.error(req.id, { code: INVALID_PARAMS, message: PROTOCOL_ERRORS.unknownTool(name) });
      return;
    }
    const args = params.arguments ?? {};
    if (!isObject(args)) {
      writer.error(req.id, { code: INVALID_PARAMS, message: PROTOCOL_ERRORS.argumentsNotObject });
      return;
    }
    const meta = isObject(params._meta) ? params._meta : {};
    const token = meta.progressToken;
    const hasToken = typeof token === 'string' || typeof token === 'number';

    const controller = new AbortController();
    const key = idKey(req.id);
    inflight.set(key, controller);
    const ctx: ToolContext = {
      signal: controller.signal,
      progress: hasToken
        ? (elapsed, total) => {
            if (controller.signal.aborted) return;
            writer.notify('notifications/progress', {
              progressToken: token,
              progress: elapsed,
              total,
              message: progressMessage(elapsed, total),
            });
          }
        : null,
    };
    log.log('debug', `tools/call ${name} (id ${String(req.id)})`);
    handlers[name](args as Args, ctx)
      .then(
        (result: ToolResult) => result,
        (err: unknown): ToolResult | null => {
          if (err instanceof CallCancelled || controller.signal.aborted) return null;
          if (err instanceof ArgumentError || err instanceof MemberUnavailable)
            return errorResult(err.message);
          log.log(
            'error',
            `tools/call ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
          );
          return errorResult(NOT_READY.other(err instanceof Error ? err.message : String(err)));
        },
      )
      .then((result) => {
        const consumed = result === null ? undefined : CONSUMED.get(result);
        // A cancelled request gets no response (MCP "Cancellation"); what it marked read while
        // the cancellation came in goes back to unread, for the next wait or inbox.
        if (result !== null && !controller.signal.aborted) {
          // Every id the model reads in a result can no longer be evidence of a push (ADR 0066).
          channel.noteShown(result.content[0].text);
          writer.result(req.id, result);
          if (consumed !== undefined && consumed.length > 0) rememberAnswered(key, consumed);
        } else if (consumed !== undefined) {
          restore(consumed, `${name} was cancelled while it marked them read`);
        }
        if (inflight.get(key) === controller) inflight.delete(key);
      });
  }

  function onRequest(req: JsonRpcRequest): void {
    if (shuttingDown) return;
    switch (req.method) {
      case 'initialize':
        onInitialize(req);
        break;
      case 'ping':
        writer.result(req.id, {});
        break;
      case 'tools/list':
        // params is undefined or an object here: parseMessage answers non-object params itself.
        writer.result(req.id, { tools: TOOLS });
        break;
      case 'tools/call':
        onToolsCall(req);
        break;
      default:
        // Every other method, server/discover included: answering it would let a client move the
        // session to the 2026-07-28 era, where channel push does not exist.
        writer.error(req.id, { code: METHOD_NOT_FOUND, message: PROTOCOL_ERRORS.methodNotFound(req.method) });
    }
  }

  function onNotification(method: string, params: unknown): void {
    if (method === 'notifications/initialized') {
      initialized = true;
      maybeStartPump();
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
          restore(done.messages, `request ${String(requestId)} was cancelled after its result was sent`);
        }
      }
    }
    // Other notifications are ignored, as JSON-RPC asks.
  }

  transport.listen((msg) => {
    switch (msg.kind) {
      case 'request':
        return onRequest(msg);
      case 'notification':
        return onNotification(msg.method, msg.params);
      case 'invalid':
        log.log('debug', `invalid line: ${msg.message}`);
        return writer.error(msg.id, { code: msg.code, message: msg.message });
      case 'response':
        return;
    }
  });

  let shutdownPromise: Promise<void> | null = null;
  function shutdown(budgetMs: number): Promise<void> {
    if (shutdownPromise !== null) return shutdownPromise;
    shuttingDown = true;
    for (const controller of inflight.values()) controller.abort();
    inflight.clear();
    channel.stop();
    transport.close();
    const closing =
      memberPromise === null
        ? Promise.resolve()
        : memberPromise.then(
            (m) => m.close(),
            () => {},
          );
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        log.log('warn', `member did not close within ${budgetMs} ms; exiting anyway`);
        resolve();
      }, budgetMs);
    });
    shutdownPromise = Promise.race([closing.catch(() => {}), budget]).finally(() => clearTimeout(timer));
    return shutdownPromise;
  }

  return { inputEnded: transport.ended, shutdown };
}
