// What the push pump (channel-pump.ts) and the routes (push-route.ts) agree on: a route carries one
// message into the client's conversation, and the choice says which one this session uses and why
// Claude Code's session messages do not (ADR 0118). A contract in a file of its own, so the pump
// does not import the routes.
import type { Envelope } from '../client/wire/messages.js';

export type PushRouteKind = 'channel' | 'claude-session';

/** One way into the client's conversation. */
export interface PushRoute {
  readonly kind: PushRouteKind;
  /** Hands one message to the client; rejects when it could not (the pump then falls back). */
  push(msg: Envelope): Promise<void>;
}

/** Where pushes go in this session, and what `status` says of the routes that are off. */
export interface RouteChoice {
  route: PushRoute;
  /** Claude Code was started with papo's channel (its command line says so). */
  channelsAsked: boolean;
  /** Why Claude Code's session messages are not the route (undefined when they are). */
  sessionOff?: SessionOffReason;
}

export type SessionOffReason = { why: 'no-socket' } | { why: 'channels' } | { why: 'failed'; detail: string };

/** What `status` says of this session's push (texts.ts, `statusPush`). */
export interface PushView {
  /** `none`: the route failed and nothing took over (no fallback given). */
  route: PushRouteKind | 'none';
  channelsAsked: boolean;
  proven: boolean;
  sessionOff?: SessionOffReason;
}
