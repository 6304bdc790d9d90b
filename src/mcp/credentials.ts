// Refusal of credential-shaped text in `send` (ADR 0041). A message, once sent, sits in every
// member's inbox and log; an agent that pastes a .env file or a token to "help" a colleague leaks it
// for good. So `send` refuses a message carrying something shaped like a credential and names the
// kind it found — never the value, which would put it back into the model's context and logs.
//
// The detectors are deliberately specific (known prefixes, fixed lengths, structure checks) so that
// ordinary code, hashes, UUIDs and placeholders are never refused: a false refusal teaches the agent
// to work around the check. Generic `NAME=value` lines need a secret-like name AND a value that
// looks random (letters and digits, varied characters, no placeholder words).

export interface CredentialFinding {
  /** What was found, worded for the model: "a GitHub token". Never contains the matched text. */
  kind: string;
}

interface Detector {
  kind: string;
  pattern: RegExp;
  /** Extra check on the match; return false to ignore it. */
  accept?: (match: RegExpExecArray) => boolean;
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

// Order matters where prefixes overlap: Anthropic's `sk-ant-` before OpenAI's `sk-`.
const DETECTORS: readonly Detector[] = [
  {
    kind: 'a private key block',
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----\s*(?:[A-Za-z0-9-]+:[^\n]*\n\s*)*[A-Za-z0-9+/=]{40,}/,
  },
  { kind: 'a papo room invite', pattern: /\bpapo1[a-z2-7]{58,}\b/i },
  {
    kind: 'an AWS access key id',
    pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/,
    accept: (m) => !m[0].endsWith('EXAMPLE'),
  },
  {
    kind: 'an AWS secret access key',
    pattern: /aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/i,
    accept: (m) => looksRandom(m[1] ?? ''),
  },
  { kind: 'a GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/ },
  { kind: 'a GitHub token', pattern: /\bgithub_pat_[A-Za-z0-9_]{60,255}\b/ },
  { kind: 'a GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { kind: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  {
    kind: 'a Slack webhook URL',
    pattern: /hooks\.slack\.com\/services\/T[A-Z0-9]{6,}\/B[A-Z0-9]{6,}\/[A-Za-z0-9]{16,}/,
  },
  { kind: 'a Stripe live key', pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}/ },
  { kind: 'an Anthropic API key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { kind: 'an OpenAI API key', pattern: /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/ },
  {
    kind: 'an OpenAI API key',
    pattern: /\bsk-[A-Za-z0-9_-]{32,}/,
    accept: (m) => looksRandom(m[0].slice(3), 32) && /[A-Z]/.test(m[0]) && /[a-z]/.test(m[0]),
  },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { kind: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  {
    kind: 'a JSON Web Token (JWT)',
    pattern: /\b(eyJ[A-Za-z0-9_-]{8,})\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/,
    accept: (m) => isJwtHeader(m[1] ?? ''),
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
    // `.env`-style lines: NAME=value, NAME: value, export NAME="value".
    kind: 'a secret assignment (a .env-style line)',
    pattern:
      /^[ \t]*(?:export[ \t]+)?["']?([A-Za-z_][A-Za-z0-9_.-]*)["']?[ \t]*[=:][ \t]*(["']?)([^\s"'#;,]{16,})\2[ \t]*[,;]?[ \t]*$/gm,
    accept: (m) =>
      /secret|token|passw(?:or)?d|pwd|credential|private|key|auth/i.test(m[1] ?? '') &&
      looksRandom(m[3] ?? '') &&
      !looksLikeCodeOrPath(m[3] ?? ''),
  },
];

/** The first credential-shaped thing in `text`, or null. */
export function findCredential(text: string): CredentialFinding | null {
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
  return null;
}
