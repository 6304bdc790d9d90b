// RFC 4648's power-of-two alphabets, without padding: base32 (lower case) for invites, base64url
// for certificate pins. One codec for both, strict where texts are compared: a lenient decoder
// would accept a changed last character that only touches the unused bits, so two different texts
// would decode to the same bytes (two "same" invites, two "same" pins). This module imports no
// node: module (crypto, invite and frames stay portable: STYLE.md).

/** An alphabet of 2^bits characters (bits < 8). */
export interface Radix {
  alphabet: string;
  bits: number;
}

export const BASE32_LOWER: Radix = { alphabet: 'abcdefghijklmnopqrstuvwxyz234567', bits: 5 };
export const BASE64URL: Radix = {
  alphabet: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
  bits: 6,
};

export function radixEncode(radix: Radix, bytes: Uint8Array): string {
  const { alphabet, bits: width } = radix;
  const mask = (1 << width) - 1;
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= width) {
      out += alphabet[(buffer >>> (bits - width)) & mask];
      bits -= width;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += alphabet[(buffer << (width - bits)) & mask];
  return out;
}

/**
 * Strict decoder: null for a character outside the alphabet, a length no byte string encodes to
 * (its last character would carry no bit of a byte), or leftover bits that are not zero.
 */
export function radixDecode(radix: Radix, text: string): Uint8Array | null {
  const { alphabet, bits: width } = radix;
  if ((text.length * width) % 8 >= width) return null;
  const out = new Uint8Array(Math.floor((text.length * width) / 8));
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (const ch of text) {
    const value = alphabet.indexOf(ch);
    if (value < 0) return null;
    buffer = (buffer << width) | value;
    bits += width;
    if (bits >= 8) {
      out[index++] = (buffer >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  }
  if (buffer !== 0) return null;
  return out;
}
