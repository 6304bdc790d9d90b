// The text as a reader sees it (ADR 0061, 0095): what a person or a model reads as the same
// characters folded to one form, so that a zero-width space, a fullwidth letter or a Cyrillic
// lookalike does not hide a word from a check that looks for it. The one normalisation papo
// matches room text with: `send`'s credential refusal (src/mcp/credentials.ts) and the review
// gate's hold patterns (src/client/store/review-patterns.ts). Only for matching: nothing
// normalised is ever shown or sent.

/**
 * Lookalikes of the Latin alphabet that NFKD leaves alone: Cyrillic, Greek, Armenian and Latin
 * letters drawn like ASCII ones (after Unicode's confusables.txt, kept to the unmistakable ones),
 * and a digit. Pairs of (lookalike, ASCII).
 */
const HOMOGLYPH_PAIRS =
  // Cyrillic
  'аaеeіiјjкkоoрpсcуyхxѕsԁdԛqԝwӏlһhАAВBЕEКKМMНHОOРPСCТTУYХXІIЈJЅSԚQԜWҮYӀIЗ3' +
  // Greek
  'ΑAΒBΕEΖZΗHΙIΚKΜMΝNΟOΡPΤTΥYΧXϹCͿJαaοoνvρpιiκkυuχxϲcϳj' +
  // Armenian, Latin letters outside ASCII
  'օoսuհhոnՍUՕOıiȷjɑaɡgɩiǀl';

const HOMOGLYPHS: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  const chars = [...HOMOGLYPH_PAIRS];
  for (let i = 0; i + 1 < chars.length; i += 2) map.set(chars[i] as string, chars[i + 1] as string);
  return map;
})();

const NON_ASCII = /[\u0080-\u{10ffff}]/u;
const NON_ASCII_ALL = /[\u0080-\u{10ffff}]/gu;

/**
 * The text with what hides a word from a pattern taken out, in this order:
 * 1. Unicode tag characters (U+E0020-E007E, invisible "ASCII smuggling") become the ASCII they
 *    shadow: a model reads them, so they count as text.
 * 2. NFKD, then combining marks dropped: fullwidth and mathematical letters, and letterlike
 *    numerals such as the Roman numeral U+217D "ⅽ", become ASCII (the compatibility mapping of
 *    NFKC), and "g" + U+0301 stays "g".
 * 3. Format (Cf) and default-ignorable characters dropped: zero-width space, ZWNJ, ZWJ, word
 *    joiner, soft hyphen, BOM, bidi controls, variation selectors, Hangul fillers.
 * 4. Homoglyphs folded to ASCII; every dash to "-", every connector (fullwidth low line...) to "_";
 *    the braille blank (U+2800), drawn as a space but not white space to Unicode, to a space.
 * ASCII text comes out unchanged.
 */
export function readerView(text: string): string {
  if (!NON_ASCII.test(text)) return text; // the common case, and already what a reader sees
  const untagged = text.replace(/[\u{e0020}-\u{e007e}]/gu, (c) =>
    String.fromCodePoint((c.codePointAt(0) as number) - 0xe0000),
  );
  const decomposed = untagged
    .normalize('NFKD')
    .replace(/[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '');
  return decomposed.replace(NON_ASCII_ALL, (c) => {
    const folded = HOMOGLYPHS.get(c);
    if (folded !== undefined) return folded;
    if (/[\p{Pd}\u2212]/u.test(c)) return '-';
    if (/\p{Pc}/u.test(c)) return '_';
    if (c === '\u2800') return ' ';
    return c;
  });
}
