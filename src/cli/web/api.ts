// What papo web's server and its page say to each other (ADR 0106): the JSON of each route and of
// the event stream, declared once. Types only, and no import: the server (server.ts, views.ts,
// commands/web.ts) and the page (page/app.ts, its own tsconfig, lib dom) both read this file with
// `import type`, which the build erases, so the page loads no module of the server.

/** A message as the page shows it, every piece of room text already made inert (views.ts). */
export interface MessageView {
  id: string;
  from: string;
  kind: 'agent' | 'human';
  to?: string;
  replyTo?: string;
  ts: number;
  body: string;
}

/** A log entry as the page shows it. */
export type EntryView =
  | { ev: 'out'; msg: MessageView }
  | { ev: 'in'; msg: MessageView; held?: true }
  | { ev: 'delivered'; id: string; by: string; ts: number }
  | { ev: 'review'; id: string; decision: 'approved' | 'rejected'; ts: number; reason?: string };

/** A message held for the person's review. */
export type HeldView = MessageView;

/** The review gate: on or off, and the messages it holds. */
export interface ReviewState {
  on: boolean;
  held: HeldView[];
}

/** The answer to a say, a review decision, or a request the server refuses. */
export interface ActionResult {
  ok: boolean;
  lines: string[];
  /** A say that went out: its id and who confirmed it (the page shows it as a card). */
  said?: { id: string; ackedBy: string[] };
}

/** A profile of PAPO_HOME, for the page's picker. */
export interface ProfileChoice {
  profile: string;
  self: string;
  roomId: string;
}

/** GET /api/profiles. */
export interface ProfilesReply {
  first: string;
  profiles: ProfileChoice[];
}

/** GET /api/state: the room as the page starts with it. */
export interface StateReply {
  profile: string;
  self: string;
  roomId: string;
  /** The person's language, for the page's words. */
  lang: 'en' | 'pt';
  entries: EntryView[];
  review: ReviewState;
  /** The members the profile remembers: who the say box offers in its "To". */
  remembered: RememberedMemberView[];
}

/** The data of an `entries` event of GET /api/events: new entries and the review gate after them. */
export interface EntriesEvent {
  entries: EntryView[];
  review: ReviewState;
}

/** A member the profile remembers (peers.json). */
export interface RememberedMemberView {
  name: string;
  kind: 'agent' | 'human';
  about?: string;
}

/** A member as a look at the room found it. */
export interface LiveMemberView {
  name: string;
  kind: 'agent' | 'human';
  online: boolean;
  /** The member this profile is. */
  yourAgent: boolean;
  path?: 'direct' | 'relay';
  about?: string;
  /**
   * Why an offline member is offline, when papo knows (ADR 0115): `no-link`, it is on the signal
   * server's topic but no link to it is up yet; `signal-down`, the signal server cannot be reached,
   * so nobody can be seen there. Absent: offline, not on the topic.
   */
  why?: 'no-link' | 'signal-down';
  /** An open link that brought nothing back for this many seconds: online, but not answering. */
  quietSeconds?: number;
}

/** GET /api/members: who is remembered, and who is online when the look succeeded (else `error`). */
/** POST /api/session's answer: the session the page sends as `Authorization: Bearer`. */
export interface SessionReply {
  session: string;
}

export interface MembersReply {
  remembered: RememberedMemberView[];
  live?: LiveMemberView[];
  error?: string;
}

/**
 * GET /api/presence: who is online as the profile's running papo mcp sees them (asked over
 * member.sock, nothing opened), or `running: false` when no papo mcp of the profile answers.
 */
export interface PresenceReply {
  running: boolean;
  live?: LiveMemberView[];
  remembered: RememberedMemberView[];
}
