// The identity's key pair, made by node:crypto: RFC 8032's test vector, and the same public key as
// @noble/curves (what papo used before, and what the keys on disk were made with) for random seeds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import fc from 'fast-check';
import { generateIdentity, identityFromSecretKey } from '../../src/client/wire/identity.js';

test('RFC 8032 §7.1 test 1: the seed gives its public key, and the node id is its hex', () => {
  const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
  const id = identityFromSecretKey(new Uint8Array(seed));
  assert.equal(id.nodeId, 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
  assert.deepEqual(id.publicKey, new Uint8Array(Buffer.from(id.nodeId, 'hex')));
  assert.equal(id.publicKey.length, 32);
});

test('every seed gives the public key @noble/curves gives; a new identity is a fresh seed', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (seed) => {
      assert.deepEqual(identityFromSecretKey(seed).publicKey, ed25519.getPublicKey(seed));
    }),
    { numRuns: 200 },
  );
  const a = generateIdentity();
  const b = generateIdentity();
  assert.notEqual(a.nodeId, b.nodeId);
  assert.deepEqual(a.publicKey, ed25519.getPublicKey(a.secretKey));
  assert.throws(() => identityFromSecretKey(new Uint8Array(31)), /32 bytes/);
});
