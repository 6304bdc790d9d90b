// Room cryptography (docs/protocol.md, "Derivations from the secret" and "Sealing"): the keys
// derived from the room secret (room-keys.ts, re-exported here) and the sealing with them.
// XChaCha20-Poly1305 is node's own ChaCha20-Poly1305 (OpenSSL) under a subkey from HChaCha20
// (xchacha.ts), so a member seals in native code, also in a process that never optimises its
// JavaScript (ADR 0108).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { PapoError } from '../errors.js';
import { SECRET_BYTES } from './room-keys.js';
import { xchachaSubkey } from './xchacha.js';

export { deriveKey, deriveRoomKeys, type RoomKeys } from './room-keys.js';

export const NONCE_BYTES = 24;
export const TAG_BYTES = 16;

/** aad of sealed frames (docs/protocol.md, "Sealing"). */
export const FRAME_AAD = utf8ToBytes('papo/v1');
/** aad of sealed signal blobs (docs/protocol.md, "Sealing"). */
export const SIGNAL_AAD = utf8ToBytes('papo/v1/signal');

export function generateSecret(): Uint8Array {
  return new Uint8Array(randomBytes(SECRET_BYTES));
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
  const { subkey, iv } = xchachaSubkey(key, nonce);
  const cipher = createCipheriv('chacha20-poly1305', subkey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad, { plaintextLength: plaintext.length });
  const out = new Uint8Array(NONCE_BYTES + plaintext.length + TAG_BYTES);
  out.set(nonce, 0);
  const body = cipher.update(plaintext);
  out.set(body, NONCE_BYTES);
  const rest = cipher.final();
  out.set(rest, NONCE_BYTES + body.length);
  out.set(cipher.getAuthTag(), NONCE_BYTES + plaintext.length);
  return out;
}

/**
 * Opens what `seal` produced. Nothing decrypted leaves before the tag is checked; every failure
 * (short input, wrong key, wrong aad, a changed byte) is the same error, so a caller cannot leak
 * which check failed.
 */
export function open(key: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Uint8Array {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) {
    throw new PapoError('open_failed', 'sealed data does not open');
  }
  try {
    const { subkey, iv } = xchachaSubkey(key, sealed.subarray(0, NONCE_BYTES));
    const decipher = createDecipheriv('chacha20-poly1305', subkey, iv, { authTagLength: TAG_BYTES });
    const end = sealed.length - TAG_BYTES;
    decipher.setAuthTag(sealed.subarray(end));
    decipher.setAAD(aad, { plaintextLength: end - NONCE_BYTES });
    const body = decipher.update(sealed.subarray(NONCE_BYTES, end));
    const rest = decipher.final();
    const out = new Uint8Array(body.length + rest.length);
    out.set(body, 0);
    out.set(rest, body.length);
    return out;
  } catch (cause) {
    throw new PapoError('open_failed', 'sealed data does not open', { cause });
  }
}
