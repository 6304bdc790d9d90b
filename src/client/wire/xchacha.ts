// XChaCha20's extended nonce (draft-irtf-cfrg-xchacha-03, section 2): HChaCha20 turns the key and
// the nonce's first 16 bytes into a subkey, and ChaCha20 (IETF, 12-byte nonce) runs under it with
// four zero bytes and the nonce's last 8. Node's crypto has ChaCha20-Poly1305 but not HChaCha20;
// this is the one block function papo computes itself, checked against the draft's vectors.

/**
 * HChaCha20(key, nonce16): 32 bytes, the state's first and last rows after 20 rounds. Written with
 * sixteen locals and no calls: papo mcp does not optimise its JavaScript (ADR 0108), and in V8's
 * baseline tiers this runs in ~5 µs where a state array and a quarter-round function take ~20.
 */
export function hchacha20(key: Uint8Array, nonce16: Uint8Array): Uint8Array {
  if (key.length !== 32) throw new RangeError('key must be 32 bytes');
  if (nonce16.length !== 16) throw new RangeError('nonce must be 16 bytes');
  const k = new DataView(key.buffer, key.byteOffset, 32);
  const n = new DataView(nonce16.buffer, nonce16.byteOffset, 16);
  // "expand 32-byte k", the key, the nonce: the state's 16 words, little-endian.
  let x0 = 0x61707865;
  let x1 = 0x3320646e;
  let x2 = 0x79622d32;
  let x3 = 0x6b206574;
  let x4 = k.getUint32(0, true);
  let x5 = k.getUint32(4, true);
  let x6 = k.getUint32(8, true);
  let x7 = k.getUint32(12, true);
  let x8 = k.getUint32(16, true);
  let x9 = k.getUint32(20, true);
  let x10 = k.getUint32(24, true);
  let x11 = k.getUint32(28, true);
  let x12 = n.getUint32(0, true);
  let x13 = n.getUint32(4, true);
  let x14 = n.getUint32(8, true);
  let x15 = n.getUint32(12, true);
  let t = 0;
  // biome-ignore format: a quarter-round's four steps a line each, as the draft writes them
  for (let round = 0; round < 10; round++) {
    // Columns: (0 4 8 12) (1 5 9 13) (2 6 10 14) (3 7 11 15).
    x0 = (x0 + x4) | 0; t = x12 ^ x0; x12 = (t << 16) | (t >>> 16);
    x8 = (x8 + x12) | 0; t = x4 ^ x8; x4 = (t << 12) | (t >>> 20);
    x0 = (x0 + x4) | 0; t = x12 ^ x0; x12 = (t << 8) | (t >>> 24);
    x8 = (x8 + x12) | 0; t = x4 ^ x8; x4 = (t << 7) | (t >>> 25);
    x1 = (x1 + x5) | 0; t = x13 ^ x1; x13 = (t << 16) | (t >>> 16);
    x9 = (x9 + x13) | 0; t = x5 ^ x9; x5 = (t << 12) | (t >>> 20);
    x1 = (x1 + x5) | 0; t = x13 ^ x1; x13 = (t << 8) | (t >>> 24);
    x9 = (x9 + x13) | 0; t = x5 ^ x9; x5 = (t << 7) | (t >>> 25);
    x2 = (x2 + x6) | 0; t = x14 ^ x2; x14 = (t << 16) | (t >>> 16);
    x10 = (x10 + x14) | 0; t = x6 ^ x10; x6 = (t << 12) | (t >>> 20);
    x2 = (x2 + x6) | 0; t = x14 ^ x2; x14 = (t << 8) | (t >>> 24);
    x10 = (x10 + x14) | 0; t = x6 ^ x10; x6 = (t << 7) | (t >>> 25);
    x3 = (x3 + x7) | 0; t = x15 ^ x3; x15 = (t << 16) | (t >>> 16);
    x11 = (x11 + x15) | 0; t = x7 ^ x11; x7 = (t << 12) | (t >>> 20);
    x3 = (x3 + x7) | 0; t = x15 ^ x3; x15 = (t << 8) | (t >>> 24);
    x11 = (x11 + x15) | 0; t = x7 ^ x11; x7 = (t << 7) | (t >>> 25);
    // Diagonals: (0 5 10 15) (1 6 11 12) (2 7 8 13) (3 4 9 14).
    x0 = (x0 + x5) | 0; t = x15 ^ x0; x15 = (t << 16) | (t >>> 16);
    x10 = (x10 + x15) | 0; t = x5 ^ x10; x5 = (t << 12) | (t >>> 20);
    x0 = (x0 + x5) | 0; t = x15 ^ x0; x15 = (t << 8) | (t >>> 24);
    x10 = (x10 + x15) | 0; t = x5 ^ x10; x5 = (t << 7) | (t >>> 25);
    x1 = (x1 + x6) | 0; t = x12 ^ x1; x12 = (t << 16) | (t >>> 16);
    x11 = (x11 + x12) | 0; t = x6 ^ x11; x6 = (t << 12) | (t >>> 20);
    x1 = (x1 + x6) | 0; t = x12 ^ x1; x12 = (t << 8) | (t >>> 24);
    x11 = (x11 + x12) | 0; t = x6 ^ x11; x6 = (t << 7) | (t >>> 25);
    x2 = (x2 + x7) | 0; t = x13 ^ x2; x13 = (t << 16) | (t >>> 16);
    x8 = (x8 + x13) | 0; t = x7 ^ x8; x7 = (t << 12) | (t >>> 20);
    x2 = (x2 + x7) | 0; t = x13 ^ x2; x13 = (t << 8) | (t >>> 24);
    x8 = (x8 + x13) | 0; t = x7 ^ x8; x7 = (t << 7) | (t >>> 25);
    x3 = (x3 + x4) | 0; t = x14 ^ x3; x14 = (t << 16) | (t >>> 16);
    x9 = (x9 + x14) | 0; t = x4 ^ x9; x4 = (t << 12) | (t >>> 20);
    x3 = (x3 + x4) | 0; t = x14 ^ x3; x14 = (t << 8) | (t >>> 24);
    x9 = (x9 + x14) | 0; t = x4 ^ x9; x4 = (t << 7) | (t >>> 25);
  }
  const out = new Uint8Array(32);
  const o = new DataView(out.buffer);
  o.setUint32(0, x0, true);
  o.setUint32(4, x1, true);
  o.setUint32(8, x2, true);
  o.setUint32(12, x3, true);
  o.setUint32(16, x12, true);
  o.setUint32(20, x13, true);
  o.setUint32(24, x14, true);
  o.setUint32(28, x15, true);
  return out;
}

/** The ChaCha20-Poly1305 key and 12-byte nonce that XChaCha20-Poly1305(key, nonce24) runs as. */
export function xchachaSubkey(key: Uint8Array, nonce24: Uint8Array): { subkey: Uint8Array; iv: Uint8Array } {
  const iv = new Uint8Array(12);
  iv.set(nonce24.subarray(16, 24), 4);
  return { subkey: hchacha20(key, nonce24.subarray(0, 16)), iv };
}
