// One error class for domain failures, with a stable string code that the CLI, the MCP server
// and tests match on. Misuse of an API throws the built-in TypeError/RangeError instead.
//
// A code that a reader renders in words of its own carries its facts as typed `detail` beside the
// English message and the `cause` (hono's HTTPException carries `status` and `res` the same way),
// so the CLI's pt-BR text is built from data and never read back out of the English one
// (docs/decisions/0086-errors-carry-data.md).

export type PapoErrorCode =
  | 'invalid_name'
  | 'invalid_profile_name'
  | 'invalid_invite'
  | 'invalid_signal_url'
  | 'invalid_frame'
  | 'open_failed'
  | 'profile_exists'
  | 'profile_missing'
  | 'profile_corrupt'
  | 'profile_locked'
  | 'profile_link'
  | 'no_invite'
  | 'home_unwritable'
  | 'invalid_ice_servers'
  | 'invalid_signal_token'
  | 'no_known_members'
  | 'nobody_online'
  | 'not_acknowledged'
  | 'inbox_full'
  | 'bad_signature'
  | 'unknown_member'
  | 'forget_self'
  | 'unknown_message'
  | 'usage'
  | 'invalid_pattern'
  | 'listen_failed'
  | 'attach_refused'
  | 'io';

/** What is wrong with PAPO_SIGNAL_TOKEN (src/client/net/signal-token.ts). Origins only, never tokens. */
export type SignalTokenProblem =
  /** More than one token given without an origin. */
  | { problem: 'bare_twice' }
  /** `ORIGIN=` with nothing after it. */
  | { problem: 'no_token'; origin: string }
  /** One origin given two different tokens. */
  | { problem: 'two_tokens'; origin: string }
  /** A token bound to a plain ws:// origin on another machine. */
  | { problem: 'in_clear'; origin: string }
  /** A bare token without PAPO_SIGNAL; `origin` is the room's server, `inClear` when it is plain ws:// elsewhere. */
  | { problem: 'bare_unbound'; origin: string; inClear: boolean }
  /** Something before "=" that is not a server's origin (`shown`: cut to 80 characters). */
  | { problem: 'not_origin'; shown: string };

/**
 * What is wrong with what a signal address's fragment carries (src/client/wire/signal-url.ts,
 * ADR 0089). Never the token, nor the pin.
 */
export type SignalFragmentProblem =
  | { problem: 'two_pins' }
  | { problem: 'two_tokens' }
  /** A pin that is not `sha256/` and 43 base64url characters (32 bytes). */
  | { problem: 'pin_shape' }
  /** A token that is not 1 to 128 letters, digits or `- . _ ~ + / =`. */
  | { problem: 'token_shape' }
  /** A part other than pin= and token=; `name`: its name cut to 12 characters, others as "?" ('' for none). */
  | { problem: 'unknown_part'; name: string }
  /** A pin on a URL without TLS (`scheme`: `ws:` or `http:`). */
  | { problem: 'pin_without_tls'; scheme: string }
  /** A token for a URL without TLS on another machine: it would travel in clear. */
  | { problem: 'token_in_clear'; scheme: string };

/**
 * Why papo will not send or keep a file (src/client/attach/, ADR 0121). `path` is the path as the
 * agent gave it; `limit` the cap passed, in bytes.
 */
export type AttachProblem =
  | { problem: 'not_found' | 'link' | 'folder' | 'not_file' | 'outside' | 'unreadable'; path: string }
  | { problem: 'too_large'; path: string; size: number; limit: number }
  /** The file changed (size, content or the file itself) between its check and its copy. */
  | { problem: 'changed'; path: string };

/** The data each code carries; a code not named here carries none. */
export interface PapoErrorDetails {
  invalid_invite:
    | { problem: 'not_papo' | 'damaged' | 'no_signal_url' }
    /** The invite's signal address has a fragment papo refuses. */
    | { problem: 'signal_fragment'; fragment: SignalFragmentProblem };
  /**
   * Where the URL came from: the flag, the variable, an invite, or the URL a member dials; and,
   * when the URL is sound but its fragment is refused, what is wrong with the fragment.
   */
  invalid_signal_url: {
    source: 'PAPO_SIGNAL' | '--signal' | 'invite' | 'dialed';
    fragment?: SignalFragmentProblem;
  };
  invalid_signal_token: SignalTokenProblem;
  /** A profile file that is a link (symbolic, or a hard link to another file) or not a regular file. */
  profile_link: { path: string; link: 'symbolic' | 'hard' | 'not_regular' };
  /** A review hold pattern (src/client/store/review.ts) that is too long, or holds nothing but stars. */
  invalid_pattern: { problem: 'too_long' | 'empty' };
  attach_refused: AttachProblem;
  /** `papo signal` could not listen: on its own port, or on the metrics address it was given. */
  listen_failed:
    | { listener: 'signal'; errno: 'EADDRINUSE' | 'EACCES' }
    | { listener: 'metrics'; address: string; errno: string | undefined; reason: string };
}

export type CodeWithDetail = keyof PapoErrorDetails;
export type DetailOf<C extends PapoErrorCode> = C extends CodeWithDetail ? PapoErrorDetails[C] : undefined;

/** A code with data must be given its data; the others take only a cause. */
type Options<C extends PapoErrorCode> = C extends CodeWithDetail
  ? [options: { detail: PapoErrorDetails[C]; cause?: unknown }]
  : [options?: { cause?: unknown }];

export class PapoError<C extends PapoErrorCode = PapoErrorCode> extends Error {
  override readonly name = 'PapoError';
  readonly code: C;
  readonly detail: DetailOf<C>;

  constructor(code: C, message: string, ...[options]: Options<C>) {
    super(message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    this.detail = (options !== undefined && 'detail' in options ? options.detail : undefined) as DetailOf<C>;
  }
}

/** Any PapoError, as a union a `switch (err.code)` narrows: each case sees its own `detail`. */
export type AnyPapoError = { [C in PapoErrorCode]: PapoError<C> }[PapoErrorCode];

export function isPapoError(err: unknown): err is AnyPapoError;
export function isPapoError<C extends PapoErrorCode>(err: unknown, code: C): err is PapoError<C>;
export function isPapoError(err: unknown, code?: PapoErrorCode): boolean {
  return err instanceof PapoError && (code === undefined || err.code === code);
}

/** The text of anything thrown: an Error's message, else its string form. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
