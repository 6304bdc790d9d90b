// Refusal of credential-shaped text in `send` (ADR 0041). A message, once sent, sits in every
// member's inbox and log; an agent that pastes a .env file or a token to "help" a colleague leaks it
// for good. So `send` refuses a message carrying something shaped like a credential and names the
// kind it found — never the value, which would put it back into the model's context and logs.
//
// The detectors are deliberately specific (known prefixes, fixed lengths, structure checks) so that
// ordinary code, hashes, UUIDs and placeholders are never refused: a false refusal teaches the agent
// to work around the check. Generic `NAME=value` lines need a secret-like name AND a value that
// looks random (letters and digits, varied characters, no placeholder words).
//
// Every detector runs on the text as a reader would see it (ADR 0061): `readerView`
// (src/client/wire/reader-view.ts, shared with the review gate's hold patterns: ADR 0095) folds
// what a person or a model reads as the same characters (compatibility forms, invisible
// characters gone, Cyrillic/Greek lookalikes of Latin letters) so a zero-width space or a homoglyph
// inside a token does not hide it; tokens with a distinctive prefix are also joined across
// whitespace splits.
import { decodeInvite } from '../client/wire/invite.js';
import { readerView } from '../client/wire/reader-view.js';

export interface CredentialFinding {
  /** What was found, worded for the model: "a GitHub token". Never contains the matched text. */
  kind: string;
}

interface Detector {
  kind: string;
  pattern: RegExp;
  /** Extra check on the match; return false to ignore it. */
  accept?: (match: RegExpExecArray) => boolean;
  /**
   * The token's distinctive start. With it, the detector is also tried on the pieces that follow
   * it joined across whitespace ("ghp_AbC1 9xYz..."), which `splitAccept` must then accept.
   */
  prefix?: RegExp;
  /** Replaces the generic check of a token joined from pieces (invites carry a checksum). */
  splitAccept?: (joined: string) => boolean;
}

const PLACEHOLDER =
  /example|placeholder|changeme|change_me|your[_-]|<|>|\$|\{|\}|x{6,}|\*{3,}|\.{3}|dummy|sample|redacted|fake|test[_-]?key/i;

/** Shannon entropy in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** A value that looks generated rather than written: long, letters and digits, varied. */
function looksRandom(value: string, minLength = 16): boolean {
  if (value.length < minLength) return false;
  if (PLACEHOLDER.test(value)) return false;
  if (!/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return false;
  return entropy(value) >= 3;
}

/**
 * Values that are code or locations, not secrets: `process.env.API_KEY_V2`, `config.auth.token1`,
 * `https://auth.example.io/oauth2/token`, `/etc/ssl/private/server2.pem`, `getToken(2)`.
 */
function looksLikeCodeOrPath(value: string): boolean {
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return true;
  if (value.includes('://') || /[()[\]]/.test(value)) return true;
  if (/^(?:\/|\.\.?\/|~\/)/.test(value)) return true;
  return /\.(?:pem|key|crt|cer|p12|pfx|json|ya?ml|txt|env|js|ts)$/i.test(value);
}

function base64UrlDecode(part: string): string | null {
  try {
    return Buffer.from(part.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  } catch {
    return null;
  }
}

function isJwtHeader(part: string): boolean {
  const json = base64UrlDecode(part);
  if (json === null) return false;
  try {
    const header: unknown = JSON.parse(json);
    return (
      typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string'
    );
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Tokens split across whitespace

/** What may separate the pieces of a split token: whitespace, or a string concatenation. */
const GAP = /\s+|\s*["'`]\s*\+?\s*["'`]\s*/y;
const MAX_PIECES = 24;
const MAX_JOINED = 400;

/** A piece of ordinary writing: "tokens", "Tokens", "GitHub". Random pieces rarely are (≥ 3 chars). */
const WORD = /^(?:[a-z]+|[A-Z][a-z]+(?:[A-Z][a-z]+)*|[a-z]+(?:[A-Z][a-z]+)+)$/;

/**
 * The generic check of a token joined from pieces. A generated token changes between upper case,
 * lower case and digits at about every second character (62 % for base62) however it is cut, and
 * does not repeat itself; prose changes at word starts at most. And prose is words: if half of the
 * joined characters are in pieces that read as words, it is prose that happens to follow a prefix
 * ("ghp_ tokens are...").
 */
function looksLikeSplitToken(pieces: readonly string[]): boolean {
  const stats = new SplitStats();
  for (const piece of pieces) stats.add(piece);
  return !stats.repeated && stats.plausible();
}

/** The measures of looksLikeSplitToken, kept as pieces are added one at a time. */
class SplitStats {
  /** A 6-character run of the body was seen twice; adding pieces cannot undo it. */
  repeated = false;
  #length = 0;
  #changes = 0;
  #lastClass = -1;
  #wordChars = 0;
  #counted = 0;
  #tail = '';
  readonly #seen = new Set<string>();

  add(piece: string): void {
    for (const part of piece.split(/[^A-Za-z0-9]+/)) {
      if (part.length < 3) continue;
      this.#counted += part.length;
      if (WORD.test(part)) this.#wordChars += part.length;
    }
    for (const c of piece) {
      const cls = c >= 'a' && c <= 'z' ? 0 : c >= 'A' && c <= 'Z' ? 1 : c >= '0' && c <= '9' ? 2 : -1;
      if (cls < 0) continue;
      if (this.#lastClass >= 0 && cls !== this.#lastClass) this.#changes++;
      this.#lastClass = cls;
      this.#length++;
      this.#tail = (this.#tail + c).slice(-6);
      if (this.#tail.length === 6) {
        if (this.#seen.has(this.#tail)) this.repeated = true;
        this.#seen.add(this.#tail);
      }
    }
  }

  /** Long enough, changing class often enough, and not mostly words. */
  plausible(): boolean {
    return (
      this.#length >= 16 && this.#changes / (this.#length - 1) >= 0.3 && this.#wordChars * 2 <= this.#counted
    );
  }
}

/**
 * The text cut into pieces at gaps, and the pieces joined: `compact` is the text without its gaps,
 * `starts` the offset in `compact` where each piece begins. A gap longer than 16 characters is a
 * paragraph, not a split, and stays as one space.
 */
interface Pieces {
  compact: string;
  starts: number[];
}

function cutPieces(text: string): Pieces {
  let compact = '';
  const starts: number[] = [];
  let pos = 0;
  while (pos < text.length) {
    let end = pos;
    while (end < text.length && !/\s|["'`]/.test(text[end] as string)) end++;
    if (end > pos) {
      starts.push(compact.length);
      compact += text.slice(pos, end);
    }
    if (end >= text.length) break;
    GAP.lastIndex = end;
    const gap = GAP.exec(text);
    if (gap === null || gap[0].length === 0) {
      compact += text[end]; // a lone quote: it ends a token
      pos = end + 1;
    } else {
      if (gap[0].length > 16) compact += ' ';
      pos = end + gap[0].length;
    }
  }
  return { compact, starts };
}

/**
 * Tries a prefixed detector on tokens that a split made invisible to it: each occurrence of its
 * prefix in the text without gaps (the prefix itself may be split) that starts a word, then the
 * pieces from there joined one by one. A candidate counts only when the match reaches into its last
 * piece (it needed the split) and the joined pieces look generated, not written.
 */
function findSplit(pieces: Pieces, d: Detector & { prefix: RegExp }): boolean {
  const { compact, starts } = pieces;
  const pieceStart = new Set(starts);
  const prefix = new RegExp(d.prefix.source, `${d.prefix.flags.replace('g', '')}g`);
  const whole = new RegExp(d.pattern.source, `${d.pattern.flags.replace(/[gym]/g, '')}y`);
  for (let m = prefix.exec(compact); m !== null; m = prefix.exec(compact)) {
    const at = m.index;
    // A word starts here: at a piece's start, or after a character that is not a word character.
    if (!pieceStart.has(at) && /\w/.test(compact[at - 1] ?? '')) continue;
    const first = firstAfter(starts, at);
    if (first >= starts.length) continue; // the last piece: nothing was split after it
    // Candidates end at the piece ends after the prefix's start, up to MAX_PIECES of them. The
    // measures of the joined body go first, as they are cheap and kept from one piece to the next;
    // the pattern and the exact check run only on candidates that pass them.
    const bodyStart = at + m[0].length;
    const stats = d.splitAccept === undefined ? new SplitStats() : null;
    stats?.add(compact.slice(bodyStart, starts[first]));
    for (let k = first; k < starts.length && k < first + MAX_PIECES; k++) {
      const end = starts[k + 1] ?? compact.length;
      if (end - at > MAX_JOINED) break;
      if (stats !== null) {
        stats.add(compact.slice(Math.max(starts[k] as number, bodyStart), end));
        if (stats.repeated) break;
        if (!stats.plausible()) continue;
      }
      const candidate = compact.slice(at, end);
      whole.lastIndex = 0;
      const found = whole.exec(candidate);
      if (found === null || at + found[0].length <= (starts[k] as number)) continue;
      if (d.accept !== undefined && !d.accept(found)) continue;
      const token = found[0];
      const ok =
        d.splitAccept !== undefined
          ? d.splitAccept(token)
          : looksLikeSplitToken(bodyPieces(starts, bodyStart, at + token.length, compact));
      if (ok) return true;
    }
  }
  return false;
}

/** Index of the first of the sorted `starts` greater than `at` (binary search). */
function firstAfter(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) > at) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The pieces of `compact[from, to)`, cut where the original pieces were. */
function bodyPieces(starts: readonly number[], from: number, to: number, compact: string): string[] {
  const out: string[] = [];
  let a = from;
  for (const s of starts) {
    if (s <= a) continue;
    if (s >= to) break;
    out.push(compact.slice(a, s));
    a = s;
  }
  if (to > a) out.push(compact.slice(a, to));
  return out;
}

function isValidInvite(text: string): boolean {
  try {
    decodeInvite(text);
    return true;
  } catch {
    return false;
  }
}

// Order matters where prefixes overlap: Anthropic's `sk-ant-` before OpenAI's `sk-`.
const DETECTORS: readonly Detector[] = [
  {
    kind: 'a private key block',
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----\s*(?:[A-Za-z0-9-]+:[^\n]*\n\s*)*[A-Za-z0-9+/=]{40,}/,
  },
  {
    kind: 'a papo room invite',
    pattern: /\bpapo1[a-z2-7]{58,}\b/i,
    prefix: /papo1/i,
    splitAccept: isValidInvite,
  },
  {
    kind: 'an AWS access key id',
    pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/,
    accept: (m) => !m[0].endsWith('EXAMPLE'),
    prefix: /(?:AKIA|ASIA)/,
  },
  {
    kind: 'an AWS secret access key',
    pattern: /aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/i,
    accept: (m) => looksRandom(m[1] ?? ''),
  },
  { kind: 'a GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/, prefix: /gh[pousr]_/ },
  { kind: 'a GitHub token', pattern: /\bgithub_pat_[A-Za-z0-9_]{60,255}\b/, prefix: /github_pat_/ },
  { kind: 'a GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/, prefix: /glpat-/ },
  { kind: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/, prefix: /xox[abposr]-/ },
  {
    kind: 'a Slack webhook URL',
    pattern: /hooks\.slack\.com\/services\/T[A-Z0-9]{6,}\/B[A-Z0-9]{6,}\/[A-Za-z0-9]{16,}/,
  },
  {
    kind: 'a Stripe live key',
    pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}/,
    prefix: /(?:sk|rk)_live_/,
  },
  { kind: 'an Anthropic API key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/, prefix: /sk-ant-/ },
  {
    kind: 'an OpenAI API key',
    pattern: /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/,
    prefix: /sk-(?:proj|svcacct|admin)-/,
  },
  {
    kind: 'an OpenAI API key',
    pattern: /\bsk-[A-Za-z0-9_-]{32,}/,
    // Upper and lower case in the key itself: `m[0]` starts with "sk-", whose lower case made the
    // second test always pass (found by mutation testing, ADR 0080).
    accept: (m) => {
      const key = m[0].slice(3);
      return looksRandom(key, 32) && /[A-Z]/.test(key) && /[a-z]/.test(key);
    },
    prefix: /sk-/,
  },
  {
    kind: 'a Google API key',
    // Not a trailing `\b`: a key may end in "-", after which a space or the end is no boundary
    // (found by mutation testing, ADR 0080).
    pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/,
    prefix: /AIza/,
  },
  { kind: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/, prefix: /npm_/ },
  {
    kind: 'a JSON Web Token (JWT)',
    pattern: /\b(eyJ[A-Za-z0-9_-]{8,})\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/,
    accept: (m) => isJwtHeader(m[1] ?? ''),
    prefix: /eyJ/,
  },
  {
    kind: 'an Authorization header with a token',
    pattern: /authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{20,})/i,
    accept: (m) => looksRandom(m[1] ?? '', 20),
  },
  {
    kind: 'a URL with an embedded password',
    pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s:/@]{8,})@[^\s/@]+/i,
    accept: (m) => looksRandom(m[1] ?? '', 8),
  },
  {
    // `.env`-style lines: NAME=value, NAME: value, export NAME="value", each with an optional
    // trailing comment (`# prod`, `// prod`).
    kind: 'a secret assignment (a .env-style line)',
    pattern:
      /^[ \t]*(?:export[ \t]+)?["']?([A-Za-z_][A-Za-z0-9_.-]*)["']?[ \t]*[=:][ \t]*(["']?)([^\s"'#;,]{16,})\2[ \t]*[,;]?(?:[ \t]*#[^\n]*|[ \t]+\/\/[^\n]*)?[ \t]*$/gm,
    accept: (m) =>
      /secret|token|passw(?:or)?d|pwd|credential|private|key|auth/i.test(m[1] ?? '') &&
      looksRandom(m[3] ?? '') &&
      !looksLikeCodeOrPath(m[3] ?? ''),
  },
];

/** The first credential-shaped thing in `text` (normalised first: see above), or null. */
export function findCredential(input: string): CredentialFinding | null {
  const text = readerView(input);
  for (const d of DETECTORS) {
    const re = new RegExp(
      d.pattern.source,
      d.pattern.flags.includes('g') ? d.pattern.flags : `${d.pattern.flags}g`,
    );
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (d.accept === undefined || d.accept(m)) return { kind: d.kind };
      if (m[0].length === 0) re.lastIndex++;
    }
  }
  const pieces = cutPieces(text);
  for (const d of DETECTORS) {
    if (d.prefix !== undefined && findSplit(pieces, { ...d, prefix: d.prefix })) return { kind: d.kind };
  }
  return null;
}
