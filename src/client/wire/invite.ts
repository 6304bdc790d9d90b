// The invite (docs/protocol.md, "Invite"; ADR 0004):
//   "papo1" + base32_lower_nopad( body || blake3(body)[0..4] )
//   body = secret (32 bytes) || signal address (UTF-8, 0..255 bytes; empty = the local default)
// The signal address is a URL that may end in `#pin=sha256/…&token=…` (ADR 0089): the server's
// certificate pin and token ride in the invite, which is the room's secret already. An invite
// made before that carries a URL without a fragment and decodes as it always did.
// The 4-byte check makes an invite cut or altered while being copied fail loudly instead of
// joining a different room (every truncation is refused, property tests included: docs/status.md).
import { blake3 } from '@noble/hashes/blake3.js';
import { isPapoError, PapoError } from '../errors.js';
import { BASE32_LOWER, radixDecode, radixEncode } from './radix.js';
import { SECRET_BYTES } from './room-keys.js';
import { MAX_SIGNAL_URL_BYTES, parseSignalUrl } from './signal-url.js';

export const INVITE_PREFIX = 'papo1';
const CHECK_BYTES = 4;

export interface Invite {
  secret: Uint8Array;
  /**
   * The signal address, normalised, with its `#pin=…&token=…` fragment when it has one (never
   * shown: signal-url.ts splits it); '' when the room uses the local signal server.
   */
  signalUrl: string;
}

export function encodeInvite(secret: Uint8Array, signalUrl: string): string {
  if (secret.length !== SECRET_BYTES) throw new TypeError(`room secret must be ${SECRET_BYTES} bytes`);
  const url = new TextEncoder().encode(signalUrl);
  if (url.length > MAX_SIGNAL_URL_BYTES) throw new RangeError('signal URL longer than 255 bytes');
  const body = new Uint8Array(SECRET_BYTES + url.length);
  body.set(secret, 0);
  body.set(url, SECRET_BYTES);
  const check = blake3(body).subarray(0, CHECK_BYTES);
  const all = new Uint8Array(body.length + CHECK_BYTES);
  all.set(body, 0);
  all.set(check, body.length);
  return INVITE_PREFIX + base32Encode(all);
}

const DAMAGED =
  'this invite is damaged or was cut off when it was copied; ask for it again (the other person runs "papo invite")';
const DAMAGED_DETAIL = { detail: { problem: 'damaged' } } as const;

export function decodeInvite(text: string): Invite {
  if (typeof text !== 'string') throw new TypeError('invite must be a string');
  const trimmed = text.trim();
  if (!trimmed.startsWith(INVITE_PREFIX)) {
    throw new PapoError('invalid_invite', 'this is not a papo invite (an invite starts with "papo1")', {
      detail: { problem: 'not_papo' },
    });
  }
  const bytes = base32Decode(trimmed.slice(INVITE_PREFIX.length).toLowerCase());
  if (bytes === null || bytes.length < SECRET_BYTES + CHECK_BYTES) {
    throw new PapoError('invalid_invite', DAMAGED, DAMAGED_DETAIL);
  }
  const body = bytes.subarray(0, bytes.length - CHECK_BYTES);
  const check = bytes.subarray(bytes.length - CHECK_BYTES);
  const expected = blake3(body).subarray(0, CHECK_BYTES);
  if (!expected.every((b, i) => b === check[i]))
    throw new PapoError('invalid_invite', DAMAGED, DAMAGED_DETAIL);
  if (body.length - SECRET_BYTES > MAX_SIGNAL_URL_BYTES)
    throw new PapoError('invalid_invite', DAMAGED, DAMAGED_DETAIL);

  const secret = body.slice(0, SECRET_BYTES);
  let signalUrl = '';
  if (body.length > SECRET_BYTES) {
    let urlText: string;
    try {
      urlText = new TextDecoder('utf-8', { fatal: true }).decode(body.subarray(SECRET_BYTES));
    } catch (cause) {
      throw new PapoError('invalid_invite', 'this invite carries no usable signal URL', {
        detail: { problem: 'no_signal_url' },
        cause,
      });
    }
    try {
      signalUrl = parseSignalUrl(urlText, 'invite');
    } catch (cause) {
      // A refused fragment says what is wrong with it (the message repeats no token).
      if (isPapoError(cause, 'invalid_signal_url') && cause.detail.fragment !== undefined) {
        throw new PapoError('invalid_invite', cause.message, {
          detail: { problem: 'signal_fragment', fragment: cause.detail.fragment },
          cause,
        });
      }
      throw new PapoError(
        'invalid_invite',
        'this invite carries no usable signal URL (it must be ws://, wss://, http:// or https://)',
        { detail: { problem: 'no_signal_url' }, cause },
      );
    }
  }
  return { secret, signalUrl };
}

/** RFC 4648 base32, lower case, no padding. */
export function base32Encode(bytes: Uint8Array): string {
  return radixEncode(BASE32_LOWER, bytes);
}

/** Strict (radix.ts): null for a character outside the alphabet, an impossible length, or stray bits. */
export function base32Decode(text: string): Uint8Array | null {
  return radixDecode(BASE32_LOWER, text);
}
