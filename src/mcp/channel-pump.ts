// Push (docs/mcp.md, "Push"): every message the member receives is handed to the model through
// this session's route (push-route.ts, ADR 0118): a `notifications/claude/channel`, which Claude
// Code renders as
//   <channel source="papo" from=".." msg_id=".." sender_kind="..">body</channel>
// or Claude Code's session messages, with papo's frame in the text. The pump starts only after
// notifications/initialized and once the member is open; it first pushes the unread messages left
// from earlier sessions, then each new one.
//
// Whether a push reaches the model, papo cannot know up front: Claude Code drops channel events
// silently when channels are off, and its `initialize` says nothing of them. So a push marks
// nothing read, and `wait`/`inbox` still return the message, marked as already pushed (ADR 0066),
// until this session holds evidence that pushes reach the model: a `send` whose `reply_to` is a
// message that arrived live in this session, was pushed, and whose id appeared in no tool result
// of this session. From then on each push marks its message read, and so are the pushed ones
// still unread. A message that arrives while a `wait` that wants it is in flight is not pushed:
// the `wait` returns it (if the wait ends without it, it is pushed then).

import { messageOf } from '../client/errors.js';
import type { LogTarget } from '../client/log.js';
import type { RoomMember } from '../client/member-api.js';
import { inertText } from '../client/wire/inert-text.js';
import type { Envelope } from '../client/wire/messages.js';
import type { DoorOff, PushRoute, PushView, RouteChoice } from './push-contract.js';
import { ALREADY_PUSHED, ALREADY_PUSHED_SESSION } from './texts.js';

export const CHANNEL_METHOD = 'notifications/claude/channel';

export interface ChannelParams {
  content: string;
  /** Keys only letters, digits and underscores (Claude Code turns them into tag attributes). */
  meta: Record<string, string>;
}

export function channelParams(msg: Envelope): ChannelParams {
  const meta: Record<string, string> = { from: msg.from, msg_id: msg.id, sender_kind: msg.kind };
  if (msg.reply_to !== undefined) meta.reply_to = msg.reply_to;
  if (msg.to !== undefined) meta.to = msg.to;
  // The body is room text: its control and invisible characters are escaped (ADR 0059). It keeps
  // its lines as they are: the <channel> tag frames it, and Claude Code escapes a </channel> in it.
  return { content: inertText(msg.body), meta };
}

/**
 * How many distinct 10-character hex strings of tool results are remembered. Past it, no evidence
 * is taken any more in this session (pushed messages keep being returned by `wait`/`inbox`).
 */
export const SHOWN_IDS_CAP = 200_000;

/** A `wait` in flight: which messages it returns (it wants them rather than a push). */
export interface WaitClaim {
  /** Ends the claim: the messages it held back and did not return are pushed now. */
  release(): void;
}

/**
 * The channel side of one `papo mcp` session: what was pushed, which ids the tools showed, whether
 * pushes are known to reach the model, and which messages a `wait` in flight holds back.
 */
export class ChannelPush {
  #member: RoomMember | null = null;
  /** Where pushes go now: null before `start`, after `stop`, or once every route failed. */
  #route: PushRoute | null = null;
  readonly #choose: (() => RouteChoice) | null;
  /** The session's route, chosen at its first use (after `initialize`: no work added to start-up). */
  #chosen: RouteChoice | null | undefined;
  /** Where pushes go once the chosen route failed (channel events, as before ADR 0118). */
  readonly #fallback: PushRoute | null;
  /** Why the client's door stopped carrying pushes in this session, if it did. */
  #doorFailed: DoorOff | undefined;
  /** Ids pushed in this session (the startup sweep and a live event can see the same message). */
  readonly #pushed = new Map<string, PushRoute['kind']>();
  /** Pushed ids of messages that arrived after the pump started: only they can be evidence. */
  readonly #live = new Set<string>();
  /** Every 10-character hex string that appeared in a tool result of this session. */
  readonly #shown = new Set<string>();
  #saturated = false;
  #proven = false;
  readonly #claims = new Set<{ wants: (m: Envelope) => boolean; held: Envelope[] }>();
  readonly #onMessage = (msg: Envelope) => {
    if (!this.#heldByWait(msg)) this.#pushOnce(msg, true);
  };

  /**
   * `choose`: picks the session's route (push-route.ts), once, when first needed; `fallback`: the
   * route that takes over when it fails; `report` says such a failure where the person can see it
   * (stderr, always).
   */
  constructor(
    private readonly log: LogTarget = () => {},
    opts: { choose?: () => RouteChoice; fallback?: PushRoute; report?: (line: string) => void } = {},
  ) {
    this.#choose = opts.choose ?? null;
    this.#fallback = opts.fallback ?? null;
    this.#report = opts.report ?? log;
  }

  readonly #report: (line: string) => void;

  #choice(): RouteChoice | null {
    if (this.#chosen === undefined) this.#chosen = this.#choose?.() ?? null;
    return this.#chosen;
  }

  /** Which route pushes in this session, and why the client's door does not. */
  view(): PushView {
    const choice = this.#choice();
    // Before the pump starts, the chosen route; after a failure with nothing to take over, none.
    const route = this.#member === null ? (choice?.route ?? null) : this.#route;
    const doorOff = this.#doorFailed ?? choice?.doorOff;
    return {
      route: route?.kind ?? 'none',
      channelsAsked: choice?.channelsAsked ?? false,
      proven: this.#proven,
      ...(choice?.door !== undefined && { door: choice.door }),
      ...(doorOff !== undefined && { doorOff }),
    };
  }

  /** Pushes are known to reach the model in this session. */
  get proven(): boolean {
    return this.#proven;
  }

  /**
   * Starts pushing through `route` (default: the chosen one): the unread messages first, then each
   * new one.
   */
  start(member: RoomMember, route?: PushRoute): void {
    const chosen = route ?? this.#choice()?.route;
    if (chosen === undefined) throw new TypeError('ChannelPush.start: no route');
    this.#member = member;
    this.#route = chosen;
    chosen.onRefused?.((id, detail) => this.#refused(chosen, id, detail));
    // Subscribe before the sweep so a message arriving in between is not missed.
    member.on('message', this.#onMessage);
    for (const msg of member.unread()) this.#pushOnce(msg, false);
  }

  stop(): void {
    this.#member?.off('message', this.#onMessage);
    this.#route = null;
  }

  /**
   * The mark after the header of a message this session pushed, in `wait`/`inbox` (ADR 0066), in
   * the words of the route that pushed it; '' when it was not pushed.
   */
  pushedMark(id: string): string {
    const kind = this.#pushed.get(id);
    if (kind === undefined) return '';
    return kind === 'channel' ? ALREADY_PUSHED : ALREADY_PUSHED_SESSION;
  }

  /** A tool result went to the model: every id in it is now known to it without a push. */
  noteShown(text: string): void {
    if (this.#proven || this.#saturated) return;
    for (const run of text.toLowerCase().match(/[0-9a-f]{10,}/g) ?? []) {
      for (let i = 0; i + 10 <= run.length; i++) this.#shown.add(run.slice(i, i + 10));
    }
    if (this.#shown.size > SHOWN_IDS_CAP) {
      this.#saturated = true;
      this.#shown.clear();
      this.log('too many ids shown by tools: pushes stay unproven in this session');
    }
  }

  /**
   * The model named `msgId` as the message it answers. If only a push could have told it that id,
   * pushes reach the model: from now on a push marks its message read, and the pushed messages
   * still unread are marked read now.
   */
  async replied(msgId: string): Promise<void> {
    if (this.#proven || this.#saturated || !this.#live.has(msgId) || this.#shown.has(msgId)) return;
    this.#proven = true;
    this.#shown.clear();
    this.log(`pushes reach the model (reply_to ${msgId} was only pushed): a push now marks its message read`);
    const member = this.#member;
    if (member === null) return;
    const ids = member
      .unread()
      .map((m) => m.id)
      .filter((id) => this.#pushed.has(id));
    await member.consume(ids);
  }

  /**
   * A `wait` is about to block: messages it wants arrive to it, not as pushes, until `release`.
   * Those it did not return by then (cancelled, or left out of a full result) are pushed then.
   */
  claim(wants: (m: Envelope) => boolean): WaitClaim {
    const claim = { wants, held: [] as Envelope[] };
    this.#claims.add(claim);
    return {
      release: () => {
        if (!this.#claims.delete(claim)) return;
        const member = this.#member;
        if (member === null || claim.held.length === 0) return;
        const unread = new Set(member.unread().map((m) => m.id));
        for (const msg of claim.held) if (unread.has(msg.id)) this.#onMessage(msg);
      },
    };
  }

  #pushOnce(msg: Envelope, live: boolean): void {
    const route = this.#route;
    if (route === null || this.#pushed.has(msg.id)) return;
    this.#pushed.set(msg.id, route.kind);
    if (live) this.#live.add(msg.id);
    route.push(msg).then(
      () => {
        if (this.#proven && this.#member !== null) {
          this.#member.consume([msg.id]).catch((err: unknown) => {
            this.log(`could not mark pushed ${msg.id} read: ${messageOf(err)}`);
          });
        }
      },
      (err: unknown) => this.#failed(route, msg, live, err),
    );
  }

  /**
   * The route could not hand `msg` over: from now on the fallback pushes (the message too), and the
   * failure is said on stderr and in `status`. A message is never handed to two routes that both
   * reached the model: the failed one did not take it.
   */
  #failed(route: PushRoute, msg: Envelope, live: boolean, err: unknown): void {
    this.#pushed.delete(msg.id);
    this.#live.delete(msg.id);
    this.#leave(route, messageOf(err));
    // Meanwhile it may have been read (a `wait` or `inbox`), or a `wait` may now want it.
    if (this.#route === null || this.#member === null) return;
    if (!this.#member.unread().some((m) => m.id === msg.id)) return;
    if (!this.#heldByWait(msg)) this.#pushOnce(msg, live);
  }

  /**
   * The client refused or held, later, a message the route had handed over: as if the push had
   * failed (the message, when named and still unread, goes through the fallback). Unnamed, the
   * route is left all the same.
   */
  #refused(route: PushRoute, id: string | undefined, detail: string): void {
    const msg = id === undefined ? undefined : this.#member?.unread().find((m) => m.id === id);
    if (msg !== undefined && this.#pushed.get(msg.id) === route.kind) {
      this.#failed(route, msg, this.#live.has(msg.id), new Error(detail));
      return;
    }
    this.#leave(route, detail);
  }

  /** `route` failed: said on stderr and in `status`, and the fallback pushes from now on. */
  #leave(route: PushRoute, detail: string): void {
    if (this.#route !== route) return;
    this.#report(`push through ${route.kind} failed (${detail}); falling back: call wait to read messages`);
    this.#route = this.#fallback !== null && this.#fallback !== route ? this.#fallback : null;
    if (route.kind !== 'channel') this.#doorFailed = { why: 'failed', detail };
  }

  /** A `wait` in flight wants `msg`: it is held for that wait (returned by it, or pushed at its end). */
  #heldByWait(msg: Envelope): boolean {
    for (const claim of this.#claims) {
      if (claim.wants(msg)) {
        claim.held.push(msg);
        return true;
      }
    }
    return false;
  }
}
