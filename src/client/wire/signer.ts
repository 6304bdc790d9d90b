// Ed25519 signing bound to a member's identity, and checking by node id (the node id is the public
// key in hex), for the codecs that sign what they seal: frames (frame-codec.ts, ADR 0064) and
// attachment frames (attach/chunk-codec.ts, ADR 0121). node:crypto (OpenSSL), the public keys kept
// parsed: a room has at most a few hundred members (MAX_KNOWN_PEERS).
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { ED25519_PKCS8_PREFIX, ED25519_SPKI_PREFIX, type Identity } from './identity.js';

/** Public keys kept parsed. */
const KEY_CACHE_LIMIT = 1024;

export class Signer {
  readonly nodeId: string;
  #privateKey: KeyObject;
  #publicKeys = new Map<string, KeyObject>();

  constructor(identity: Identity) {
    this.nodeId = identity.nodeId;
    this.#privateKey = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, identity.secretKey]),
      format: 'der',
      type: 'pkcs8',
    });
  }

  /** This identity's signature of `bytes` (64 bytes). */
  sign(bytes: Uint8Array): Buffer {
    return sign(null, bytes, this.#privateKey);
  }

  /** Whether `signature` is `nodeId`'s of `bytes`; false for a node id that is no public key. */
  verify(nodeId: string, bytes: Uint8Array, signature: Uint8Array): boolean {
    try {
      return verify(null, bytes, this.#publicKey(nodeId), signature);
    } catch {
      return false;
    }
  }

  #publicKey(nodeId: string): KeyObject {
    let key = this.#publicKeys.get(nodeId);
    if (key === undefined) {
      key = createPublicKey({
        key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(nodeId, 'hex')]),
        format: 'der',
        type: 'spki',
      });
      if (this.#publicKeys.size >= KEY_CACHE_LIMIT) this.#publicKeys.clear();
      this.#publicKeys.set(nodeId, key);
    }
    return key;
  }
}
