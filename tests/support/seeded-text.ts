// Deterministic pseudo-random text (mulberry32) for fixtures that must look generated, such as
// credential-shaped strings, yet be the same at every run, so a failure is reproducible.

/** `rnd(alphabet, n)`: n characters drawn from `alphabet`, the same sequence for the same seed. */
export function seededText(seed: number): (alphabet: string, n: number) => string {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (alphabet, n) => {
    let s = '';
    while (s.length < n) s += alphabet[Math.floor(next() * alphabet.length)];
    return s;
  };
}

export const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const LOW = 'abcdefghijklmnopqrstuvwxyz';
export const DIG = '0123456789';
export const ALNUM = UP + LOW + DIG;
export const HEX = '0123456789abcdef';
export const B64 = `${ALNUM}+/`;
