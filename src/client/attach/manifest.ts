// The manifest of a message's files (docs/decisions/0121-sealed-attachments.md, "The manifest"):
// one entry a file, inside the signed `msg`, so each name, size and hash is its sender's word.
// Read from the network, it is checked field by field before anything uses it: a name that could
// climb out of a folder, hide its extension (bidi), name a device on Windows or collide with
// another of the message is refused, never repaired, because the sender's papo made it safe
// (`safeName`) and a name that is not is a lie. Decoding is total: a valid list or
// PapoError('invalid_frame'), nothing else.
import { PapoError } from '../errors.js';
import {
  type AttachCaps,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  MAX_FILES,
  MAX_MEDIA_TYPE_CHARS,
  MAX_NAME_BYTES,
  MAX_NAME_CHARS,
} from './constants.js';

/** One file of a message, as its manifest says. */
export interface ManifestEntry {
  /** The file's name alone, no folder: safe to write (nameProblem is null). */
  name: string;
  /** Bytes. */
  size: number;
  /** SHA-256 of the content, 64 lower-case hex characters. */
  sha256: string;
  /** Media type guessed from the name by the sender (mediaTypeOf). */
  type: string;
  /** The sender saw a patch (isPatch); present only when true. */
  patch?: true;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9.+-]*\/[a-z0-9][a-z0-9.+-]*$/;
/**
 * Characters no name may hold: path separators, what Windows refuses (`: * ? " < > |`), C0 and C1
 * controls with DEL, and the bidi and zero-width characters that make `gpj.exe` read as `exe.jpg`
 * (Unicode TR 9; CVE-2021-42574's "Trojan Source" class).
 */
const FORBIDDEN_CLASS = String.raw`[/\\:*?"<>|\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff]`;
const FORBIDDEN = new RegExp(FORBIDDEN_CLASS, 'u');
const FORBIDDEN_ALL = new RegExp(FORBIDDEN_CLASS, 'gu');
/**
 * Windows device names, whatever follows the first dot and in any case (`con.txt` opens the
 * console): Microsoft's "Naming Files, Paths, and Namespaces", which adds the superscript digits.
 */
const RESERVED =
  /^(con|prn|aux|nul|conin\$|conout\$|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])\s*(\..*)?$/iu;

/** Why `name` is not a file name papo writes, or null when it is one. */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return 'is empty';
  if (name.normalize('NFC') !== name) return 'is not in Unicode NFC';
  if ([...name].length > MAX_NAME_CHARS) return `is longer than ${MAX_NAME_CHARS} characters`;
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) return `is longer than ${MAX_NAME_BYTES} bytes`;
  if (FORBIDDEN.test(name))
    return 'holds a separator, a control, bidi or zero-width character, or one of : * ? " < > |';
  if (name.includes('..')) return 'holds ..';
  if (/^\s|[\s.]$/u.test(name)) return 'begins with a space or ends with a space or a dot';
  if (RESERVED.test(name)) return 'is a reserved Windows device name';
  return null;
}

/** Names the sender's papo would refuse to keep: the suffix after the last dot, when short and plain. */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return '';
  const ext = name.slice(dot);
  return /^\.[A-Za-z0-9]{1,15}$/.test(ext) ? ext : '';
}

/** Cuts `text` to `chars` code points and `bytes` UTF-8 bytes, never inside a character. */
function cut(text: string, chars: number, bytes: number): string {
  let out = '';
  let used = 0;
  let count = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (count + 1 > chars || used + n > bytes) break;
    out += ch;
    used += n;
    count += 1;
  }
  return out;
}

/**
 * A name safe to write made from any name (the last component of a path the agent gave, or a
 * manifest's name read back): NFC; only what follows the last `/` or `\`; each forbidden character
 * `_`; each run of dots inside `_`; no space at the start, no space or dot at the end; a Windows
 * device name prefixed with `_`; cut to the bounds keeping a short extension. When nothing is left,
 * or what is left still fails (it cannot, but the rule is checked, not trusted), the deterministic
 * fallback `file-<first 12 hex of sha256>` (or `file`), also for a name of nothing but `_`, dots and spaces. Always `nameProblem(result) === null`.
 */
export function safeName(name: string, sha256 = ''): string {
  const fallback = SHA256_HEX.test(sha256) ? `file-${sha256.slice(0, 12)}` : 'file';
  let s = name.normalize('NFC');
  s = s.slice(Math.max(s.lastIndexOf('/'), s.lastIndexOf('\\')) + 1);
  s = s.replace(FORBIDDEN_ALL, '_');
  s = s.replace(/\.{2,}/g, '_');
  s = s.replace(/^\s+/u, '').replace(/[\s.]+$/u, '');
  if (RESERVED.test(s)) s = `_${s}`;
  const ext = extensionOf(s);
  if ([...s].length > MAX_NAME_CHARS || Buffer.byteLength(s, 'utf8') > MAX_NAME_BYTES) {
    const stem = cut(
      s.slice(0, s.length - ext.length),
      MAX_NAME_CHARS - ext.length,
      MAX_NAME_BYTES - ext.length,
    );
    s = `${stem.replace(/[\s.]+$/u, '')}${ext}`;
  }
  // Cutting may leave a name NFC no longer holds (a base without its combining mark is fine; the
  // reverse cannot happen), or an empty stem: the check decides.
  // A name of nothing but what replaced the forbidden (`..` became `_`) names nothing: the fallback.
  return !/^[_.\s]*$/u.test(s) && nameProblem(s) === null ? s : fallback;
}

/** Media types by extension: the files agents pass each other, the rest octet-stream. */
const MEDIA_TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.jsonl': 'application/jsonl',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.toml': 'application/toml',
  '.xml': 'application/xml',
  '.sql': 'application/sql',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tgz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.wasm': 'application/wasm',
  '.patch': 'text/x-diff',
  '.diff': 'text/x-diff',
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.cjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.tsx': 'text/x-typescript',
  '.py': 'text/x-python',
  '.rs': 'text/x-rust',
  '.go': 'text/x-go',
  '.java': 'text/x-java',
  '.c': 'text/x-c',
  '.h': 'text/x-c',
  '.sh': 'text/x-shellscript',
  '.proto': 'text/x-protobuf',
  '.graphql': 'application/graphql',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
};

/** The media type a name suggests (its extension, any case); `application/octet-stream` otherwise. */
export function mediaTypeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  const ext = dot < 0 ? '' : name.slice(dot).toLowerCase();
  return MEDIA_TYPES[ext] ?? 'application/octet-stream';
}

/** Bytes of a file's start that isPatch reads. */
export const PATCH_SNIFF_BYTES = 4096;

/**
 * Whether a file is a patch: its name ends in `.patch` or `.diff`, or its first bytes begin as
 * git or diff writes one — `diff --git `, `From <40 hex> ` (git format-patch), `Index: ` (svn),
 * or a `--- ` line followed by a `+++ ` line (unified diff, POSIX `diff -u`).
 */
export function isPatch(name: string, head?: Uint8Array): boolean {
  if (/\.(patch|diff)$/i.test(name)) return true;
  if (head === undefined) return false;
  const text = Buffer.from(head.subarray(0, PATCH_SNIFF_BYTES)).toString('latin1');
  if (/^(diff --git |From [0-9a-f]{40} |Index: )/.test(text)) return true;
  return /^--- [^\n]*\n\+\+\+ /m.test(text);
}

function invalid(reason: string): PapoError {
  return new PapoError('invalid_frame', `invalid frame: ${reason}`);
}

/**
 * The manifest of a `msg` from untrusted JSON (`files`): 1 to MAX_FILES entries, every field typed
 * and bounded, names safe and distinct once case-folded, each size within `caps.maxFileBytes` and
 * their sum within `caps.maxMessageBytes`. Unknown fields of an entry are dropped (ADR 0003).
 */
export function parseManifest(
  value: unknown,
  caps: AttachCaps = { maxFileBytes: DEFAULT_MAX_FILE_BYTES, maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES },
): ManifestEntry[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_FILES)
    throw invalid(`files is not a list of 1 to ${MAX_FILES} files`);
  const seen = new Set<string>();
  let total = 0;
  return value.map((raw: unknown, i) => {
    const at = `files[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw invalid(`${at} is not an object`);
    const o = raw as Record<string, unknown>;
    const name = o.name;
    if (typeof name !== 'string') throw invalid(`${at}.name is not a text`);
    const problem = nameProblem(name);
    if (problem !== null) throw invalid(`${at}.name ${problem}`);
    const folded = name.toLowerCase();
    if (seen.has(folded)) throw invalid(`${at}.name is another file's name`);
    seen.add(folded);
    const size = o.size;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0 || size > caps.maxFileBytes)
      throw invalid(`${at}.size is not a size from 0 to ${caps.maxFileBytes} bytes`);
    total += size;
    if (total > caps.maxMessageBytes) throw invalid(`files together pass ${caps.maxMessageBytes} bytes`);
    const sha256 = o.sha256;
    if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) throw invalid(`${at}.sha256 is not 64 hex`);
    const type = o.type;
    if (typeof type !== 'string' || type.length > MAX_MEDIA_TYPE_CHARS || !MEDIA_TYPE.test(type))
      throw invalid(`${at}.type is not a media type`);
    if (o.patch !== undefined && o.patch !== true) throw invalid(`${at}.patch is not true`);
    return { name, size, sha256, type, ...(o.patch === true ? { patch: true as const } : {}) };
  });
}

/** An entry as JSON, its fields in the order of docs/decisions/0121 (`patch` only when true). */
export function manifestJson(files: readonly ManifestEntry[]): Record<string, unknown>[] {
  return files.map((f) => ({
    name: f.name,
    size: f.size,
    sha256: f.sha256,
    type: f.type,
    ...(f.patch ? { patch: true } : {}),
  }));
}
