// The shapes a message takes in memory, on disk (inbox/, held/, outbox.json, log.jsonl) and in a
// `msg` frame. Field names follow docs/protocol.md ("Frames"); optional fields are omitted when
// empty, never null.

export type SenderKind = 'agent' | 'human';

/** A message of the conversation: the envelope, a `msg` frame's fields (docs/protocol.md, "Frames"). */
export interface Envelope {
  /** 10 lower-case hex characters. */
  id: string;
  /** Member name of the sender. */
  from: string;
  /** Node id (hex Ed25519 public key) of the sender. */
  node: string;
  kind: SenderKind;
  /** Member name this message is addressed to; absent = the whole room. */
  to?: string;
  /** msg_id this message answers. */
  reply_to?: string;
  /** Unix milliseconds at the sender. */
  ts: number;
  body: string;
  /**
   * The sender's Ed25519 signature of its msg frame (hex; frame-codec.ts, ADR 0064), kept so the
   * message can be sent again, by anyone, exactly as signed.
   */
  sig?: string;
}

/** One line of log.jsonl. */
export type LogEntry =
  | { ev: 'out'; msg: Envelope }
  /** `held`: the review gate kept it from the agent until its person decides (ADR 0081). */
  | { ev: 'in'; msg: Envelope; held?: true }
  /** The person's decision on a held message (store/review.ts); `reason` is what they told its sender. */
  | { ev: 'review'; id: string; decision: 'approved' | 'rejected'; ts: number; reason?: string }
  | { ev: 'delivered'; id: string; by: string; ts: number }
  /** Frames that claimed a name another key holds were refused (ADR 0064), first time this run. */
  | { ev: 'impostor'; name: string; kind: SenderKind; node: string; ts: number };
