// Room cryptography (docs/protocol.md, "Derivations from the secret" and "Sealing"): the keys
// derived from the room secret (room-keys.ts, re-exported here) and the sealing with them.
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { randomBytes } from '@noble/ciphers/utils.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { PapoError } from '../errors.js';
import { SECRET_BYTES } from './room-keys.js';

export { deriveKey, deriveRoomKeys, type RoomKeys, SECRET_BYTES } from './room-keys.js';

export const NONCE_BYTES = 24;
export const TAG_BYTES = 16;

/** aad of sealed frames (docs/protocol.md, "Sealing"). */
export const FRAME_AAD = utf8ToBytes('papo/v1');
/** aad of sealed signal blobs (docs/protocol.md, "Sealing"). */
export const SIGNAL_AAD = utf8ToBytes('papo/v1/signal');

export function generateSecret(): Uint8Array {
  return randomBytes(SECRET_BYTES);
}

/**
 * Seals `plaintext`: nonce(24) || XChaCha20-Poly1305(key, nonce, plaintext, aad).
 * A random 24-byte nonce is safe to draw per message (XChaCha's extended nonce exists for this).
 * `nonce` may be given only by known-answer tests.
 */
export function seal(
  key: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array,
  nonce: Uint8Array = randomBytes(NONCE_BYTES),
): Uint8Array {
  if (nonce.length !== NONCE_BYTES) throw new RangeError(`nonce must be ${NONCE_BYTES} bytes`);
  const ciphertext = xchacha20poly1305(key, nonce, aad).encrypt(plaintext);
  const out = new Uint8Array(NONCE_BYTES + ciphertext.length);
  out.set(nonce, 0);
  out.set(ciphertext, NONCE_BYTES);
  return out;
}

/**
 * Opens what `seal` produced. The tag is checked before anything is decrypted; every failure
 * (short input, wrong key, wrong aad, a changed byte) is the same error, so a caller cannot leak
 * which check failed.
 */
export function open(key: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Uint8Array {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) {
    throw new PapoError('open_failed', 'sealed data does not open');
  }
  try {
    return xchacha20poly1305(key, sealed.subarray(0, NONCE_BYTES), aad).decrypt(sealed.subarray(NONCE_BYTES));
  } catch (cause) {
    throw new PapoError('open_failed', 'sealed data does not open', { cause });
  }
}
