// Where a room's members meet (docs/files.md, "The profile on disk"; docs/architecture.md, "The
// local signal server"). The room carries its
// signal URL; PAPO_SIGNAL overrides it; with neither, the embedded local server on this machine.
import { PapoError } from '../errors.js';

export const DEFAULT_SIGNAL_PORT = 7450;
export const DEFAULT_SIGNAL_URL = `ws://127.0.0.1:${DEFAULT_SIGNAL_PORT}`;
/** The invite carries the URL in at most 255 UTF-8 bytes. */
export const MAX_SIGNAL_URL_BYTES = 255;

const SCHEMES = new Set(['ws:', 'wss:', 'http:', 'https:']);

export type SignalUrlSource = 'PAPO_SIGNAL' | '--signal' | 'invite';

/** Returns the URL normalised (no trailing "/" on an empty path), or throws invalid_signal_url. */
export function parseSignalUrl(text: string, source: SignalUrlSource): string {
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
    url.password === '' &&
    url.hash === '';
  if (!valid || url === undefined) {
    throw new PapoError('invalid_signal_url', invalidMessage(source), { detail: { source } });
  }
  // An empty query or fragment ("ws://h?", "ws://h#") serialises as a bare "?" or "#": drop them,
  // so that the slice below takes the path's "/" and parsing the result again gives the same URL
  // (the fuzz run found "ws://h#" normalised to "ws://h/", issue 13).
  if (url.search === '') url.search = '';
  url.hash = '';
  let normalised = url.toString();
  if (url.pathname === '/' && url.search === '') normalised = normalised.slice(0, -1);
  if (new TextEncoder().encode(normalised).length > MAX_SIGNAL_URL_BYTES) {
    throw new PapoError('invalid_signal_url', `${invalidMessage(source)} (longer than 255 bytes)`, {
      detail: { source },
    });
  }
  return normalised;
}

function invalidMessage(source: SignalUrlSource): string {
  if (source === 'PAPO_SIGNAL') return 'PAPO_SIGNAL is not a valid URL';
  if (source === '--signal') {
    return '--signal is not a valid URL (use ws://, wss://, http:// or https://, e.g. wss://signal.example.com)';
  }
  return 'this invite carries no usable signal URL';
}

/**
 * The URL a member uses: PAPO_SIGNAL when set and not empty (an empty value means "not set"),
 * else the one the room carries, else the local default.
 */
export function effectiveSignalUrl(profileUrl: string | undefined, env: NodeJS.ProcessEnv): string {
  const fromEnv = env.PAPO_SIGNAL;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return parseSignalUrl(fromEnv, 'PAPO_SIGNAL');
  if (profileUrl !== undefined && profileUrl !== '') return profileUrl;
  return DEFAULT_SIGNAL_URL;
}

/** True when the URL points at this machine: such a room can start the embedded server. */
export function isLoopbackSignalUrl(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host.startsWith('127.');
}
