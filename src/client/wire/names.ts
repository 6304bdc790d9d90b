// Name rules (docs/cli.md, "CLI reference" and "papo new"): a member name is what other agents call you, a
// profile name is local only. Both are short, ASCII and safe in file names, logs and the
// `from=`/`to=` attributes of a channel tag.
import { PapoError } from '../errors.js';

// The one home of the room's name and id rules: every other module imports them from here.
/** Member names: 1-32 of A-Za-z0-9-_. (docs/protocol.md, "Frames"). */
export const MEMBER_NAME_PATTERN = /^[A-Za-z0-9._-]{1,32}$/;
/** Profile names: 1-32 of A-Za-z0-9-_ (a path component: no dot). */
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
/** Message ids: 10 lower-case hex characters (5 random bytes). */
export const MESSAGE_ID_PATTERN = /^[0-9a-f]{10}$/;
/** Node ids: the hex of an Ed25519 public key (64 characters). */
export const NODE_ID_PATTERN = /^[0-9a-f]{64}$/;
const MEMBER_NAME = MEMBER_NAME_PATTERN;
const PROFILE_NAME = PROFILE_NAME_PATTERN;

export function isProfileName(name: unknown): name is string {
  return typeof name === 'string' && PROFILE_NAME.test(name);
}

export function isMemberName(name: unknown): name is string {
  return typeof name === 'string' && MEMBER_NAME.test(name);
}

export function validateMemberName(name: string): string {
  if (!isMemberName(name)) {
    throw new PapoError(
      'invalid_name',
      `invalid name ${JSON.stringify(name)}: use 1 to 32 of letters A-Z a-z, digits, "-", "_" and "."`,
    );
  }
  return name;
}

export function validateProfileName(name: string): string {
  if (typeof name !== 'string' || !PROFILE_NAME.test(name)) {
    throw new PapoError(
      'invalid_profile_name',
      `invalid profile name ${JSON.stringify(name)}: use 1 to 32 of letters A-Z a-z, digits, "-" and "_"`,
    );
  }
  return name;
}

/** Member names compare without regard to case (docs/delivery.md, "The rules"). */
export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
