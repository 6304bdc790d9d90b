// What the push pump (channel-pump.ts) and the routes (push-route.ts and the doors in push-doors/)
// agree on: a route carries one message into the client's conversation, and the choice says which
// one this session uses and why the client's own door does not (ADR 0118). A contract in a file of
// its own, so the pump does not import the routes.
import type { Envelope } from '../client/wire/messages.js';

/**
 * A client's own door into its conversation, usable by an MCP server it started, with no flag:
 * Claude Code's session messages, Qwen Code's Cross-Session Protocol, `codex queue`.
 */
export type DoorKind = 'claude-session' | 'qwen-session' | 'codex-queue';

export type PushRouteKind = 'channel' | DoorKind;

/** One way into the client's conversation. */
export interface PushRoute {
  readonly kind: PushRouteKind;
  /** Hands one message to the client; rejects when it could not (the pump then falls back). */
  push(msg: Envelope): Promise<void>;
  /**
   * For a client that answers later than the push (Claude Code's receipts): `listener` is called
   * when the client refused or held a message it had taken, with the room's msg id when the client
   * names it, and a line of why. The pump then falls back as for a push that failed.
   */
  onRefused?(listener: (msgId: string | undefined, detail: string) => void): void;
}

/**
 * Why the client's door does not carry this session's pushes. `closed`: the client is known (its
 * environment or command line says so) but gave papo no door, with the reason in words
 * (`--bare`, a flag off, a headless run); `channels`: Claude Code runs with papo's channel, which
 * carries them; `failed`: the door failed during the session (the detail has no token in it).
 */
export type DoorOff =
  | { why: 'closed'; detail: string }
  | { why: 'channels' }
  | { why: 'failed'; detail: string };

/** A client's door as found in this session: open (its route), or known to be off. */
export type DoorFound = { kind: DoorKind; route: PushRoute } | { kind: DoorKind; off: DoorOff };

/** One of papo's ancestor processes (push-route.ts reads them from /proc). */
export interface Ancestor {
  pid: number;
  /** Its command line. */
  args: string[];
}

/** What a door looks at to find itself: papo's environment and its ancestors. */
export interface DoorContext {
  env: NodeJS.ProcessEnv;
  /** papo's ancestors, nearest first (read when first asked, then kept). */
  ancestors(): Ancestor[];
}

/** Looks for one client's door; undefined when papo does not run under that client. */
export type Door = (ctx: DoorContext) => DoorFound | undefined;

/** Where pushes go in this session, and what `status` says of the door that is off. */
export interface RouteChoice {
  route: PushRoute;
  /** Claude Code was started with papo's channel (its command line says so). */
  channelsAsked: boolean;
  /** The client's door papo found (undefined: none, papo does not know the client). */
  door?: DoorKind;
  /** Why that door does not carry the pushes (undefined when it does, or when there is no door). */
  doorOff?: DoorOff;
}

/** What `status` says of this session's push (texts.ts, `statusPush`). */
export interface PushView {
  /** `none`: the route failed and nothing took over (no fallback given). */
  route: PushRouteKind | 'none';
  channelsAsked: boolean;
  proven: boolean;
  door?: DoorKind;
  doorOff?: DoorOff;
}
