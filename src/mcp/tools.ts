// What each of the five tools does (docs/mcp.md, "Tools"). The handlers drive a RoomMember
// (src/client/member-api.ts) and return text results; they know nothing of JSON-RPC. A handler
// throws CallCancelled when its call was cancelled: the server then sends no response at all.

import { messageOf } from '../client/errors.js';
import type { RoomMember } from '../client/member-api.js';
import { formatLogEntry, reviewStates } from '../client/store/log-format.js';
import type { Envelope } from '../client/wire/messages.js';
import { sameName } from '../client/wire/names.js';
import { isLoopbackSignalUrl } from '../client/wire/signal-url.js';
import type { ChannelPush } from './channel-pump.js';
import { findCredential } from './credentials.js';
import { fitLines, fitMessages, fitStatus } from './result-fit.js';
import type { SendWindow } from './send-rate.js';
import {
  delivered,
  deliveredToSome,
  HISTORY_ERRORS,
  HISTORY_HELD,
  HISTORY_NOTICE,
  HISTORY_REJECTED,
  heldForReview,
  impostorWarning,
  inboxFull,
  inboxFullReviewing,
  LIMITS,
  type NetworkView,
  NO_HISTORY,
  NO_UNREAD,
  nameList,
  nameTakenWarning,
  networkWarnings,
  noNewMessages,
  notAcknowledged,
  owedToEach,
  PAPO_RELAY_NOTE,
  reviewedBy,
  SEND_ERRORS,
  STATUS_NO_PEERS,
  STATUS_NOTICE,
  STATUS_PEERS,
  STATUS_STILL_CONNECTING,
  statusCounts,
  statusHeader,
  statusPeerLine,
  statusQueuedFor,
  statusTransportRestarts,
  WAIT_ERRORS,
} from './texts.js';
import {
  type Args,
  ArgumentError,
  checkKnown,
  MEMBER_NAME,
  MSG_ID,
  optionalInteger,
  optionalString,
  shownValue,
} from './tool-args.js';
import { TOOL_ARGUMENTS, type ToolName } from './tool-list.js';

export interface ToolResult {
  content: [{ type: 'text'; text: string }];
  isError?: true;
}

export function textResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }] };
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The call was cancelled (notifications/cancelled or shutdown); no response must be sent. */
export class CallCancelled extends Error {
  override readonly name = 'CallCancelled';
}

/** The room member could not be opened; `message` is the tool error text that says what to do. */
export class MemberUnavailable extends Error {
  override readonly name = 'MemberUnavailable';
}

export interface ToolContext {
  signal: AbortSignal;
  /** Present when the client sent a progressToken; reports seconds waited of the total. */
  progress: ((elapsedSeconds: number, totalSeconds: number) => void) | null;
}

export interface ToolDeps {
  /** Resolves to the open member, or rejects with MemberUnavailable. */
  member(signal: AbortSignal): Promise<RoomMember>;
  sendWindow: SendWindow;
  ackTimeoutMs: number;
  progressIntervalMs: number;
  /** PAPO_RELAY is set (a variable this papo does not read; docs/transport.md, "Network health"). */
  papoRelaySet?: boolean;
  /** The session's pushes: which were pushed, and whether pushes reach the model (ADR 0066). */
  channel: ChannelPush;
}

/** How long `status` waits, at most, for a room it has not met yet (see `settled`). */
export const STATUS_SETTLE_MS = 3000;

/**
 * The network for `status`, once the room has shown itself. A member that knows nobody yet may
 * just have started: the signal server has not answered, or those already on the topic have not
 * said hello over their new links (Claude Code asks for status within moments of starting papo).
 * So, knowing nobody, it waits — at most `ms` — until a member is known, the signal server says
 * nobody else is there, or it refuses or cannot be reached (the warnings say so). `meeting` is true
 * when the wait ran out with the room still being met.
 */
async function settled(
  member: RoomMember,
  signal: AbortSignal,
  ms: number,
): Promise<{ network: NetworkView; meeting: boolean }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const network = await networkView(member);
    if (network.knowsMembers) return { network, meeting: false };
    const s = network.signal;
    const alone = s.joined && (s.peers ?? []).length === 0;
    const refused = !s.joined && s.problem !== undefined;
    const transportDown = network.transport.state !== 'running' && network.transport.state !== 'starting';
    if (alone || refused || transportDown) return { network, meeting: false };
    if (Date.now() >= deadline || signal.aborted) return { network, meeting: true };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The member's network as the warnings need it. */
async function networkView(member: RoomMember): Promise<NetworkView> {
  const health = await member.network();
  let loopback = false;
  try {
    loopback = health.signalUrl !== '' && isLoopbackSignalUrl(health.signalUrl);
  } catch {
    // not a URL: nothing to say about it
  }
  return {
    signalUrl: health.signalUrl,
    loopback,
    knowsMembers: member.members().length > 0,
    signal: health.signal,
    transport: health.transport,
  };
}

/** What the agent must know of names in the room: its own taken, or another's claimed (ADR 0064). */
function trustWarnings(member: RoomMember): string[] {
  const lines: string[] = [];
  const takenBy = member.nameTakenBy();
  if (takenBy !== undefined) lines.push(nameTakenWarning(member.name, takenBy));
  for (const i of member.impostors().slice(-3)) lines.push(impostorWarning(i.name, i.kind, i.node, i.frames));
  return lines;
}

export type ToolHandler = (args: Args, ctx: ToolContext) => Promise<ToolResult>;

/**
 * What each `wait`/`inbox` result marked read (see `deliver`): the server puts them back among the
 * unread when the client cancels the call after all (member-api `restore`).
 */
export const CONSUMED = new WeakMap<ToolResult, Envelope[]>();

/** Known members whose person reviews incoming messages (ADR 0081), among those `wanted`. */
function reviewersAmong(member: RoomMember, wanted: (name: string) => boolean): string[] {
  const names = member
    .members()
    .filter((m) => m.reviews === true && m.kind === 'agent' && wanted(m.name))
    .map((m) => m.name);
  return [...new Set(names)];
}

function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new CallCancelled('cancelled');
}

export function createToolHandlers(deps: ToolDeps): Record<ToolName, ToolHandler> {
  /** Formats what fits, consumes exactly that, and says how many stay unread. */
  async function deliver(member: RoomMember, messages: Envelope[], signal: AbortSignal): Promise<ToolResult> {
    // A message pushed in this session says so in its header: the model may have seen it (ADR 0066).
    const fitted = fitMessages(messages, undefined, (id) => deps.channel.wasPushed(id));
    // Consume only if the result will be sent: a cancelled call gets no response, so the
    // messages must stay unread for the next `wait`/`inbox`.
    throwIfCancelled(signal);
    await member.consume(fitted.included.map((m) => m.id));
    // From here the messages are read. A cancellation that arrives during the write, or after the
    // result left, puts them back (server.ts): the client drops the result of a cancelled call.
    const result = textResult(fitted.text);
    CONSUMED.set(result, fitted.included);
    return result;
  }

  const send: ToolHandler = async (args, ctx) => {
    checkKnown('send', args, TOOL_ARGUMENTS.send);
    if (args.message === undefined || args.message === null)
      throw new ArgumentError(SEND_ERRORS.missingMessage);
    const raw = optionalString(args, 'message', SEND_ERRORS.notAString('message')) as string;
    const body = raw.trim();
    if (body === '') throw new ArgumentError(SEND_ERRORS.empty);
    const bytes = Buffer.byteLength(body, 'utf8');
    if (bytes > LIMITS.maxMessageBytes) throw new ArgumentError(SEND_ERRORS.tooLarge(bytes));
    const to = optionalString(args, 'to', SEND_ERRORS.notAString('to'))?.trim();
    if (to !== undefined && !MEMBER_NAME.test(to)) throw new ArgumentError(SEND_ERRORS.invalidTo(to));
    const replyTo = optionalString(args, 'reply_to', SEND_ERRORS.notAString('reply_to'))
      ?.trim()
      .toLowerCase();
    if (replyTo !== undefined && !MSG_ID.test(replyTo))
      throw new ArgumentError(SEND_ERRORS.invalidReplyTo(replyTo));
    const credential = findCredential(body);
    if (credential !== null) return errorResult(SEND_ERRORS.credential(credential.kind));

    const member = await deps.member(ctx.signal);
    // Answering a message that only a push could have shown proves pushes reach the model (ADR 0066).
    if (replyTo !== undefined) await deps.channel.replied(replyTo);
    throwIfCancelled(ctx.signal);
    if (!deps.sendWindow.tryTake()) return errorResult(SEND_ERRORS.rateLimited(deps.sendWindow.max));
    const unknownTo = to !== undefined && !member.members().some((m) => sameName(m.name, to));
    let result: Awaited<ReturnType<RoomMember['send']>>;
    try {
      result = await member.send(
        { body, ...(to === undefined ? {} : { to }), ...(replyTo === undefined ? {} : { replyTo }) },
        deps.ackTimeoutMs,
      );
    } catch (err) {
      return errorResult(SEND_ERRORS.failed(messageOf(err)));
    }
    // Answering implies having seen that message and the sender's earlier ones (docs/mcp.md,
    // "Tools").
    if (replyTo !== undefined) await member.markRepliedTo(replyTo);
    const owed = result.owed ?? [];
    if (result.ackedBy !== null) {
      const acked = result.acked !== undefined && result.acked.length > 0 ? result.acked : [result.ackedBy];
      // Those who have it and whose person reads it first (ADR 0081): an answer can take longer.
      const reviewers = reviewersAmong(member, (name) => acked.some((a) => sameName(a, name)));
      const review = reviewers.length > 0 ? ` ${reviewedBy(reviewers)}` : '';
      // Everyone it is owed to has it: the delivered text (docs/mcp.md, "Tools"), with every name.
      if (owed.length === 0) return textResult(delivered(nameList(acked), result.id) + review);
      const online = member.onlineNames();
      const later = owed.map((name) => ({ name, online: online.some((o) => sameName(o, name)) }));
      return textResult(deliveredToSome(acked, result.id, later) + review);
    }
    if (result.refusedBy !== null) {
      const by = result.refusedBy;
      const reviews = reviewersAmong(member, (name) => sameName(name, by)).length > 0;
      return textResult(reviews ? inboxFullReviewing(by, result.id) : inboxFull(by, result.id));
    }
    // Nobody confirmed: say whether the network is the reason (docs/transport.md, "Network health").
    const warnings = [...trustWarnings(member), ...networkWarnings(await networkView(member))];
    const queued = notAcknowledged(result.id, member.onlineNames(), to, unknownTo);
    return textResult([owed.length > 1 ? `${queued} ${owedToEach(owed)}` : queued, ...warnings].join('\n'));
  };

  const wait: ToolHandler = async (args, ctx) => {
    checkKnown('wait', args, TOOL_ARGUMENTS.wait);
    const seconds = optionalInteger(
      args,
      'timeout_seconds',
      LIMITS.waitMinSeconds,
      LIMITS.waitMaxSeconds,
      LIMITS.waitDefaultSeconds,
      WAIT_ERRORS.timeout,
    );
    const from = optionalString(args, 'from', WAIT_ERRORS.invalidFrom(shownValue(args.from)))?.trim();
    if (from !== undefined && !MEMBER_NAME.test(from)) throw new ArgumentError(WAIT_ERRORS.invalidFrom(from));

    // The time counts from the call, as the client counts it (Claude Code moves a call still
    // running after 2 minutes to the background, ADR 0067), also while the member is opening.
    const started = Date.now();
    const deadline = started + seconds * 1000;
    const member = await deps.member(ctx.signal);
    const wanted = (m: Envelope) => from === undefined || sameName(m.from, from);
    const matching = () => member.unread().filter(wanted);
    // While this call is in flight, what it wants comes to it and is not pushed: the model is
    // inside this call and reads a push only after it (ADR 0066). What it does not return is
    // pushed when it ends.
    const claim = deps.channel.claim(wanted);
    try {
      return await waitLoop();
    } finally {
      claim.release();
    }
    async function waitLoop(): Promise<ToolResult> {
      for (;;) {
        throwIfCancelled(ctx.signal);
        const ready = matching();
        // Unread messages already waiting are returned at once. Until pushes are known to reach the
        // model, one of them may have been pushed before: its header says so (ADR 0066).
        if (ready.length > 0) return deliver(member, ready, ctx.signal);
        const left = deadline - Date.now();
        if (left <= 0)
          return textResult(
            noNewMessages(seconds, member.onlineNames(), from, {
              reviewers: reviewersAmong(member, (name) => from === undefined || sameName(name, from)),
              held: member.held().length,
              reviewing: member.reviewing(),
            }),
          );
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            clearInterval(ticker);
            member.off('message', onMessage);
            ctx.signal.removeEventListener('abort', done);
            resolve();
          };
          const onMessage = (m: Envelope) => {
            if (from === undefined || sameName(m.from, from)) done();
          };
          const timer = setTimeout(done, left);
          // notifications/progress keeps Claude Code's idle timer from ending a long wait.
          const ticker = setInterval(() => {
            // Fractional seconds: MCP requires progress to increase with every notification.
            ctx.progress?.((Date.now() - started) / 1000, seconds);
          }, deps.progressIntervalMs);
          member.on('message', onMessage);
          ctx.signal.addEventListener('abort', done);
        });
      }
    }
  };

  const inbox: ToolHandler = async (args, ctx) => {
    checkKnown('inbox', args, TOOL_ARGUMENTS.inbox);
    const member = await deps.member(ctx.signal);
    throwIfCancelled(ctx.signal);
    const unread = member.unread();
    if (unread.length === 0) return textResult(NO_UNREAD);
    return deliver(member, unread, ctx.signal);
  };

  const history: ToolHandler = async (args, ctx) => {
    checkKnown('history', args, TOOL_ARGUMENTS.history);
    const limit = optionalInteger(
      args,
      'limit',
      LIMITS.historyMin,
      LIMITS.historyMax,
      LIMITS.historyDefault,
      HISTORY_ERRORS.limit,
    );
    const member = await deps.member(ctx.signal);
    const entries = await member.history(limit);
    throwIfCancelled(ctx.signal);
    if (entries.length === 0) return textResult(NO_HISTORY);
    const fromOthers = entries.some((e) => e.ev === 'in');
    // What the person has not approved shows as held or rejected, without its text; the decisions
    // themselves are the person's, not lines of the conversation (ADR 0081).
    const review = reviewStates(entries);
    const lines: string[] = [];
    for (const e of entries) {
      if (e.ev === 'review') continue;
      const state = e.ev === 'in' ? review.get(e.msg.id) : undefined;
      const mark =
        state === 'held'
          ? { note: HISTORY_HELD, body: false }
          : state === 'rejected'
            ? { note: HISTORY_REJECTED, body: false }
            : undefined;
      lines.push(formatLogEntry(e, member.name, mark));
    }
    return textResult(fitLines(lines, LIMITS.maxResultChars, fromOthers ? HISTORY_NOTICE : ''));
  };

  const status: ToolHandler = async (args, ctx) => {
    checkKnown('status', args, TOOL_ARGUMENTS.status);
    const member = await deps.member(ctx.signal);
    throwIfCancelled(ctx.signal);
    const { network, meeting } = await settled(member, ctx.signal, STATUS_SETTLE_MS);
    throwIfCancelled(ctx.signal);
    const peers = member.members();
    const head = [statusHeader(member.name, member.roomId, member.nodeId.slice(0, 10))];
    head.push(...trustWarnings(member), ...networkWarnings(network));
    head.push(peers.length > 0 ? STATUS_PEERS : meeting ? STATUS_STILL_CONNECTING : STATUS_NO_PEERS);
    const tail = [statusCounts(member.unread().length, member.queuedCount())];
    // Its own person's review (ADR 0081): how many messages wait for them, so it can say so.
    const held = member.held().length;
    if (member.reviewing() || held > 0) tail.push(heldForReview(held, member.reviewing()));
    // Who the queue waits for (ADR 0063); in a pair it can only be the other one, so the text stays
    // as docs/mcp.md ("Tools") gives it.
    const waiting = member.queuedFor?.() ?? [];
    if (waiting.length > 0 && new Set(peers.map((p) => p.name.toLowerCase())).size > 1)
      tail.push(statusQueuedFor(waiting));
    const restart = network.transport.lastRestart;
    if (restart !== undefined && network.transport.state === 'running') {
      tail.push(
        statusTransportRestarts(network.transport.restarts, (Date.now() - restart.at) / 1000, restart.why),
      );
    }
    if (deps.papoRelaySet === true) tail.push(PAPO_RELAY_NOTE);
    // An `about` is room text: the notice comes first whenever one is shown (ADR 0059).
    if (peers.some((p) => p.about !== undefined && p.about !== '')) head.unshift(STATUS_NOTICE);
    const lines = peers.map((p) => ({ line: statusPeerLine(p), online: p.online }));
    return textResult(fitStatus(head, lines, tail));
  };

  return { send, wait, inbox, history, status };
}
