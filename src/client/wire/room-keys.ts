// The room's keys from its secret (docs/protocol.md, "Derivations from the secret"): BLAKE3
// derive_key with a distinct context per use, so learning one derived value (the topic the signal
// server sees, the room id people compare) tells nothing about the others or the secret. Apart
// from the sealing (room-crypto.ts), so that what reads a profile's room id before papo mcp
// answers `initialize` loads BLAKE3 alone, not the cipher.
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export const SECRET_BYTES = 32;

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
