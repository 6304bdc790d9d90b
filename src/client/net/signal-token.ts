// Which bearer token, if any, a member sends to a signal server (ADR 0060). The room's signal URL
// comes from an invite, which anyone can make, so a token is bound to the server it is for:
// PAPO_SIGNAL_TOKEN holds ORIGIN=TOKEN pairs (`wss://signal.corp.example=abc`, several separated by
// spaces or commas). A bare token is bound to PAPO_SIGNAL's origin when that is set, and refused
// otherwise. A token never goes over ws:// (or http://) to a host other than this machine: it
// would travel in clear. Errors name origins, never tokens.
//
// A signal address may carry its server's token in its fragment (`wss://host/#token=…`, ADR 0089):
// that token is bound to that address's origin by construction, and used when PAPO_SIGNAL_TOKEN
// binds none to it (a person's own setting wins: it can replace a token the server rotated).
//
// (The signal server reads the same variable as the one token it requires: src/signal-server/config.ts.)
import { PapoError, type SignalTokenProblem } from '../errors.js';
import { isLoopbackHost } from '../hosts.js';

/** A signal address as the member dials it: its URL, and the token its fragment carried (wire/signal-url.ts parses it). */
export interface SignalTarget {
  url: string;
  token?: string;
}

/** `scheme://host[:port]` with http/https folded into ws/wss and default ports dropped. */
export function signalOrigin(url: string): string {
  const parsed = new URL(url);
  const scheme = { 'ws:': 'ws:', 'wss:': 'wss:', 'http:': 'ws:', 'https:': 'wss:' }[parsed.protocol];
  if (scheme === undefined) throw new TypeError(`not a signal URL: ${parsed.protocol}`);
  const defaultPort = scheme === 'wss:' ? '443' : '80';
  // WHATWG URL already drops a scheme's own default port; after folding http into ws, drop it too.
  const port = parsed.port === '' || parsed.port === defaultPort ? '' : `:${parsed.port}`;
  return `${scheme}//${parsed.hostname.toLowerCase()}${port}`;
}

/** True when a token may be sent to this URL: TLS (wss/https), or plain text to this machine only. */
export function tokenMayTravel(url: string): boolean {
  const parsed = new URL(url);
  if (parsed.protocol === 'wss:' || parsed.protocol === 'https:') return true;
  return isLoopbackHost(parsed.hostname);
}

export interface SignalTokens {
  /** origin (as signalOrigin gives it) -> token */
  bound: Map<string, string>;
  /** A token given without an origin. */
  bare: string | undefined;
}

const ORIGIN_FIRST = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Parses PAPO_SIGNAL_TOKEN; throws PapoError 'invalid_signal_token' (naming origins, never tokens). */
export function parseSignalTokens(value: string | undefined): SignalTokens {
  const bound = new Map<string, string>();
  let bare: string | undefined;
  const entries = (value ?? '').split(/[\s,]+/).filter((e) => e !== '');
  for (const entry of entries) {
    if (!ORIGIN_FIRST.test(entry)) {
      if (bare !== undefined) {
        throw tokenError({ problem: 'bare_twice' });
      }
      bare = entry;
      continue;
    }
    // An origin holds no "=", so the first one ends it.
    const eq = entry.indexOf('=');
    const originText = eq < 0 ? entry : entry.slice(0, eq);
    const token = eq < 0 ? '' : entry.slice(eq + 1);
    const origin = originOf(originText);
    if (token === '') throw tokenError({ problem: 'no_token', origin });
    if (!tokenMayTravel(origin)) throw tokenError({ problem: 'in_clear', origin });
    const before = bound.get(origin);
    if (before !== undefined && before !== token) {
      throw tokenError({ problem: 'two_tokens', origin });
    }
    bound.set(origin, token);
  }
  return { bound, bare };
}

/**
 * The token to send to `address` (the one the member uses: PAPO_SIGNAL, else the room's), or
 * undefined when none is bound to its origin: PAPO_SIGNAL_TOKEN's for that origin, else the one
 * the address carries. Throws PapoError 'invalid_signal_token' for a PAPO_SIGNAL_TOKEN that is
 * malformed, a bare token without PAPO_SIGNAL, or a token that would go over ws:// to another machine.
 */
export function signalTokenFor(address: SignalTarget | string, env: NodeJS.ProcessEnv): string | undefined {
  const signalUrl = typeof address === 'string' ? address : address.url;
  const carried = typeof address === 'string' ? undefined : address.token;
  const { bound, bare } = parseSignalTokens(env.PAPO_SIGNAL_TOKEN);
  const target = signalOrigin(signalUrl);
  if (bare !== undefined) {
    const pinned = env.PAPO_SIGNAL?.trim() ?? '';
    if (pinned === '') {
      throw tokenError({ problem: 'bare_unbound', origin: target, inClear: !tokenMayTravel(target) });
    }
    let origin: string;
    try {
      origin = signalOrigin(pinned);
    } catch {
      return undefined; // PAPO_SIGNAL itself is invalid: effectiveSignalUrl reports that
    }
    if (!tokenMayTravel(origin)) throw tokenError({ problem: 'in_clear', origin });
    if (!bound.has(origin)) bound.set(origin, bare);
  }
  const fromEnv = bound.get(target);
  if (fromEnv !== undefined) return fromEnv;
  // parseSignalAddress refused a token that would travel in clear; checked again where it is sent.
  return carried !== undefined && tokenMayTravel(signalUrl) ? carried : undefined;
}

function originOf(text: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(text);
  } catch {
    parsed = undefined;
  }
  const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  const usable =
    parsed !== undefined &&
    ['ws:', 'wss:', 'http:', 'https:'].includes(parsed.protocol) &&
    parsed.hostname !== '' &&
    parsed.username === '' &&
    parsed.password === '' &&
    (parsed.pathname === '' || parsed.pathname === '/') &&
    parsed.search === '' &&
    parsed.hash === '';
  if (!usable || parsed === undefined) throw tokenError({ problem: 'not_origin', shown });
  return signalOrigin(parsed.toString());
}

function tokenError(detail: SignalTokenProblem): PapoError<'invalid_signal_token'> {
  return new PapoError('invalid_signal_token', signalTokenMessage(detail), { detail });
}

/** The English text of a PAPO_SIGNAL_TOKEN problem (the CLI renders other languages from the same data). */
export function signalTokenMessage(p: SignalTokenProblem): string {
  switch (p.problem) {
    case 'bare_twice':
      return 'PAPO_SIGNAL_TOKEN holds more than one token without a server: write each as ORIGIN=TOKEN (e.g. wss://signal.example.com=TOKEN)';
    case 'no_token':
      return `PAPO_SIGNAL_TOKEN names ${p.origin} without a token: write ${p.origin}=TOKEN`;
    case 'two_tokens':
      return `PAPO_SIGNAL_TOKEN gives ${p.origin} two different tokens`;
    case 'in_clear':
      return `PAPO_SIGNAL_TOKEN binds a token to ${p.origin}: over ws:// to another machine it would travel in clear, so papo never sends it. Put TLS in front of the signal server and use wss:// (docs/signal-server.md)`;
    case 'bare_unbound': {
      const head =
        'PAPO_SIGNAL_TOKEN is a token without a server, and papo sends a token only to the server it is bound to';
      return p.inClear
        ? `${head}; this room's server, ${p.origin}, is plain ws:// on another machine, where a token is never sent: put TLS in front of it, then write PAPO_SIGNAL_TOKEN=wss://HOST=TOKEN`
        : `${head}; for this room's server write PAPO_SIGNAL_TOKEN=${p.origin}=TOKEN`;
    }
    case 'not_origin':
      return `PAPO_SIGNAL_TOKEN names ${p.shown}, which is not a server's origin: write ORIGIN=TOKEN with ORIGIN like wss://signal.example.com or wss://signal.example.com:8443 (no path)`;
  }
}
