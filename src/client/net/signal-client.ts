// The room member's connection to a signal server (docs/protocol.md, "Signal protocol v1").
// It joins the room's topic under our node id, tracks who else is there, and carries sealed blobs
// to and from them. The server is a stranger: every message from it is validated, nothing it sends
// can throw out of here, and what it forwards from peers is opened with the room's signal key (see
// signal-seal.ts) before anyone sees it.
//
// Any loss (close, error, a server that stops answering) is redialled after 1, 2, 4, 8, 10, 10... s,
// each stretched by up to half of itself at random (backoff.ts, ADR 0087); the delay goes back to
// 1 s once a join is answered with the peer list. See docs/transport.md.
//
// The server gives a peer id to the newest socket that joins as it (ADR 0021) and tells the older
// socket `left` for its own id. Anyone who knows the topic can do that to us, so on such a `left`
// we join again, after the same backoff (so two sockets fighting over one id cannot become a tight
// loop), and the backoff starts over only after a quiet minute (docs/security.md, finding 6).

import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import {
  type ClientMessage,
  type IceServer,
  PEER_PATTERN,
  SIGNAL_MAX_MESSAGE_BYTES,
  SIGNAL_PATH,
  type SignalErrorCode,
  TOPIC_PATTERN,
} from '../../signal-protocol.js';
import { messageOf, PapoError } from '../errors.js';
import { Backoff, type Random, SIGNAL_REDIAL, scheduleOf } from './backoff.js';
import type { SignalClientDropReason, SignalProblem, SignalProblemCode } from './health.js';
import { validateIceServers } from './ice-config.js';
import type { RoomMeeting } from './meeting.js';
import { SignalOpener, sealSignal } from './signal-seal.js';
import { tokenMayTravel } from './signal-token.js';
import { PIN_MISMATCH, pinnedConnection } from './tls-pin.js';

/** Without a welcome this long after the socket opens, the server is not speaking v1: redial. */
const WELCOME_TIMEOUT_MS = 10_000;
/** The server pings every 20 s; silence for this long means the connection is dead. */
const SILENCE_TIMEOUT_MS = 50_000;
/** Pushed off the topic again within this long of the last time: the rejoin backoff keeps growing. */
const DISPLACED_RESET_MS = 60_000;

/** Where to meet the room (meeting.ts), and how this client redials. */
export interface SignalClientOptions extends RoomMeeting {
  /** Redial delays in ms (tests shorten them); the last repeats. Default SIGNAL_REDIAL's. */
  backoffMs?: readonly number[];
  /** The jitter's randomness (tests fix it). */
  random?: Random;
}

/** The server's refusals that name their cause (docs/protocol.md, "Signal protocol v1"). */
const REFUSALS: ReadonlySet<string> = new Set(['unauthorized', 'rate_limited', 'room_full', 'topic_limit']);

export interface SignalClientEvents {
  /**
   * A welcome arrived (each (re)connection); the list may be empty. `notes` say why something is
   * missing (e.g. `turn_limited`: no TURN credentials for now); unknown notes are passed on too.
   */
  welcome: [iceServers: IceServer[], notes: string[]];
  /** The server answered our join with who else is on the topic (each (re)connection). */
  peers: [peers: string[]];
  joined: [peer: string];
  left: [peer: string];
  /** Another socket joined as our peer id and the server gave it our membership; we join again. */
  displaced: [info: { rejoinInMs: number }];
  /** An opened, checked blob from a peer. */
  signal: [from: string, payload: unknown];
  /** The connection is gone; a redial is scheduled in `retryInMs` unless closed. */
  disconnected: [info: { reason: string; retryInMs: number | undefined }];
  /** The server reported an error (e.g. unknown_peer for a peer that just left). */
  'server-error': [info: { code: SignalErrorCode | string; message: string }];
}

/** Maps the room's signal URL to the WebSocket URL of protocol v1. Throws PapoError 'invalid_signal_url'. */
export function signalSocketUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new PapoError('invalid_signal_url', `not a valid signal URL: ${url}`, {
      detail: { source: 'dialed' },
      cause,
    });
  }
  const scheme = { 'ws:': 'ws:', 'wss:': 'wss:', 'http:': 'ws:', 'https:': 'wss:' }[parsed.protocol];
  if (scheme === undefined) {
    throw new PapoError(
      'invalid_signal_url',
      `signal URL must be ws://, wss://, http:// or https://: ${url}`,
      { detail: { source: 'dialed' } },
    );
  }
  parsed.protocol = scheme;
  // A prefix (a reverse proxy mounting the server under /papo) is kept; /v1/ws is appended once.
  const base = parsed.pathname.replace(/\/+$/, '');
  parsed.pathname = base.endsWith(SIGNAL_PATH) ? base : `${base}${SIGNAL_PATH}`;
  parsed.hash = '';
  return parsed.toString();
}

export class SignalClient extends EventEmitter<SignalClientEvents> {
  readonly localId: string;
  readonly topic: string;
  readonly #socketUrl: string;
  readonly #key: Uint8Array;
  readonly #token: string | undefined;
  readonly #pin: string | undefined;
  /** Redials after a lost connection; reset once a join is answered. */
  readonly #redial: Backoff;
  /** Rejoins after being pushed off the topic; reset after a quiet minute. */
  readonly #rejoin: Backoff;
  readonly #opener: SignalOpener;
  #badServerMessages = 0;

  #ws: WebSocket | undefined;
  #redialTimer: NodeJS.Timeout | undefined;
  #rejoinTimer: NodeJS.Timeout | undefined;
  /** When we were last pushed off the topic. */
  #lastDisplaced = 0;
  #welcomeTimer: NodeJS.Timeout | undefined;
  #silenceTimer: NodeJS.Timeout | undefined;
  #started = false;
  #closed = false;
  #joined = false;
  /** A dialNow() came since the last answered join: the next ones wait for the backoff. */
  #dialedEarly = false;
  #iceServers: IceServer[] | undefined;
  readonly #peers = new Set<string>();
  #everJoined = false;
  #problem: SignalProblem | undefined;
  /** A refusal the server sent on this connection, which its close then explains. */
  #refusal: { code: SignalProblemCode; detail: string } | undefined;

  constructor(options: SignalClientOptions) {
    super();
    if (!TOPIC_PATTERN.test(options.topic)) throw new TypeError('topic must be 64 lower-case hex characters');
    if (!PEER_PATTERN.test(options.localId))
      throw new TypeError('local id must be 64 lower-case hex characters');
    this.#socketUrl = signalSocketUrl(options.url);
    this.topic = options.topic;
    this.localId = options.localId;
    this.#key = options.signalKey;
    this.#token = options.token === '' ? undefined : options.token;
    this.#pin = options.pin === '' ? undefined : options.pin;
    const schedule = scheduleOf(options.backoffMs, SIGNAL_REDIAL);
    this.#redial = new Backoff(schedule, options.random);
    this.#rejoin = new Backoff(schedule, options.random);
    this.#opener = new SignalOpener(options.signalKey, options.localId);
  }

  /** The WebSocket URL this client dials. */
  get socketUrl(): string {
    return this.#socketUrl;
  }

  /** True between the server's answer to our join and the loss of that connection. */
  get joined(): boolean {
    return this.#joined;
  }

  /** True once any connection of this client was answered with the peer list. */
  get everJoined(): boolean {
    return this.#everJoined;
  }

  /** Why the latest connection was lost or refused; undefined once a join is answered again. */
  get problem(): SignalProblem | undefined {
    return this.#problem;
  }

  /** ICE servers of the latest welcome, or undefined before the first one. */
  get iceServers(): IceServer[] | undefined {
    return this.#iceServers;
  }

  /** Other peers on the topic as the server last told us (empty while disconnected). */
  peers(): string[] {
    return [...this.#peers];
  }

  hasPeer(peer: string): boolean {
    return this.#peers.has(peer);
  }

  /** Drops by reason: sealed blobs that failed a check, and server messages that were not v1. */
  dropped(): Record<SignalClientDropReason, number> {
    return { ...this.#opener.dropped(), bad_server_message: this.#badServerMessages };
  }

  /** Starts dialling. Idempotent. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#dial();
  }

  /**
   * The server is known to be back (this machine's local signal server, just taken over by the
   * member's process): dial now instead of when the backoff says. Only while a redial is waiting,
   * and once until a join is answered again, so a port that accepts but is no papo server never
   * makes it dial in a loop.
   */
  dialNow(): void {
    if (this.#closed || this.#redialTimer === undefined || this.#dialedEarly) return;
    this.#dialedEarly = true;
    clearTimeout(this.#redialTimer);
    this.#redialTimer = undefined;
    this.#dial();
  }

  /**
   * Seals `payload` for `to` and sends it. Returns false when it could not be handed to the socket
   * (not joined, or too large); the caller's own retry logic covers that.
   */
  send(to: string, payload: unknown): boolean {
    const ws = this.#ws;
    if (!this.#joined || ws === undefined || ws.readyState !== WebSocket.OPEN) return false;
    const data = sealSignal(this.#key, this.localId, to, payload);
    return this.#write({ t: 'signal', topic: this.topic, to, data });
  }

  /** Leaves the topic and closes the connection for good. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#clearTimers();
    const ws = this.#ws;
    this.#ws = undefined;
    this.#joined = false;
    this.#peers.clear();
    if (ws === undefined) return;
    if (ws.readyState === WebSocket.OPEN) this.#write({ t: 'leave', topic: this.topic }, ws);
    await new Promise<void>((resolve) => {
      if (ws.readyState === WebSocket.CLOSED) return resolve();
      const timer = setTimeout(() => {
        ws.terminate();
        resolve();
      }, 1000);
      ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      // close() before the handshake finishes throws from within ws; terminate() does not.
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000, 'bye');
    });
  }

  #dial(): void {
    if (this.#closed) return;
    const headers: Record<string, string> = {};
    // Never in clear to another machine (ADR 0060); signalTokenFor refuses that already.
    if (this.#token !== undefined && tokenMayTravel(this.#socketUrl))
      headers.authorization = `Bearer ${this.#token}`;
    // `?peer=` lets the server tag the TURN credentials it mints with our short id (ADR 0023).
    const url = new URL(this.#socketUrl);
    url.searchParams.set('peer', this.localId);
    let ws: WebSocket;
    try {
      ws = new WebSocket(url.toString(), {
        headers,
        maxPayload: SIGNAL_MAX_MESSAGE_BYTES,
        handshakeTimeout: 10_000,
        ...pinnedSocket(url, this.#pin, 10_000),
      });
    } catch (err) {
      this.#lost(undefined, `cannot dial: ${messageOf(err)}`);
      return;
    }
    this.#ws = ws;
    let reason = 'closed';
    ws.on('open', () => {
      this.#welcomeTimer = setTimeout(() => {
        reason = 'no welcome';
        ws.terminate();
      }, WELCOME_TIMEOUT_MS);
      this.#heard(ws);
    });
    ws.on('ping', () => this.#heard(ws));
    ws.on('message', (raw, isBinary) => {
      this.#heard(ws);
      this.#onMessage(ws, raw, isBinary);
    });
    ws.on('unexpected-response', (_req, res) => {
      reason = `HTTP ${res.statusCode}`;
      ws.terminate();
    });
    ws.on('error', (err) => {
      // The key is not the pinned one: say exactly that, not "unreachable".
      if ((err as NodeJS.ErrnoException).code === PIN_MISMATCH && ws === this.#ws)
        this.#refusal = { code: 'pin_mismatch', detail: err.message };
      // Keep the first cause (an HTTP refusal says more than the terminate() that follows it).
      if (reason === 'closed') reason = err.message;
    });
    ws.on('close', (code) => this.#lost(ws, reason === 'closed' ? `closed (${code})` : reason));
  }

  /** Any traffic from the server proves it is alive; re-arm the silence watchdog. */
  #heard(ws: WebSocket): void {
    if (ws !== this.#ws) return;
    clearTimeout(this.#silenceTimer);
    this.#silenceTimer = setTimeout(() => ws.terminate(), SILENCE_TIMEOUT_MS);
  }

  #lost(ws: WebSocket | undefined, reason: string): void {
    if (ws !== undefined && ws !== this.#ws) return;
    this.#ws = undefined;
    this.#joined = false;
    this.#peers.clear();
    this.#clearTimers();
    if (this.#closed) return;
    this.#noteProblem(this.#refusal ?? classifyLoss(reason));
    this.#refusal = undefined;
    const delay = this.#redial.next();
    this.#redialTimer = setTimeout(() => this.#dial(), delay);
    this.emit('disconnected', { reason, retryInMs: delay });
  }

  /**
   * The server gave our membership to another socket (ADR 0021, newest wins): join again on this
   * socket, which makes it the newest, after a backoff that grows while it keeps happening.
   */
  #onDisplaced(ws: WebSocket): void {
    const now = Date.now();
    if (now - this.#lastDisplaced > DISPLACED_RESET_MS) this.#rejoin.reset();
    this.#lastDisplaced = now;
    const delay = this.#rejoin.next();
    this.#joined = false;
    clearTimeout(this.#rejoinTimer);
    this.#rejoinTimer = setTimeout(() => {
      this.#rejoinTimer = undefined;
      if (ws === this.#ws) this.#write({ t: 'join', topic: this.topic, peer: this.localId }, ws);
    }, delay);
    this.emit('displaced', { rejoinInMs: delay });
  }

  #noteProblem(problem: { code: SignalProblemCode; detail: string }): void {
    const since = this.#problem?.code === problem.code ? this.#problem.since : Date.now();
    this.#problem = { ...problem, since };
  }

  #clearTimers(): void {
    clearTimeout(this.#redialTimer);
    clearTimeout(this.#rejoinTimer);
    this.#rejoinTimer = undefined;
    clearTimeout(this.#welcomeTimer);
    clearTimeout(this.#silenceTimer);
    this.#redialTimer = undefined;
    this.#welcomeTimer = undefined;
    this.#silenceTimer = undefined;
  }

  #write(message: ClientMessage, ws: WebSocket | undefined = this.#ws): boolean {
    if (ws === undefined || ws.readyState !== WebSocket.OPEN) return false;
    const text = JSON.stringify(message);
    if (Buffer.byteLength(text) > SIGNAL_MAX_MESSAGE_BYTES) return false;
    ws.send(text);
    return true;
  }

  #onMessage(ws: WebSocket, raw: WebSocket.RawData, isBinary: boolean): void {
    if (!this.#accept(ws, raw, isBinary)) this.#badServerMessages += 1;
  }

  /** Handles one server message; false when it was not protocol v1 (counted, then ignored). */
  #accept(ws: WebSocket, raw: WebSocket.RawData, isBinary: boolean): boolean {
    if (ws !== this.#ws || isBinary) return false;
    const m = readServerMessage(raw.toString(), this.topic, this.localId);
    if (m === null) return false;
    switch (m.t) {
      case 'welcome': {
        clearTimeout(this.#welcomeTimer);
        this.#iceServers = m.iceServers;
        this.emit('welcome', m.iceServers, m.notes);
        this.#write({ t: 'join', topic: this.topic, peer: this.localId });
        return true;
      }
      case 'peers': {
        this.#peers.clear();
        for (const p of m.peers) this.#peers.add(p);
        // The join was answered: this connection is good, so the next loss redials after 1 s again.
        this.#joined = true;
        this.#everJoined = true;
        this.#dialedEarly = false;
        this.#problem = undefined;
        this.#refusal = undefined;
        this.#redial.reset();
        this.emit('peers', [...this.#peers]);
        return true;
      }
      case 'joined':
      case 'left': {
        if (m.peer === this.localId) {
          // Our own id left while this socket is open: another socket took it over.
          if (m.t === 'left') this.#onDisplaced(ws);
          return true;
        }
        if (m.t === 'joined') {
          this.#peers.add(m.peer);
          this.emit('joined', m.peer);
        } else if (this.#peers.delete(m.peer)) {
          this.emit('left', m.peer);
        }
        return true;
      }
      case 'signal': {
        const opened = this.#opener.open(m.data, m.from);
        if (opened.ok) this.emit('signal', opened.from, opened.payload);
        return true;
      }
      case 'error': {
        const { code, message } = m;
        if (REFUSALS.has(code) && !this.#joined) {
          // Refused before the join was answered: that is why we are not on the topic.
          const refusal = { code: code as SignalProblemCode, detail: message };
          this.#refusal = refusal;
          this.#noteProblem(refusal);
          // A room that is full (or a topic limit) leaves the socket open but useless: redial
          // with the backoff, so the member joins once there is room.
          if (code === 'room_full' || code === 'topic_limit') ws.terminate();
        }
        this.emit('server-error', { code, message });
        return true;
      }
    }
  }
}

/** A server message of protocol v1 as the member reads it (readServerMessage), checked. */
export type ServerMessage =
  | { t: 'welcome'; iceServers: IceServer[]; notes: string[] }
  /** Who else is on our topic: each a peer id, once, never our own. */
  | { t: 'peers'; peers: string[] }
  /** A peer id (possibly our own: see `left` for it in SignalClient). */
  | { t: 'joined' | 'left'; peer: string }
  /** A blob from `from` (a peer id), still sealed: SignalOpener opens and checks it. */
  | { t: 'signal'; from: string; data: unknown }
  /** `message` at most 200 characters; `code` 'unknown' when the server sent none. */
  | { t: 'error'; code: SignalErrorCode | string; message: string };

/**
 * Reads one text message of the signal server for the member on `topic` as `localId`: the checked
 * message, or null when it is not protocol v1 or not for this topic (the caller counts it and
 * ignores it). Never throws: the server is a stranger (fuzzed in tests/fuzz/parser-targets.ts).
 */
export function readServerMessage(text: string, topic: string, localId: string): ServerMessage | null {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof msg !== 'object' || msg === null) return null;
  const m = msg as Record<string, unknown>;
  switch (m.t) {
    case 'welcome': {
      const iceServers = validateIceServers(m.iceServers ?? []);
      if (iceServers === undefined) return null;
      return { t: 'welcome', iceServers, notes: welcomeNotes(m.notes) };
    }
    case 'peers': {
      if (m.topic !== topic || !Array.isArray(m.peers)) return null;
      const peers = new Set<string>();
      for (const p of m.peers)
        if (typeof p === 'string' && PEER_PATTERN.test(p) && p !== localId) peers.add(p);
      return { t: 'peers', peers: [...peers] };
    }
    case 'joined':
    case 'left': {
      const peer = m.peer;
      if (m.topic !== topic || typeof peer !== 'string' || !PEER_PATTERN.test(peer)) return null;
      return { t: m.t, peer };
    }
    case 'signal': {
      const from = m.from;
      if (m.topic !== topic || typeof from !== 'string' || !PEER_PATTERN.test(from)) return null;
      return { t: 'signal', from, data: m.data };
    }
    case 'error': {
      const code = typeof m.code === 'string' ? m.code : 'unknown';
      const message = typeof m.message === 'string' ? m.message.slice(0, 200) : '';
      return { t: 'error', code, message };
    }
    default:
      return null;
  }
}

/**
 * The `createConnection` option that checks the server's key against `pin` before the upgrade is
 * sent (tls-pin.ts), for a wss:// URL with a pin; no option otherwise (Node's own TLS checks).
 */
export function pinnedSocket(
  url: URL,
  pin: string | undefined,
  timeoutMs: number,
): { createConnection?: NonNullable<WebSocket.ClientOptions['createConnection']> } {
  if (pin === undefined || url.protocol !== 'wss:') return {};
  // http.request calls createConnection with a callback and waits for it when it returns nothing;
  // the ws types know only the synchronous form of net.createConnection.
  return {
    createConnection: pinnedConnection(pin, timeoutMs) as unknown as NonNullable<
      WebSocket.ClientOptions['createConnection']
    >,
  };
}

/** What a lost connection means when the server did not say (see SignalProblemCode). */
function classifyLoss(reason: string): { code: SignalProblemCode; detail: string } {
  if (/^HTTP (401|403)\b/.test(reason)) return { code: 'unauthorized', detail: reason };
  if (/^HTTP 429\b/.test(reason)) return { code: 'rate_limited', detail: reason };
  // A proxy in front of a server that is down answers 502-504: the server is what is unreachable.
  if (/^HTTP 5\d\d\b/.test(reason)) return { code: 'unreachable', detail: reason };
  // Some other HTTP answer, or a WebSocket that never says welcome: not a papo signal server v1.
  if (/^HTTP \d/.test(reason) || reason === 'no welcome') return { code: 'not_papo', detail: reason };
  return { code: 'unreachable', detail: reason };
}

/** The welcome's optional `notes`: short codes only (they may end up in a log). */
export function welcomeNotes(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((n): n is string => typeof n === 'string' && /^[a-z_]{1,40}$/.test(n)).slice(0, 8);
}
