// A member's network identity: an Ed25519 key pair kept in secret.key. The public key in hex is
// the node id other members and the signal server know it by; keeping it stable across restarts
// is what lets neighbours recognise a member that comes back. The key is node:crypto's (OpenSSL),
// as in frame-codec.ts: @noble/curves cost every process 50 ms to load before its first key.
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { bytesToHex } from '@noble/hashes/utils.js';

/** DER prefixes of a raw Ed25519 key (RFC 8410): PKCS#8 for the 32-byte seed, SPKI for the public key. */
export const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
export const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface Identity {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  /** Hex of the public key (64 characters). */
  nodeId: string;
}

export { shortId } from '../log.js';

export function generateIdentity(): Identity {
  return identityFromSecretKey(new Uint8Array(randomBytes(32)));
}

export function identityFromSecretKey(secretKey: Uint8Array): Identity {
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) {
    throw new TypeError('an Ed25519 secret key is 32 bytes');
  }
  const key = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, secretKey]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const publicKey = new Uint8Array(spki.subarray(ED25519_SPKI_PREFIX.length));
  return { secretKey, publicKey, nodeId: bytesToHex(publicKey) };
}
