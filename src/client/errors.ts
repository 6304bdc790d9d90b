// One error class for domain failures, with a stable string code that the CLI, the MCP server
// and tests match on. Misuse of an API throws the built-in TypeError/RangeError instead.

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
  | 'io';

export class PapoError extends Error {
  override readonly name = 'PapoError';
  readonly code: PapoErrorCode;

  constructor(code: PapoErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function isPapoError(err: unknown, code?: PapoErrorCode): err is PapoError {
  return err instanceof PapoError && (code === undefined || err.code === code);
}
