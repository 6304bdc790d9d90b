// papo doctor's checks (ADR 0072): what it measures (the facts, language-free), the rule that says
// whether the room can work from here, and the checklist a person or a script reads.
import { PapoError } from '../client/errors.js';
import { bareHost } from '../client/hosts.js';
import { type IceConfig, type IcePolicy, parseIceUrl, resolveIceConfig } from '../client/net/ice-config.js';
import { probeSignal, type SignalProbe } from '../client/net/signal-probe.js';
import { signalOrigin, signalTokenFor, tokenMayTravel } from '../client/net/signal-token.js';
import {
  type AllocationResult,
  type BindingResult,
  mappingBehaviour,
  probeTurn,
  type StunDestination,
  stunMappings,
  turnPinFor,
  turnTransportOf,
} from '../client/net/turn-probe.js';
import { askStatus } from '../client/person/handed-say.js';
import { openProfile } from '../client/store/profile-store.js';
import { shortId } from '../client/wire/identity.js';
import { deriveRoomKeys } from '../client/wire/room-crypto.js';
import {
  effectiveSignalAddress,
  isLoopbackSignalUrl,
  type SignalAddress,
} from '../client/wire/signal-url.js';
import type { IceServer } from '../signal-protocol.js';
import { type DoctorTexts, doctorTexts } from './doctor-texts.js';
import { errorText, type Lang, messages } from './i18n.js';
import { CLIENT_IDS, type Registration } from './install/agent-client.js';
import { CLIENTS, findExecutable } from './install/clients.js';
import { networkProblemsOf } from './network-notes.js';
import { judgeNode, NODE_MINIMUM_TEXT, NODE_TESTED_MAJORS } from './node-support.js';
import { pushLine } from './push-line.js';
import { RELAY_PORTS } from './signal-public/coturn.js';
import type { OpenPort } from './signal-public/public-signal.js';

/** Bounds of each check, in ms. */
export const DOCTOR_TIMEOUTS = { signal: 5000, stun: 3000, turn: 5000, client: 10_000 } as const;

/** Variables that turn Claude Code's channels off without a word (measured with Claude Code 2.1.197). */
export const CHANNEL_KILLERS = [
  'DISABLE_TELEMETRY',
  'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC',
  'DO_NOT_TRACK',
];

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface Check {
  /**
   * Stable for scripts: node, profile, signal, token, scope, ice, policy, stun, nat, turn, path,
   * room (only while the profile's papo mcp runs), client, channels.
   */
  id: string;
  status: CheckStatus;
  /** The column a person reads first ("signal", "TURN"...), in their language. */
  label: string;
  /** One line, in the person's language. */
  text: string;
  /** One line: what to do about a failure (or a warning). */
  fix?: string;
  /**
   * What was measured, for scripts; never a secret. On stun, turn and path checks whose fix comes
   * from diagnoseTurn, `cause` says which: 'server-turn-closed' (the signal server's host answers,
   * its TURN server does not: its operator opens the ports) or 'udp-blocked' (only TURN over TCP or
   * TLS answers: a note, the room works).
   */
  data?: Record<string, unknown>;
}

export interface DoctorFacts {
  profile:
    | { ok: true; profile: string; name: string; roomId: string; nodeId: string }
    | { ok: false; profile: string; code: string; message: string };
  /** The signal URL the member uses (PAPO_SIGNAL, else the room's), fit to show. */
  signalUrl?: string;
  /** The URL itself (for the origin in a fix); shown only through `signalUrl`. */
  rawSignalUrl?: string;
  loopback?: boolean;
  /** PAPO_SIGNAL_TOKEN cannot be used for this server: its error, in the person's language. */
  tokenProblem?: string;
  tokenSent: boolean;
  signal?: SignalProbe;
  policy: IcePolicy | { invalid: string };
  ice?: { ok: true; config: IceConfig } | { ok: false; message: string };
  stun: BindingResult[];
  turn: AllocationResult[];
  clients: { id: string; label: string; registration: Registration | null }[];
  channelsOff: string[];
  /** CLAUDE_CODE_HARBOR_KITE's value when it turns Claude Code's session messages off. */
  sessionOff?: string;
  /**
   * The room as the profile's running papo mcp sees it now (asked over member.sock, ADR 0103):
   * the members online to it, and what keeps its room from working, in the lines `papo status`
   * prints (network-notes.ts). Absent when no papo mcp runs for the profile.
   */
  room?: {
    online: string[];
    problems: string[];
    /** How room messages reach the agent in that session (ADR 0118), when its papo mcp says. */
    push?: { line: string; pushing: boolean; route: string };
  };
  /** The Node papo runs on (process.version, process.platform and arch) and today's date (UTC). */
  node: { version: string; platform: string; today: string };
  ms: number;
}

export interface DoctorReport {
  ok: boolean;
  profile: string;
  ms: number;
  checks: Check[];
  summary: Record<CheckStatus, number>;
}

/** The signal URL without a `token` query parameter or user info (never shown). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    // The fragment may carry the pin and the token (ADR 0089).
    u.hash = '';
    for (const key of [...u.searchParams.keys()])
      if (/token|secret|key|auth/i.test(key)) u.searchParams.set(key, '***');
    const text = u.toString();
    return u.pathname === '/' && u.search === '' ? text.replace(/\/$/, '') : text;
  } catch {
    return '(not a URL)';
  }
}

/**
 * CLAUDE_CODE_HARBOR_KITE when it turns Claude Code's session messages off, so that papo gets no
 * messaging socket (ADR 0118; `0` measured with Claude Code 2.1.332, the other false words read as
 * Claude Code reads its boolean variables); undefined otherwise. The variables of CHANNEL_KILLERS do
 * not turn them off (measured).
 */
export function sessionMessagesOff(env: NodeJS.ProcessEnv): string | undefined {
  const value = (env.CLAUDE_CODE_HARBOR_KITE ?? '').trim();
  return /^(0|false|no|off)$/i.test(value) ? value : undefined;
}

/** The variables of CHANNEL_KILLERS set to something (Claude Code reads any non-empty value). */
export function channelsOff(env: NodeJS.ProcessEnv): string[] {
  return CHANNEL_KILLERS.filter((name) => (env[name] ?? '').trim() !== '');
}

function urlsOf(servers: readonly IceServer[]): string[] {
  return servers.flatMap((s) => (typeof s.urls === 'string' ? [s.urls] : s.urls));
}

/**
 * Where Binding requests go: every stun: URL and every TURN server over UDP (a TURN server answers
 * Binding too, and papo's agent asks it: ADR 0058), each host:port once.
 */
export function stunDestinations(servers: readonly IceServer[]): StunDestination[] {
  const out = new Map<string, StunDestination>();
  for (const url of urlsOf(servers)) {
    const parsed = parseIceUrl(url);
    if (typeof parsed === 'string') continue;
    if (parsed.scheme === 'turns' || (parsed.scheme === 'turn' && parsed.transport === 'tcp')) continue;
    const key = `${parsed.host}:${parsed.port}`;
    if (!out.has(key)) out.set(key, { url, host: parsed.host, port: parsed.port });
  }
  return [...out.values()];
}

/** Each TURN URL once, with the credentials of its server entry. */
export function turnTargets(
  servers: readonly IceServer[],
): { url: string; username: string | undefined; credential: string | undefined }[] {
  const seen = new Set<string>();
  const out: { url: string; username: string | undefined; credential: string | undefined }[] = [];
  for (const server of servers) {
    for (const url of urlsOf([server])) {
      if (turnTransportOf(url) === null || seen.has(url)) continue;
      seen.add(url);
      out.push({ url, username: server.username, credential: server.credential });
    }
  }
  return out;
}

export interface PathInputs {
  policy: IcePolicy;
  /** The room's signal server is on this machine: its members meet through host candidates. */
  loopback: boolean;
  stunAnswered: boolean;
  mapping: 'same' | 'varies' | 'unknown';
  turnWorked: boolean;
  /** A TURN server was given to ask (else a direct path is all there is). Default true. */
  turnOffered?: boolean;
}

export type PathVerdict =
  | { ok: true; via: 'relay' | 'this-machine' | 'direct' | 'direct-nat-unknown'; unsure?: true }
  | { ok: false; why: 'relay-without-turn' | 'symmetric-without-turn' | 'no-stun-without-turn' };

/**
 * Whether a link can be made from here (ADR 0072): with PAPO_ICE_POLICY=relay only through a TURN
 * allocation that worked; otherwise through one, or directly when the room meets on this machine
 * (host candidates), or when a STUN server answered and the mapping did not change per
 * destination (a symmetric NAT meets a colleague behind another NAT only through TURN).
 */
export function decidePath(i: PathInputs): PathVerdict {
  if (i.turnWorked) return { ok: true, via: 'relay' };
  if (i.policy === 'relay') return { ok: false, why: 'relay-without-turn' };
  if (i.loopback) return { ok: true, via: 'this-machine' };
  if (i.mapping === 'varies') return { ok: false, why: 'symmetric-without-turn' };
  if (!i.stunAnswered) return { ok: false, why: 'no-stun-without-turn' };
  if (i.mapping === 'same') return { ok: true, via: 'direct' };
  // A NAT papo could not judge, with no TURN to fall back on if it is symmetric: a warning.
  return {
    ok: true,
    via: 'direct-nat-unknown',
    ...(i.turnOffered === false ? { unsure: true as const } : {}),
  };
}

export interface TurnDiagnosisInputs {
  /** The signal server's host when it answered (so a TCP port of that host is reachable). */
  signalHost: string | undefined;
  stun: readonly BindingResult[];
  turn: readonly AllocationResult[];
}

/**
 * Whose fix a silent TURN server is (issue 40): the person's network, or the server's firewall.
 * - server-turn-closed: the signal server answered, and every TURN URL of that same host, over UDP
 *   and over TCP or TLS, got no answer: its TCP port works from here while its TURN ports do not,
 *   so its operator opens them (`ports`: the URLs' own, and coturn's relay range).
 * - udp-blocked: TURN over TCP or TLS allocated, while nothing answered over UDP (no STUN Binding,
 *   no TURN over UDP): links go through TURN over TCP and the room works; UDP seems blocked on this
 *   network (a server with its UDP ports closed looks the same from here).
 * - none: neither, and doctor says what it said before (no TURN, credentials refused...).
 * Hosts are compared as written in the URLs (`papo signal --public` writes the same address in
 * both), not after DNS.
 */
export type TurnDiagnosis =
  | { kind: 'server-turn-closed'; host: string; ports: OpenPort[] }
  | { kind: 'udp-blocked'; via: string }
  | { kind: 'none' };

/** A stun:/turn:/turns: URL's host as compared with the signal URL's: lower case, no brackets. */
function iceHostOf(url: string): string | undefined {
  const parsed = parseIceUrl(url);
  return typeof parsed === 'string' ? undefined : bareHost(parsed.host.toLowerCase());
}

function signalHostOf(url: string): string | undefined {
  try {
    return bareHost(new URL(url).hostname.toLowerCase());
  } catch {
    return undefined;
  }
}

export function diagnoseTurn(i: TurnDiagnosisInputs): TurnDiagnosis {
  const atHost = i.signalHost === undefined ? [] : i.turn.filter((r) => iceHostOf(r.url) === i.signalHost);
  if (
    i.signalHost !== undefined &&
    atHost.length > 0 &&
    atHost.every((r) => r.outcome === 'unreachable') &&
    atHost.some((r) => r.transport !== 'udp')
  ) {
    const ports: OpenPort[] = [];
    for (const r of atHost) {
      const parsed = parseIceUrl(r.url);
      if (typeof parsed === 'string') continue;
      const port: OpenPort = {
        port: String(parsed.port),
        protocol: r.transport === 'udp' ? 'udp' : 'tcp',
        use: r.transport === 'tls' ? 'turns' : 'turn',
      };
      if (!ports.some((p) => p.port === port.port && p.protocol === port.protocol)) ports.push(port);
    }
    // TURN over TCP and UDP first, then TLS, as papo signal --public lists them.
    ports.sort((a, b) => Number(a.use === 'turns') - Number(b.use === 'turns'));
    ports.push({ port: `${RELAY_PORTS.min}-${RELAY_PORTS.max}`, protocol: 'udp', use: 'relays' });
    return { kind: 'server-turn-closed', host: i.signalHost, ports };
  }
  const udpAsked = i.stun.length + i.turn.filter((r) => r.transport === 'udp').length;
  const udpAnswered =
    i.stun.some((r) => r.mapped !== undefined) ||
    i.turn.some((r) => r.transport === 'udp' && (r.outcome === 'allocated' || r.outcome === 'refused'));
  const overStream = i.turn.find((r) => r.transport !== 'udp' && r.outcome === 'allocated');
  if (udpAsked > 0 && !udpAnswered && overStream !== undefined)
    return { kind: 'udp-blocked', via: overStream.url };
  return { kind: 'none' };
}

/**
 * The ICE servers come with the signal server's welcome (no PAPO_ICE_SERVERS) and there was none:
 * STUN and TURN are not asked, since papo's defaults would only blame the network.
 */
function waitsOnWelcome(f: DoctorFacts): boolean {
  return (
    f.ice?.ok === true &&
    f.ice.config.source !== 'env' &&
    f.signal !== undefined &&
    f.signal.outcome !== 'welcome'
  );
}

export interface GatherOptions {
  home: string;
  profile: string;
  env: NodeJS.ProcessEnv;
  lang: Lang;
  cwd: string;
  /** Told what runs now, for a person at a terminal. */
  progress?: (what: 'signal' | 'network' | 'clients') => void;
}

/** Runs every check, each bounded in time, the independent ones at once. */
export async function gatherFacts(o: GatherOptions): Promise<DoctorFacts> {
  const started = Date.now();
  const { env } = o;
  const clientsDone = registrations(o);
  const policyText = env.PAPO_ICE_POLICY?.trim().toLowerCase() ?? '';
  const policy: DoctorFacts['policy'] =
    policyText === 'relay'
      ? 'relay'
      : policyText === '' || policyText === 'all'
        ? 'all'
        : { invalid: env.PAPO_ICE_POLICY ?? '' };
  const sessionOff = sessionMessagesOff(env);
  const facts: DoctorFacts = {
    profile: { ok: false, profile: o.profile, code: 'profile_missing', message: '' },
    tokenSent: false,
    policy,
    stun: [],
    turn: [],
    clients: [],
    channelsOff: channelsOff(env),
    ...(sessionOff !== undefined && { sessionOff }),
    node: {
      version: process.version,
      platform: `${process.platform} ${process.arch}`,
      today: new Date().toISOString().slice(0, 10),
    },
    ms: 0,
  };
  let nodeId: string | undefined;
  let address: SignalAddress | undefined;
  let roomDone: Promise<DoctorFacts['room']> = Promise.resolve(undefined);
  try {
    const p = await openProfile({ home: o.home, profile: o.profile });
    nodeId = p.identity.nodeId;
    facts.profile = {
      ok: true,
      profile: p.profile,
      name: p.name,
      roomId: deriveRoomKeys(p.secret).roomId,
      nodeId: shortId(p.identity.nodeId),
    };
    // The agent's own view (issue 40), asked while doctor probes the network from this terminal:
    // the agent's papo mcp may run with another environment, or see a colleague no path reaches.
    // It runs beside the probes, as the clients' do: a papo mcp slow to answer adds no time.
    roomDone = roomView(p.dir, o.lang);
    address = effectiveSignalAddress(p.signalUrl, env);
    const url = address.url;
    facts.rawSignalUrl = url;
    facts.signalUrl = displayUrl(url);
    facts.loopback = isLoopbackSignalUrl(url);
  } catch (err) {
    const code = err instanceof PapoError ? err.code : 'error';
    facts.profile = {
      ok: false,
      profile: o.profile,
      code,
      message: errorText(err, o.lang, { profile: o.profile }),
    };
  }
  let welcome: IceServer[] | undefined;
  if (facts.rawSignalUrl !== undefined) {
    o.progress?.('signal');
    let token: string | undefined;
    try {
      token = signalTokenFor(address ?? facts.rawSignalUrl, env);
    } catch (err) {
      facts.tokenProblem = errorText(err, o.lang);
    }
    facts.tokenSent = token !== undefined && tokenMayTravel(facts.rawSignalUrl);
    facts.signal = await probeSignal({
      url: facts.rawSignalUrl,
      token,
      peer: nodeId,
      pin: address?.pin,
      timeoutMs: DOCTOR_TIMEOUTS.signal,
    });
    if (facts.signal.outcome === 'welcome') welcome = facts.signal.iceServers;
  }
  try {
    facts.ice = { ok: true, config: resolveIceConfig({ env: { ...env, PAPO_ICE_POLICY: '' }, welcome }) };
  } catch (err) {
    facts.ice = { ok: false, message: errorText(err, o.lang) };
  }
  if (facts.ice.ok && facts.profile.ok && !waitsOnWelcome(facts)) {
    o.progress?.('network');
    const servers = facts.ice.config.servers;
    [facts.stun, facts.turn] = await Promise.all([
      stunMappings(stunDestinations(servers), DOCTOR_TIMEOUTS.stun),
      Promise.all(
        turnTargets(servers).map((x) =>
          probeTurn(
            x.url,
            x.username,
            x.credential,
            DOCTOR_TIMEOUTS.turn,
            address === undefined ? undefined : turnPinFor(address, x.url),
          ),
        ),
      ),
    ]);
  }
  o.progress?.('clients');
  facts.clients = await clientsDone;
  const room = await roomDone;
  if (room !== undefined) facts.room = room;
  facts.ms = Date.now() - started;
  return facts;
}

/**
 * How long doctor waits for the running papo mcp's view: a healthy one answers in milliseconds,
 * and a frozen one must not hold doctor's answer up for long.
 */
const ROOM_VIEW_MS = 2_000;

/** The room as the profile's running papo mcp sees it (member.sock); undefined when none answers. */
async function roomView(dir: string, lang: Lang): Promise<DoctorFacts['room']> {
  const view = await askStatus(dir, 0, ROOM_VIEW_MS).catch(() => undefined);
  if (view === undefined) return undefined;
  const push = view.push;
  return {
    online: view.members.filter((m) => m.online && m.node !== view.node).map((m) => m.name),
    problems: networkProblemsOf(messages(lang), view.network, view.members),
    ...(push !== undefined && {
      push: {
        line: pushLine(messages(lang), push),
        pushing: push.route !== 'none' && (push.route !== 'channel' || push.channelsAsked || push.proven),
        route: push.route,
      },
    }),
  };
}

/** Each agent CLI whose module can tell, and whose executable is on PATH. */
async function registrations(o: GatherOptions): Promise<DoctorFacts['clients']> {
  const asked = CLIENT_IDS.flatMap((id) => {
    const client = CLIENTS[id];
    const exe = findExecutable(client.executables, o.env);
    if (client.registration === undefined || exe === null) return [];
    return [{ client, ask: client.registration.bind(client) }];
  });
  return Promise.all(
    asked.map(async ({ client, ask }) => ({
      id: client.id,
      label: client.label,
      registration: await ask({ cwd: o.cwd, env: o.env, timeoutMs: DOCTOR_TIMEOUTS.client }).catch(
        () => null,
      ),
    })),
  );
}

/** A check before its label: the label of its id unless it names its own (each agent CLI). */
type Draft = Omit<Check, 'label'> & { label?: string };

/** The checklist, in the order a person reads it. */
export function checksFrom(f: DoctorFacts, lang: Lang): DoctorReport {
  const t = doctorTexts(lang);
  // What a fix adds to a papo command so that it runs on this profile.
  const suffix = f.profile.profile === 'default' ? '' : ` --profile ${f.profile.profile}`;
  const drafts: Draft[] = [
    nodeCheck(f, t),
    profileCheck(f, t, suffix),
    ...signalChecks(f, t, suffix),
    ...iceChecks(f, t),
    ...networkChecks(f, t),
    ...roomCheck(f, t),
    ...clientChecks(f, t, suffix),
  ];
  const checks: Check[] = drafts.map((c) => ({ ...c, label: c.label ?? t.label(c.id) }));
  const summary: Record<CheckStatus, number> = { ok: 0, warn: 0, fail: 0, skip: 0 };
  for (const c of checks) summary[c.status] += 1;
  return { ok: summary.fail === 0, profile: f.profile.profile, ms: f.ms, checks, summary };
}

/** The Node papo runs on: older than it supports, or past its end of life, is a warning (ADR 0111). */
function nodeCheck(f: DoctorFacts, t: DoctorTexts): Draft {
  const { version, platform, today } = f.node;
  const verdict = judgeNode(version, today);
  const data = { version, platform, ...verdict };
  if (verdict.kind === 'supported')
    return {
      id: 'node',
      status: 'ok',
      text: t.nodeOk(version, platform, verdict.endOfLife, verdict.tested ? undefined : NODE_TESTED_MAJORS),
      data,
    };
  return {
    id: 'node',
    status: 'warn',
    text:
      verdict.kind === 'too-old'
        ? t.nodeTooOld(version, NODE_MINIMUM_TEXT, verdict.endOfLife)
        : t.nodeEndOfLife(version, verdict.endOfLife),
    fix: t.nodeFix(NODE_TESTED_MAJORS),
    data,
  };
}

function profileCheck(f: DoctorFacts, t: DoctorTexts, suffix: string): Draft {
  if (f.profile.ok)
    return {
      id: 'profile',
      status: 'ok',
      text: t.profileOk(f.profile.profile, f.profile.name, f.profile.roomId),
      data: { profile: f.profile.profile, name: f.profile.name, roomId: f.profile.roomId },
    };
  return {
    id: 'profile',
    status: 'fail',
    text: f.profile.message,
    fix: t.profileFix(suffix),
    data: { profile: f.profile.profile, code: f.profile.code },
  };
}

/** The signal server, the token it wants, and who can reach it: none without a profile. */
function signalChecks(f: DoctorFacts, t: DoctorTexts, suffix: string): Draft[] {
  if (f.signalUrl === undefined || f.signal === undefined) return [];
  return [
    signalCheck(f, f.signalUrl, f.signal, t, suffix),
    tokenCheck(f, f.signal, t),
    f.loopback
      ? {
          id: 'scope',
          status: 'warn',
          text: t.scopeLoopback(f.signalUrl),
          fix: t.scopeFix(suffix),
          data: { loopback: true },
        }
      : { id: 'scope', status: 'ok', text: t.scopeShared, data: { loopback: false } },
  ];
}

function signalCheck(f: DoctorFacts, url: string, s: SignalProbe, t: DoctorTexts, suffix: string): Draft {
  const data = { url, outcome: s.outcome, ...('ms' in s ? { ms: s.ms } : {}) };
  if (s.outcome === 'welcome' || s.outcome === 'unauthorized')
    return { id: 'signal', status: 'ok', text: t.signalOk(url, s.ms), data };
  if (s.outcome === 'certificate')
    return {
      id: 'signal',
      status: 'fail',
      text: t.signalCertificate(url, s.problem),
      fix: t.signalCertificateFix(s.problem),
      data: { ...data, problem: s.problem, detail: s.detail },
    };
  if (s.outcome === 'pin_mismatch')
    return {
      id: 'signal',
      status: 'fail',
      text: t.signalPinMismatch(url),
      fix: t.signalPinMismatchFix,
      data: { ...data, detail: s.detail },
    };
  if (s.outcome === 'unreachable')
    return {
      id: 'signal',
      status: 'fail',
      text: t.signalUnreachable(url, s.detail),
      fix: f.loopback ? t.signalLocalFix(suffix) : t.signalFix,
      data: { ...data, detail: s.detail },
    };
  return {
    id: 'signal',
    status: 'fail',
    text: s.outcome === 'refused' ? t.signalRefused(url, s.detail) : t.signalNotPapo(url, s.detail),
    fix: s.outcome === 'refused' ? t.signalRefusedFix : t.signalNotPapoFix,
    data: { ...data, detail: s.detail },
  };
}

function tokenCheck(f: DoctorFacts, s: SignalProbe, t: DoctorTexts): Draft {
  if (f.tokenProblem !== undefined)
    return {
      id: 'token',
      status: 'fail',
      text: f.tokenProblem,
      fix: t.tokenInvalidFix,
      data: { outcome: 'invalid' },
    };
  if (s.outcome === 'welcome')
    return {
      id: 'token',
      status: 'ok',
      text: f.tokenSent ? t.tokenAccepted : t.tokenNotNeeded,
      data: { outcome: f.tokenSent ? 'accepted' : 'not_needed' },
    };
  if (s.outcome === 'unauthorized') {
    const origin = originOf(f.rawSignalUrl);
    const mayTravel = f.rawSignalUrl !== undefined && tokenMayTravel(f.rawSignalUrl);
    return {
      id: 'token',
      status: 'fail',
      text: f.tokenSent ? t.tokenRefused : t.tokenRequired,
      fix: f.tokenSent ? t.tokenRefusedFix(origin) : mayTravel ? t.tokenSetFix(origin) : t.tokenTlsFix,
      data: { outcome: f.tokenSent ? 'refused' : 'required' },
    };
  }
  return { id: 'token', status: 'skip', text: t.notChecked, data: { outcome: 'not_checked' } };
}

/** The ICE servers in use and PAPO_ICE_POLICY. */
function iceChecks(f: DoctorFacts, t: DoctorTexts): Draft[] {
  const checks: Draft[] = [];
  if (f.ice?.ok === true) {
    const servers = f.ice.config.servers.map((s) => ({
      urls: urlsOf([s]),
      credentials: s.username !== undefined && s.credential !== undefined,
    }));
    const list = servers.map((s) => s.urls.join(', ') + (s.credentials ? t.withCredentials : '')).join('; ');
    checks.push({
      id: 'ice',
      status: 'ok',
      text: t.iceServers(f.ice.config.source, list),
      data: { source: f.ice.config.source, servers },
    });
  } else if (f.ice !== undefined)
    checks.push({ id: 'ice', status: 'fail', text: f.ice.message, fix: t.iceFix, data: { valid: false } });
  checks.push(
    typeof f.policy === 'string'
      ? { id: 'policy', status: 'ok', text: t.policy(f.policy), data: { policy: f.policy } }
      : {
          id: 'policy',
          status: 'fail',
          text: t.policyInvalid(f.policy.invalid),
          fix: t.policyFix,
          data: { valid: false },
        },
  );
  return checks;
}

/**
 * STUN, the NAT's mapping, TURN, and the verdict on a path (decidePath): measured only with a
 * profile and valid ICE servers.
 */
/**
 * The room as the running papo mcp sees it: what it says fails here as it does in `papo status`,
 * so doctor never says the room can work while the agent's own view says it cannot (issue 40).
 */
function roomCheck(f: DoctorFacts, t: DoctorTexts): Draft[] {
  const room = f.room;
  if (room === undefined) return [];
  const data = { online: room.online, problems: room.problems.length };
  const checks: Draft[] =
    room.problems.length === 0
      ? [{ id: 'room', status: 'ok', text: t.roomOk(room.online), data }]
      : [{ id: 'room', status: 'fail', text: room.problems.join(' '), fix: t.roomFix, data }];
  // How messages reach the agent in the running session: its route, or pull only and why (ADR 0118).
  const push = room.push;
  if (push !== undefined)
    checks.push({
      id: 'push-now',
      status: push.pushing ? 'ok' : 'warn',
      text: push.line,
      ...(!push.pushing && { fix: t.pushFix }),
      data: { route: push.route, pushing: push.pushing },
    });
  return checks;
}

function networkChecks(f: DoctorFacts, t: DoctorTexts): Draft[] {
  if (!(f.ice?.ok === true && f.profile.ok)) return [];
  if (waitsOnWelcome(f))
    return [{ id: 'path', status: 'skip', text: t.networkNotChecked, data: { checked: false } }];
  const turnWorked = f.turn.some((r) => r.outcome === 'allocated');
  const answered = f.stun.filter((r) => r.mapped !== undefined);
  const mapping = mappingBehaviour(f.stun);
  const source = f.ice.config.source;
  const verdict = decidePath({
    policy: typeof f.policy === 'string' ? f.policy : 'all',
    loopback: f.loopback === true,
    stunAnswered: answered.length > 0,
    mapping: mapping.verdict,
    turnWorked,
    turnOffered: f.turn.length > 0,
  });
  const diagnosis = diagnoseTurn({
    signalHost:
      f.signal !== undefined && f.signal.outcome !== 'unreachable' && f.rawSignalUrl !== undefined
        ? signalHostOf(f.rawSignalUrl)
        : undefined,
    stun: f.stun,
    turn: f.turn,
  });
  // A signal server that hands out no TURN is named as such: its members behind a symmetric NAT, or
  // where UDP is blocked, cannot link (issue 26); between profiles of this machine none is needed.
  const fromServer = source !== 'env' && f.loopback !== true;
  const turn: Draft[] =
    f.turn.length > 0
      ? f.turn.map((r) => turnCheck(r, turnWorked, source, t, diagnosis))
      : fromServer
        ? [
            {
              id: 'turn',
              status: 'warn',
              text: t.turnNotHandedOut(f.signalUrl ?? ''),
              fix: t.turnNotHandedOutFix,
              data: { configured: false, source },
            },
          ]
        : [{ id: 'turn', status: 'skip', text: t.turnNone, data: { configured: false } }];
  const closed = diagnosis.kind === 'server-turn-closed' ? diagnosis : undefined;
  return [
    stunCheck(f, answered, t, diagnosis),
    natCheck(mapping, answered, t),
    ...turn,
    verdict.ok && verdict.unsure
      ? {
          id: 'path',
          status: 'warn',
          text: t.pathUnsure,
          fix: t.pathFix('symmetric-without-turn'),
          data: { ok: true, via: 'direct-nat-unknown' },
        }
      : verdict.ok
        ? { id: 'path', status: 'ok', text: t.pathOk(verdict.via), data: { ok: true, via: verdict.via } }
        : {
            id: 'path',
            status: 'fail',
            text: t.pathFail(verdict.why),
            // A TURN server that would make the path is there, only closed to this network.
            fix: closed ? t.turnPortsClosedFix(closed.host, closed.ports) : t.pathFix(verdict.why),
            data: { ok: false, why: verdict.why, ...(closed ? { cause: closed.kind } : {}) },
          },
  ];
}

function stunCheck(
  f: DoctorFacts,
  answered: readonly BindingResult[],
  t: DoctorTexts,
  diagnosis: TurnDiagnosis,
): Draft {
  if (f.stun.length === 0) return { id: 'stun', status: 'skip', text: t.stunNone, data: { results: [] } };
  const first = answered[0];
  if (first !== undefined)
    return {
      id: 'stun',
      status: 'ok',
      text: t.stunOk(first.mapped ?? '', first.url, first.ms ?? 0, answered.length, f.stun.length),
      data: { results: f.stun },
    };
  const detail = f.stun.map((r) => `${r.url}: ${r.error ?? '?'}`).join('; ');
  if (f.loopback)
    return { id: 'stun', status: 'skip', text: t.stunNotNeeded(detail), data: { results: f.stun } };
  // Not "UDP may be blocked here" when the silence has another reading (diagnoseTurn): every STUN
  // destination on the server whose TURN ports are closed, or TURN over TCP working.
  const closedHere =
    diagnosis.kind === 'server-turn-closed' && f.stun.every((r) => iceHostOf(r.url) === diagnosis.host);
  const fix =
    diagnosis.kind === 'server-turn-closed' && closedHere
      ? t.turnPortsClosedFix(diagnosis.host, diagnosis.ports)
      : diagnosis.kind === 'udp-blocked'
        ? t.udpBlockedNote(diagnosis.via)
        : t.stunFix;
  return {
    id: 'stun',
    status: 'warn',
    text: t.stunNoAnswer(detail),
    fix,
    data: {
      results: f.stun,
      ...(closedHere || diagnosis.kind === 'udp-blocked' ? { cause: diagnosis.kind } : {}),
    },
  };
}

function natCheck(
  mapping: ReturnType<typeof mappingBehaviour>,
  answered: readonly BindingResult[],
  t: DoctorTexts,
): Draft {
  const data = { mapping: mapping.verdict, destinations: mapping.destinations };
  if (mapping.verdict === 'same')
    return { id: 'nat', status: 'ok', text: t.natSame(mapping.destinations), data };
  if (mapping.verdict === 'varies')
    return {
      id: 'nat',
      status: 'warn',
      text: t.natVaries(answered.map((r) => `${r.destination} → ${r.mapped}`).join(', ')),
      fix: t.natFix,
      data,
    };
  return { id: 'nat', status: 'skip', text: t.natUnknown, data };
}

function turnCheck(
  r: AllocationResult,
  anyWorked: boolean,
  source: string,
  t: DoctorTexts,
  diagnosis: TurnDiagnosis,
): Check {
  const data: Record<string, unknown> = { ...r };
  const label = t.label('turn');
  const base = { id: 'turn', label, data };
  switch (r.outcome) {
    case 'allocated':
      return r.released
        ? { ...base, status: 'ok', text: t.turnAllocated(r.url, r.relayed ?? '?', r.ms ?? 0) }
        : {
            ...base,
            status: 'warn',
            text: t.turnNotReleased(r.url, r.relayed ?? '?', r.ms ?? 0),
            fix: t.turnNotReleasedFix,
          };
    case 'refused':
      return {
        ...base,
        status: 'fail',
        text: t.turnRefused(r.url, r.code ?? 0, r.detail ?? ''),
        fix: t.turnRefusedFix(r.code ?? 0, source),
      };
    case 'unsupported':
      return {
        ...base,
        status: 'warn',
        text: t.turnUnsupported(r.url, r.detail ?? ''),
        fix: t.turnUnsupportedFix,
      };
    default:
      if (r.outcome === 'unreachable') {
        const fix =
          diagnosis.kind === 'server-turn-closed' && iceHostOf(r.url) === diagnosis.host
            ? t.turnPortsClosedFix(diagnosis.host, diagnosis.ports)
            : diagnosis.kind === 'udp-blocked' && r.transport === 'udp'
              ? t.udpBlockedNote(diagnosis.via)
              : undefined;
        if (fix !== undefined)
          return {
            ...base,
            data: { ...data, cause: diagnosis.kind },
            status: anyWorked ? 'warn' : 'fail',
            text: t.turnUnreachable(r.url, r.detail ?? ''),
            fix,
          };
      }
      // A URL this network cannot reach is a failure only when no other TURN URL worked.
      return {
        ...base,
        status: anyWorked ? 'warn' : 'fail',
        text:
          r.outcome === 'untrusted'
            ? t.turnUntrusted(r.url, r.detail ?? '')
            : t.turnUnreachable(r.url, r.detail ?? ''),
        fix: r.outcome === 'untrusted' ? t.turnUntrustedFix : t.turnUnreachableFix(r.transport),
      };
  }
}

/** Each agent CLI's registration, and the variables that turn Claude Code's channels or session messages off. */
function clientChecks(f: DoctorFacts, t: DoctorTexts, suffix: string): Draft[] {
  const checks: Draft[] = f.clients.map((c) => {
    const r = c.registration;
    return {
      id: 'client',
      label: c.label,
      status: r?.registered === true ? 'ok' : 'warn',
      text:
        r === null ? t.clientUnknown(c.id) : r.registered ? t.clientRegistered(r.detail) : t.clientMissing,
      ...(r?.registered === true ? {} : { fix: t.clientFix(c.id, suffix) }),
      data: { client: c.id, registered: r?.registered ?? null, ...(r ? { detail: r.detail } : {}) },
    };
  });
  checks.push(
    f.channelsOff.length === 0
      ? { id: 'channels', status: 'ok', text: t.channelsOk, data: { variables: [] } }
      : {
          id: 'channels',
          status: 'warn',
          text: t.channelsOff(f.channelsOff),
          fix: t.channelsFix(f.channelsOff),
          data: { variables: f.channelsOff },
        },
  );
  checks.push(
    f.sessionOff === undefined
      ? { id: 'session', status: 'ok', text: t.sessionOk, data: { off: false } }
      : {
          id: 'session',
          status: 'warn',
          text: t.sessionOff(f.sessionOff),
          fix: t.sessionFix,
          data: { off: true, value: f.sessionOff },
        },
  );
  return checks;
}

function originOf(url: string | undefined): string {
  if (url === undefined) return '';
  try {
    return signalOrigin(url);
  } catch {
    return url;
  }
}
