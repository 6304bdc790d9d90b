// papo's side of the MCP server, behind the session (session.ts): what `initialize` says of papo
// (capabilities with `claude/channel`, serverInfo, the instructions), tools/list, and tools/call
// dispatched to the five handlers (tools.ts) with tool errors worded for the model. It owns the
// room member: opened in the background once `initialize` is answered (the network stack loads
// only then, ADR 0040), awaited by each tool — a failure becomes the MemberUnavailable text every
// tool returns — and closed on shutdown; the channel pump (channel-pump.ts), started once
// notifications/initialized came and the member is open; the send window; and the results that
// marked messages read, put back among the unread when the client will never read them.
import { isPapoError, messageOf } from '../client/errors.js';
import type { RoomMember } from '../client/member-api.js';
import type { Envelope } from '../client/wire/messages.js';
import { ChannelPush } from './channel-pump.js';
import type { Diagnostics } from './diagnostics.js';
import { INVALID_PARAMS, isObject } from './json-rpc.js';
import type { Door, PushView } from './push-contract.js';
import { type Ancestor, channelRoute, choosePushRoute } from './push-route.js';
import { createSendWindow, parseMaxSends } from './send-rate.js';
import type { Answer, CallContext, Handled, SessionApp } from './session.js';
import type { Writer } from './stdio-transport.js';
import {
  instructions,
  LIMITS,
  NOT_READY,
  type NOT_SET_UP,
  PROTOCOL_ERRORS,
  progressMessage,
} from './texts.js';
import { type Args, ArgumentError } from './tool-args.js';
import { isToolName, TOOLS, type ToolName } from './tool-list.js';
import {
  CallCancelled,
  CONSUMED,
  errorResult,
  MemberUnavailable,
  type ToolContext,
  type ToolResult,
} from './tool-result.js';
import type { ToolHandler } from './tools.js';

/** What the instructions need before the member is open (read from profile.json, cheaply). */
export interface ProfileDescription {
  name: string;
  roomId: string;
}

export interface ToolServerOptions {
  /** Profile name, for the texts. */
  profile: string;
  /**
   * Opens the room member (lock, identity, network). Called once, after the initialize response,
   * with this session's push view, which the member's answer to `papo status` carries (ADR 0118).
   */
  openMember: (push: () => PushView) => Promise<RoomMember>;
  /** Member name and room id for the instructions, or null when the profile is not configured. */
  describe: () => ProfileDescription | null | typeof NOT_SET_UP;
  serverVersion: string;
  /** Interval of notifications/progress during `wait` (docs/mcp.md, "Tools": 15 s). */
  progressIntervalMs?: number;
  /** How long `send` waits for the first ack (docs/mcp.md, "Tools": 8 s). */
  ackTimeoutMs?: number;
  now?: () => number;
  /** papo's ancestors (push-route.ts reads /proc; tests give their own). */
  ancestors?: () => Ancestor[];
  /** The clients' doors, in the order they are looked for (push-route.ts `DOORS`; tests give their own). */
  doors?: readonly Door[];
}

/** Maps a failure to open the member to the text every tool returns (docs/mcp.md, "Tools"). */
export function unavailableText(err: unknown, profile: string): string {
  if (isPapoError(err, 'profile_missing')) return NOT_READY.profileMissing(profile);
  if (isPapoError(err, 'profile_locked')) return NOT_READY.profileLocked(profile);
  if (isPapoError(err, 'invalid_signal_token')) return NOT_READY.signalToken(err.message);
  return NOT_READY.other(messageOf(err));
}

/** The interval of notifications/progress during `wait` (docs/mcp.md, "Tools"). */
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

/** The open member once `opening` resolves; CallCancelled as soon as the call is cancelled. */
function untilCancelled(opening: Promise<RoomMember>, signal: AbortSignal): Promise<RoomMember> {
  if (signal.aborted) return Promise.reject(new CallCancelled('cancelled'));
  return new Promise<RoomMember>((resolve, reject) => {
    const onAbort = () => reject(new CallCancelled('cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    opening.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The tool error for a handler that threw: its own text for a refused argument or a member that
 * could not be opened; anything else is papo's fault, logged with its stack.
 */
function failureResult(name: ToolName, err: unknown, log: Diagnostics): ToolResult {
  if (err instanceof ArgumentError || err instanceof MemberUnavailable) return errorResult(err.message);
  log.log(
    'error',
    `tools/call ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
  );
  return errorResult(NOT_READY.other(messageOf(err)));
}

export function createToolServer(
  options: ToolServerOptions,
  io: { env: NodeJS.ProcessEnv; writer: Writer; log: Diagnostics },
): SessionApp {
  const { env, writer, log } = io;
  let initialized = false;
  let shuttingDown = false;
  let member: RoomMember | null = null;
  let memberPromise: Promise<RoomMember> | null = null;
  let pumpStarted = false;
  let answered = false;
  // What was pushed and whether pushes are known to reach the model (ADR 0066): per session.
  // Which route carries them (ADR 0118): chosen once, when the pump starts or `status` asks (after
  // `initialize`), from the environment Claude Code gave papo and the command line it was started
  // with; channel events take over when that route fails.
  const notify = (method: string, params: unknown) => writer.notify(method, params);
  const choose = () => {
    const choice = choosePushRoute(env, notify, options.ancestors, options.doors);
    log.log('info', `push route: ${choice.route.kind}${choice.channelsAsked ? ' (channels asked for)' : ''}`);
    return choice;
  };
  const channel = new ChannelPush((line) => log.log('info', line), {
    choose,
    fallback: channelRoute(notify),
    report: (line) => log.report(line),
  });

  /** Puts messages a cancelled call had consumed back among the unread (member-api `restore`). */
  function restore(messages: Envelope[], why: string): void {
    if (messages.length === 0 || memberPromise === null) return;
    log.log('info', `${messages.length} message(s) back to unread: ${why}`);
    void memberPromise
      .then((m) => m.restore(messages))
      .catch((err: unknown) => log.log('warn', `could not put messages back to unread: ${String(err)}`));
  }

  function openInBackground(): Promise<RoomMember> {
    if (memberPromise === null) {
      log.log('info', 'opening the room member');
      memberPromise = options
        .openMember(() => channel.view())
        .then(
          (m) => {
            if (shuttingDown) {
              // Opened too late to be used: release the lock at once.
              void m
                .close()
                .catch((err: unknown) =>
                  log.log('warn', `could not close the late room member: ${messageOf(err)}`),
                );
              throw new MemberUnavailable(NOT_READY.shuttingDown);
            }
            member = m;
            log.log('info', `room member open: ${m.name} in room ${m.roomId}`);
            maybeStartPump();
            return m;
          },
          (err: unknown) => {
            if (err instanceof MemberUnavailable) throw err;
            log.log('warn', `room member not available: ${messageOf(err)}`);
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
    channel.start(member);
  }

  // The window counts sends from the start of the session.
  const sendWindow = createSendWindow(parseMaxSends(env.PAPO_MAX_SENDS_PER_10MIN), options.now);
  let handlers: Promise<Record<ToolName, ToolHandler>> | null = null;
  /** The five handlers, loaded once: after the initialize answer, or at a call that comes first. */
  function toolHandlers(): Promise<Record<ToolName, ToolHandler>> {
    handlers ??= Promise.all([import('./tools.js'), import('../client/net/ice-config.js')]).then(
      ([{ createToolHandlers }, { papoRelaySet }]) =>
        createToolHandlers({
          member: (signal) => untilCancelled(openInBackground(), signal),
          sendWindow,
          ackTimeoutMs: options.ackTimeoutMs ?? LIMITS.ackTimeoutSeconds * 1000,
          progressIntervalMs: options.progressIntervalMs ?? progressIntervalFromEnv(env),
          papoRelaySet: papoRelaySet(env),
          channel,
        }),
    );
    return handlers;
  }

  function describeSafely(): ProfileDescription | null | typeof NOT_SET_UP {
    try {
      return options.describe();
    } catch (err) {
      log.log('warn', `could not read the profile: ${messageOf(err)}`);
      return null;
    }
  }

  /** A tool result as the session sends it, and how to take back what it marked read. */
  function answer(name: ToolName, call: CallContext, result: ToolResult): Answer {
    // Every id the model reads in a result can no longer be evidence of a push (ADR 0066).
    const sent: Answer = { result, beforeSend: () => channel.noteShown(result.content[0].text) };
    const consumed = CONSUMED.get(result);
    if (consumed !== undefined && consumed.length > 0) {
      // A cancelled wait or inbox leaves nothing read: what it marked read goes back to unread,
      // for the next wait or inbox.
      sent.takeBack = (crossed) =>
        restore(
          consumed,
          crossed
            ? `request ${String(call.requestId)} was cancelled after its result was sent`
            : `${name} was cancelled while it marked them read`,
        );
    }
    return sent;
  }

  const invalidParams = (message: string): Handled => ({ error: { code: INVALID_PARAMS, message } });

  function toolsCall(params: unknown): Handled {
    if (!isObject(params)) return invalidParams(PROTOCOL_ERRORS.paramsNotObject);
    if (typeof params.name !== 'string') return invalidParams(PROTOCOL_ERRORS.missingToolName);
    const name = params.name;
    if (!isToolName(name)) return invalidParams(PROTOCOL_ERRORS.unknownTool(name));
    const args = params.arguments ?? {};
    if (!isObject(args)) return invalidParams(PROTOCOL_ERRORS.argumentsNotObject);

    return {
      start: (call) => {
        const progress = call.progress;
        const ctx: ToolContext = {
          signal: call.signal,
          progress:
            progress === null
              ? null
              : (elapsed, total) => progress(elapsed, total, progressMessage(elapsed, total)),
        };
        log.log('debug', `tools/call ${name} (id ${String(call.requestId)})`);
        // Once initialize is answered the member is opening anyway: a call that comes while the
        // handlers load must not find it unopened (a shutdown then would have nothing to close).
        if (answered) openInBackground();
        return toolHandlers()
          .then((all) => all[name](args as Args, ctx))
          .then(
            (result: ToolResult) => answer(name, call, result),
            (err: unknown): Answer | null => {
              if (err instanceof CallCancelled || call.signal.aborted) return null;
              return answer(name, call, failureResult(name, err, log));
            },
          );
      },
    };
  }

  return {
    initializeResult: () => ({
      capabilities: { tools: {}, experimental: { 'claude/channel': {} } },
      serverInfo: { name: 'papo', version: options.serverVersion },
      instructions: instructions(describeSafely(), options.profile),
    }),
    initializeAnswered: () => {
      answered = true;
      // The network stack loads only now, after the answer is on its way (startup cost, ADR 0040).
      setImmediate(() => {
        if (shuttingDown) return;
        openInBackground();
        // A failure to load is said here, and again by each call that needs them (failureResult).
        toolHandlers().catch((err: unknown) =>
          log.log('warn', `could not load the tools: ${messageOf(err)}`),
        );
      });
    },
    initialized: () => {
      initialized = true;
      maybeStartPump();
    },
    methods: new Map([
      // params is undefined or an object here: parseMessage answers non-object params itself.
      ['tools/list', () => ({ result: { tools: TOOLS } })],
      ['tools/call', toolsCall],
    ]),
    stop: () => {
      shuttingDown = true;
      channel.stop();
    },
    close: () =>
      memberPromise === null
        ? Promise.resolve()
        : memberPromise.then(
            (m) => m.close(),
            () => {},
          ),
  };
}
