// Room cryptography (docs/protocol.md, "Derivations from the secret" and "Sealing").
// Everything comes from the 32-byte room secret through BLAKE3 derive_key with a distinct context
// per use, so learning one derived value (the topic the signal server sees, the room id people
// compare) tells nothing about the others or the secret.
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { randomBytes } from '@noble/ciphers/utils.js';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { PapoError } from '../errors.js';

export const SECRET_BYTES = 32;
export const NONCE_BYTES = 24;
export const TAG_BYTES = 16;

/** aad of sealed frames (docs/protocol.md, "Sealing"). */
export const FRAME_AAD = utf8ToBytes('papo/v1');
/** aad of sealed signal blobs (docs/protocol.md, "Sealing"). */
export const SIGNAL_AAD = utf8ToBytes('papo/v1/signal');

const CONTEXT_ROOM_ID = 'papo v1 room id';
const CONTEXT_TOPIC = 'papo v1 signal topic';
const CONTEXT_FRAME_KEY = 'papo v1 frame key';
const CONTEXT_SIGNAL_KEY = 'papo v1 signal key';

export interface RoomKeys {
  /** First 4 bytes of derive_key("papo v1 room id"), hex: safe to show and compare. */
  roomId: string;
  /** derive_key("papo v1 signal topic"), hex: the only room value the signal server sees. */
  topic: string;
  /** Seals frames between members. */
  frameKey: Uint8Array;
  /** Seals SDP and ICE blobs sent through the signal server. */
  signalKey: Uint8Array;
}

export function generateSecret(): Uint8Array {
  return randomBytes(SECRET_BYTES);
}

/** BLAKE3 in derive_key mode: `context` is the application's context string. */
export function deriveKey(context: string, material: Uint8Array, length = 32): Uint8Array {
  return blake3(material, { context: utf8ToBytes(context), dkLen: length });
}

export function deriveRoomKeys(secret: Uint8Array): RoomKeys {
  if (!(secret instanceof Uint8Array) || secret.length !== SECRET_BYTES) {
    throw new TypeError(`room secret must be ${SECRET_BYTES} bytes`);
  }
  return {
    roomId: bytesToHex(deriveKey(CONTEXT_ROOM_ID, secret).subarray(0, 4)),
    topic: bytesToHex(deriveKey(CONTEXT_TOPIC, secret)),
    frameKey: deriveKey(CONTEXT_FRAME_KEY, secret),
    signalKey: deriveKey(CONTEXT_SIGNAL_KEY, secret),
  };
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
