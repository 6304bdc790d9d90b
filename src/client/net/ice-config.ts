// ICE configuration of the peer links: which STUN/TURN servers, and whether only relayed paths may
// be used. Precedence (docs/transport.md, "ICE configuration and precedence"): PAPO_ICE_SERVERS,
// else the signal server's welcome, else a plain STUN default. PAPO_ICE_POLICY=relay forces TURN
// only.
//
// node-datachannel's native config takes each server either as a URL string or as an object
// {hostname, port, username, password, relayType}. We always hand it the object form: TURN REST
// usernames are "<expiry>:<id>", and libdatachannel's string form parses "user:pass@host", so a
// colon in the username (or a '/', '+' or '=' in the base64 credential) would break it. See ADR 0030.

import type { IceServer as NativeIceServer, RtcConfig } from 'node-datachannel';
import type { IceServer } from '../../signal-protocol.js';
import { PapoError } from '../errors.js';

export type IcePolicy = 'all' | 'relay';
export type IceSource = 'env' | 'welcome' | 'default';

export interface IceConfig {
  /** W3C RTCIceServer entries, as configured. */
  servers: IceServer[];
  policy: IcePolicy;
  /** Where `servers` came from, for diagnostics. */
  source: IceSource;
}

export const DEFAULT_ICE_SERVERS: readonly IceServer[] = [{ urls: 'stun:stun.l.google.com:19302' }];

/** Parses the JSON of PAPO_ICE_SERVERS: an array of RTCIceServer. Throws PapoError 'invalid_ice_servers'. */
export function parseIceServers(text: string, what = 'PAPO_ICE_SERVERS'): IceServer[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new PapoError(
      'invalid_ice_servers',
      `${what} is not valid JSON (expected an array of ICE servers)`,
      {
        cause,
      },
    );
  }
  const servers = validateIceServers(value);
  if (servers === undefined) {
    throw new PapoError(
      'invalid_ice_servers',
      `${what} must be a JSON array of {"urls": string | string[], "username"?: string, "credential"?: string}`,
    );
  }
  return servers;
}

/** Returns the servers if `value` is an array of well-formed RTCIceServer objects, else undefined. */
export function validateIceServers(value: unknown): IceServer[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: IceServer[] = [];
  for (const entry of value) {
    if (typeof entry !== 'object' || entry === null) return undefined;
    const { urls, username, credential } = entry as Record<string, unknown>;
    const list = typeof urls === 'string' ? [urls] : urls;
    if (!Array.isArray(list) || list.length === 0 || !list.every((u) => typeof u === 'string'))
      return undefined;
    if (username !== undefined && typeof username !== 'string') return undefined;
    if (credential !== undefined && typeof credential !== 'string') return undefined;
    const server: IceServer = { urls: list as string[] };
    if (username !== undefined) server.username = username;
    if (credential !== undefined) server.credential = credential;
    out.push(server);
  }
  return out;
}

export interface ResolveIceOptions {
  /** Environment to read PAPO_ICE_SERVERS and PAPO_ICE_POLICY from. */
  env?: NodeJS.ProcessEnv;
  /** ICE servers of the signal server's latest welcome, if one arrived. */
  welcome?: readonly IceServer[] | undefined;
}

/** Applies the precedence env > welcome > default. Throws PapoError 'invalid_ice_servers'. */
export function resolveIceConfig(options: ResolveIceOptions = {}): IceConfig {
  const env = options.env ?? process.env;
  const policyText = env.PAPO_ICE_POLICY?.trim().toLowerCase() ?? '';
  if (policyText !== '' && policyText !== 'all' && policyText !== 'relay') {
    throw new PapoError('invalid_ice_servers', 'PAPO_ICE_POLICY must be "relay" or "all"');
  }
  const policy: IcePolicy = policyText === 'relay' ? 'relay' : 'all';
  const envText = env.PAPO_ICE_SERVERS?.trim() ?? '';
  if (envText !== '') return { servers: parseIceServers(envText), policy, source: 'env' };
  // An empty welcome list means the signal server has nothing to offer (no TURN configured).
  if (options.welcome !== undefined && options.welcome.length > 0) {
    return { servers: [...options.welcome], policy, source: 'welcome' };
  }
  return { servers: [...DEFAULT_ICE_SERVERS], policy, source: 'default' };
}

/**
 * Converts RTCIceServer entries to node-datachannel's object form. URLs it cannot express (stuns:,
 * TURN without credentials, unparseable) are skipped and reported through `onSkip`.
 */
export function toNativeIceServers(
  servers: readonly IceServer[],
  onSkip: (url: string, why: string) => void = () => {},
): NativeIceServer[] {
  const out: NativeIceServer[] = [];
  for (const server of servers) {
    const urls = typeof server.urls === 'string' ? [server.urls] : server.urls;
    for (const url of urls) {
      const parsed = parseIceUrl(url);
      if (typeof parsed === 'string') {
        onSkip(url, parsed);
        continue;
      }
      if (parsed.scheme === 'stun') {
        out.push({ hostname: parsed.host, port: parsed.port });
        continue;
      }
      if (server.username === undefined || server.credential === undefined) {
        onSkip(url, 'TURN needs a username and a credential');
        continue;
      }
      out.push({
        hostname: parsed.host,
        port: parsed.port,
        username: server.username,
        password: server.credential,
        relayType: parsed.scheme === 'turns' ? 'TurnTls' : parsed.transport === 'tcp' ? 'TurnTcp' : 'TurnUdp',
      });
    }
  }
  return out;
}

interface IceUrl {
  scheme: 'stun' | 'turn' | 'turns';
  host: string;
  port: number;
  transport: 'udp' | 'tcp' | undefined;
}

/** Parses an RFC 7064/7065 URL (`stun:host[:port]`, `turn[s]:host[:port][?transport=udp|tcp]`). */
export function parseIceUrl(url: string): IceUrl | string {
  // No white space or control character in a host (no URL's host holds one): a welcome's URL with a
  // newline there would otherwise reach the native config and `papo doctor`'s lines (found by the
  // fuzz run, issue 13).
  const match =
    /^(stuns?|turns?):(\[[^\]\s\p{Cc}]+\]|[^:?/[\]\s\p{Cc}]+)(?::(\d{1,5}))?(?:\?transport=(udp|tcp))?$/iu.exec(
      url.trim(),
    );
  if (match === null) return 'not a stun:, turn: or turns: URL';
  const scheme = (match[1] ?? '').toLowerCase();
  if (scheme === 'stuns') return 'stuns: is not supported by node-datachannel';
  const rawHost = match[2] ?? '';
  const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
  const port = match[3] === undefined ? (scheme === 'turns' ? 5349 : 3478) : Number(match[3]);
  if (port < 1 || port > 65535) return 'port out of range';
  const transport = match[4]?.toLowerCase() as 'udp' | 'tcp' | undefined;
  if (transport !== undefined && scheme === 'stun') return 'stun: takes no transport';
  return { scheme: scheme as IceUrl['scheme'], host, port, transport };
}

/** The native RtcConfig for one PeerConnection under `ice`. */
export function nativeRtcConfig(ice: IceConfig, onSkip?: (url: string, why: string) => void): RtcConfig {
  return {
    iceServers: toNativeIceServers(ice.servers, onSkip),
    iceTransportPolicy: ice.policy,
    // Sealed frames are at most 64 KiB; leave room so the limit is papo's, not SCTP's.
    maxMessageSize: 256 * 1024,
  };
}

/**
 * PAPO_RELAY is set: this papo does not read it (relays are PAPO_ICE_SERVERS; docs/transport.md,
 * "Network health").
 */
export function papoRelaySet(env: NodeJS.ProcessEnv): boolean {
  return (env.PAPO_RELAY ?? '').trim() !== '';
}
