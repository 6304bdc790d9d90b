// Where a room's members meet (docs/files.md, "The profile on disk"; docs/architecture.md, "The
// local signal server"). The room carries its
// signal URL; PAPO_SIGNAL overrides it; with neither, the embedded local server on this machine.
import { PapoError, type SignalFragmentProblem } from '../errors.js';
import { isLoopbackHost } from '../hosts.js';
import { BASE64URL, radixDecode } from './radix.js';

export const DEFAULT_SIGNAL_PORT = 7450;
export const DEFAULT_SIGNAL_URL = `ws://127.0.0.1:${DEFAULT_SIGNAL_PORT}`;
/** The invite carries the URL in at most 255 UTF-8 bytes. */
export const MAX_SIGNAL_URL_BYTES = 255;

const SCHEMES = new Set(['ws:', 'wss:', 'http:', 'https:']);

export type SignalUrlSource = 'PAPO_SIGNAL' | '--signal' | 'invite';

/**
 * A signal address split (ADR 0089): the URL a member dials and shows, and what the fragment
 * carried for that server — the pin of its certificate's key (`certificatePin`, signal-protocol.ts)
 * and its token. No HTTP request sends a fragment, so the address can travel in an invite whole
 * while neither the pin nor the token ever reaches a server or a log through the URL.
 */
export interface SignalAddress {
  /** Normalised, without the fragment: what is dialled, shown and matched as an origin. */
  url: string;
  /** `sha256/` + base64url of the SHA-256 of the server's SubjectPublicKeyInfo. */
  pin?: string;
  /** The bearer token of that server: sent to its origin only (signal-token.ts). */
  token?: string;
}

/** `sha256/` and 43 base64url characters: 32 bytes without padding. */
const PIN_SHAPE = /^sha256\/[A-Za-z0-9_-]{43}$/;
/** A token as a fragment carries it without percent-encoding (and as a Bearer header can). */
const TOKEN_SHAPE = /^[A-Za-z0-9._~+/=-]{1,128}$/;

/** Parses a signal address; throws PapoError 'invalid_signal_url' (which never repeats a token). */
export function parseSignalAddress(text: string, source: SignalUrlSource): SignalAddress {
  const trimmed = text.trim();
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    url = undefined;
  }
  const valid =
    url !== undefined &&
    SCHEMES.has(url.protocol) &&
    url.hostname !== '' &&
    url.username === '' &&
    url.password === '';
  if (!valid || url === undefined) {
    throw new PapoError('invalid_signal_url', invalidMessage(source), { detail: { source } });
  }
  const extra = parseFragment(url.hash, source);
  const tls = url.protocol === 'wss:' || url.protocol === 'https:';
  if (extra.pin !== undefined && !tls) {
    throw fragmentError(source, { problem: 'pin_without_tls', scheme: url.protocol });
  }
  if (extra.token !== undefined && !tls && !isLoopbackHost(url.hostname)) {
    throw fragmentError(source, { problem: 'token_in_clear', scheme: url.protocol });
  }
  // An empty query or fragment ("ws://h?", "ws://h#") serialises as a bare "?" or "#": drop them,
  // so that the slice below takes the path's "/" and parsing the result again gives the same URL
  // (the fuzz run found "ws://h#" normalised to "ws://h/", issue 13).
  if (url.search === '') url.search = '';
  url.hash = '';
  let normalised = url.toString();
  if (url.pathname === '/' && url.search === '') normalised = normalised.slice(0, -1);
  const address: SignalAddress = { url: normalised, ...extra };
  if (new TextEncoder().encode(formatSignalAddress(address)).length > MAX_SIGNAL_URL_BYTES) {
    throw new PapoError('invalid_signal_url', `${invalidMessage(source)} (longer than 255 bytes)`, {
      detail: { source },
    });
  }
  return address;
}

/**
 * The address as one text: the URL, then `#pin=…&token=…` when it carries either (that order).
 * A URL whose path is empty gets the "/" before the fragment, as a URL's serialisation has it.
 */
export function formatSignalAddress(address: SignalAddress): string {
  const parts: string[] = [];
  if (address.pin !== undefined) parts.push(`pin=${address.pin}`);
  if (address.token !== undefined) parts.push(`token=${address.token}`);
  if (parts.length === 0) return address.url;
  const u = new URL(address.url);
  const slash = u.pathname === '/' && u.search === '' && !address.url.endsWith('/');
  return `${address.url}${slash ? '/' : ''}#${parts.join('&')}`;
}

/** Returns the address normalised (no trailing "/" on an empty path), or throws invalid_signal_url. */
export function parseSignalUrl(text: string, source: SignalUrlSource): string {
  return formatSignalAddress(parseSignalAddress(text, source));
}

/**
 * The URL of an address already parsed (a profile's, an invite's), fit to show and to dial: the
 * fragment, which may carry the pin and the token, taken off.
 */
export function signalUrlOf(address: string): string {
  const hash = address.indexOf('#');
  if (hash < 0) return address;
  const url = address.slice(0, hash);
  const u = new URL(url);
  return u.pathname === '/' && u.search === '' && url.endsWith('/') ? url.slice(0, -1) : url;
}

function parseFragment(hash: string, source: SignalUrlSource): { pin?: string; token?: string } {
  if (hash === '' || hash === '#') return {};
  const out: { pin?: string; token?: string } = {};
  for (const part of hash.slice(1).split('&')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    if (key === 'pin') {
      if (out.pin !== undefined) throw fragmentError(source, { problem: 'two_pins' });
      if (!PIN_SHAPE.test(value) || !canonicalBase64url(value.slice('sha256/'.length)))
        throw fragmentError(source, { problem: 'pin_shape' });
      out.pin = value;
    } else if (key === 'token') {
      if (out.token !== undefined) throw fragmentError(source, { problem: 'two_tokens' });
      if (!TOKEN_SHAPE.test(value)) throw fragmentError(source, { problem: 'token_shape' });
      out.token = value;
    } else {
      // Only the name, cut short: an unknown part might be someone's secret.
      throw fragmentError(source, {
        problem: 'unknown_part',
        name: key.slice(0, 12).replace(/[^A-Za-z0-9_-]/g, '?'),
      });
    }
  }
  return out;
}

function fragmentError(
  source: SignalUrlSource,
  fragment: SignalFragmentProblem,
): PapoError<'invalid_signal_url'> {
  return new PapoError('invalid_signal_url', signalFragmentMessage(source, fragment), {
    detail: { source, fragment },
  });
}

/**
 * The English text of a refused fragment (the CLI renders other languages from the same data);
 * it repeats no token.
 */
export function signalFragmentMessage(source: SignalUrlSource, p: SignalFragmentProblem): string {
  const who = sourceName(source);
  let why: string;
  switch (p.problem) {
    case 'pin_without_tls':
      return `${who} carries a certificate pin on a ${p.scheme}// URL: a pin is for wss:// or https://`;
    case 'token_in_clear':
      return `${who} carries a token for a ${p.scheme}// server on another machine: it would travel in clear, so papo never sends it (use wss://)`;
    case 'two_pins':
      why = 'two pins';
      break;
    case 'two_tokens':
      why = 'two tokens';
      break;
    case 'pin_shape':
      why = 'the pin is not sha256/ and 43 base64url characters';
      break;
    case 'token_shape':
      why = 'the token must be 1 to 128 letters, digits or - . _ ~ + / =';
      break;
    case 'unknown_part':
      why = `an unknown part${p.name === '' ? '' : ` "${p.name}"`}`;
      break;
  }
  return `${who} has a fragment papo cannot read (${why}); a signal address may end in #pin=sha256/…&token=… and nothing else`;
}

/** True when the text is the one base64url encoding of its 32 bytes (no stray bits). */
function canonicalBase64url(text: string): boolean {
  return radixDecode(BASE64URL, text)?.length === 32;
}

function sourceName(source: SignalUrlSource): string {
  return source === 'invite' ? "this invite's signal address" : source;
}

function invalidMessage(source: SignalUrlSource): string {
  if (source === 'PAPO_SIGNAL') return 'PAPO_SIGNAL is not a valid URL';
  if (source === '--signal') {
    return '--signal is not a valid URL (use ws://, wss://, http:// or https://, e.g. wss://signal.example.com)';
  }
  return 'this invite carries no usable signal URL';
}

/**
 * The address a member uses: PAPO_SIGNAL when set and not empty (an empty value means "not set"),
 * else the one the room carries, else the local default. A pin or token travels with its own URL
 * only: PAPO_SIGNAL set to another server drops the room's.
 */
export function effectiveSignalAddress(
  profileUrl: string | undefined,
  env: NodeJS.ProcessEnv,
): SignalAddress {
  const fromEnv = env.PAPO_SIGNAL;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return parseSignalAddress(fromEnv, 'PAPO_SIGNAL');
  if (profileUrl !== undefined && profileUrl !== '') return parseSignalAddress(profileUrl, 'invite');
  return { url: DEFAULT_SIGNAL_URL };
}

/** The URL (without the fragment) of the address a member uses: see effectiveSignalAddress. */
export function effectiveSignalUrl(profileUrl: string | undefined, env: NodeJS.ProcessEnv): string {
  return effectiveSignalAddress(profileUrl, env).url;
}

/** True when the URL points at this machine: such a room can start the embedded server. */
export function isLoopbackSignalUrl(url: string): boolean {
  return isLoopbackHost(new URL(url).hostname);
}
