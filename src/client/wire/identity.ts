// A member's network identity: an Ed25519 key pair kept in secret.key. The public key in hex is
// the node id other members and the signal server know it by; keeping it stable across restarts
// is what lets neighbours recognise a member that comes back.
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex } from '@noble/hashes/utils.js';

export interface Identity {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  /** Hex of the public key (64 characters). */
  nodeId: string;
}

export { shortId } from '../log.js';
export { NODE_ID_PATTERN } from './names.js';

export function generateIdentity(): Identity {
  return identityFromSecretKey(ed25519.utils.randomSecretKey());
}

export function identityFromSecretKey(secretKey: Uint8Array): Identity {
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) {
    throw new TypeError('an Ed25519 secret key is 32 bytes');
  }
  const publicKey = ed25519.getPublicKey(secretKey);
  return { secretKey, publicKey, nodeId: bytesToHex(publicKey) };
}
