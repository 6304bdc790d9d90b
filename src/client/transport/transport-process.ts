// The member's side of the transport process (ADR 0057): it starts transport-child.js, carries
// sealed frames to and from it, mirrors its links for the room node, and keeps it alive.
//
// Supervision: a ping every second, answered by the child's event loop. A child that has not
// answered for STALL_MS (the native WebRTC library froze it, ADR 0055, or someone stopped it) is
// ended with SIGKILL; a child that ends for any reason is started again, at once the first time
// and then after 1, 2, 5, 10, 30, 30... s while its starts keep ending within a minute (backoff.ts,
// TRANSPORT_RESTART). Its links
// are reported closed when it ends (the room node re-sends the outbox when they open again), and
// this process, which never loads node-datachannel, answers throughout. The TURN allocations a
// child made and had not given back when it was killed are given back from here (ADR 0058).
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { messageOf } from '../errors.js';
import { type Log, type LogTarget, toLog } from '../log.js';
import { delayOf, type Schedule, scheduleOf, TRANSPORT_RESTART } from '../net/backoff.js';
import type {
  LinkPath,
  NetworkHealth,
  SignalState,
  TransportEvents,
  TransportHealth,
  TransportState,
} from '../net/health.js';
import { releaseGrant, type TurnGrant } from '../net/turn-release.js';
import {
  adoptEarlyTransport,
  BAD_OPTION_EXIT,
  forkTransport,
  transportExecArgv,
  transportOptionsRefused,
} from './early-fork.js';
import type { MemberTransport } from './member-transport.js';
import type { FromTransport, ToTransport, WireMeeting } from './transport-wire.js';

export const HEARTBEAT_MS = 1000;
/** A transport silent this long is frozen: it is ended and started again. */
export const STALL_MS = 5000;
/** A transport that has not answered once yet gets longer (a loaded machine starts node slowly). */
const START_GRACE_MS = 15_000;
/** A transport that ran this long counts as healthy: the next restart is immediate again. */
const HEALTHY_RUN_MS = 60_000;
/** This many short-lived starts in a row is a crash loop, reported as failing. */
const FAILING_AFTER = 3;
/** How long close() waits for the transport to close its links and exit (it gives itself 4 s). */
const CLOSE_WAIT_MS = 6000;
/** How long `health()` waits for a pong: a healthy event loop answers in milliseconds. */
const PROBE_MS = 800;
/** TURN allocations kept for a child at most (its relays serve 256 agent sockets each at most). */
const MAX_GRANTS = 1024;

export interface TransportProcessOptions {
  init: WireMeeting;
  /** The transport's environment (ICE settings, PAPO_LOG); the room's keys never go here. */
  env: NodeJS.ProcessEnv;
  /** Diagnostics (PAPO_LOG). */
  log?: LogTarget;
  /** What a person should see on stderr whatever PAPO_LOG says: restarts. */
  warn?: LogTarget;
  /** Told of each restart (papo mcp records it for `papo status`). */
  onRestart?: (health: TransportHealth) => void;
  heartbeatMs?: number;
  stallMs?: number;
  /** Restart delays in ms for starts that keep ending; the last repeats. Default TRANSPORT_RESTART's. */
  backoffMs?: readonly number[];
  /** The child's script (default: TRANSPORT_ENTRY, the bundled transport-child.js beside this file). */
  entry?: string;
  /**
   * The child's node options (default: transportExecArgv(), lite mode as the running Node takes it).
   * Options the running Node refuses are dropped and the child started again at once without them.
   */
  execArgv?: readonly string[];
  /**
   * Whether close() waits for the transport to exit (default true). A command about to exit
   * (`papo say`, `papo mcp`) need not: the transport closes its links, gives its allocations
   * back and exits on its own once told, or once this process is gone.
   */
  waitOnClose?: boolean;
}

const NOT_JOINED: SignalState = { joined: false, everJoined: false, peers: [], dropped: {} };

export class TransportProcess extends EventEmitter<TransportEvents> implements MemberTransport {
  readonly signalUrl: string;
  readonly #options: TransportProcessOptions;
  readonly #log: Log;
  readonly #warn: Log;
  readonly #heartbeatMs: number;
  readonly #stallMs: number;
  readonly #backoff: Schedule;
  #child: ChildProcess | undefined;
  #state: TransportState = 'starting';
  /** Open links as the transport last said, with their path. */
  readonly #links = new Map<string, LinkPath | undefined>();
  #signal: SignalState = NOT_JOINED;
  /** The last frame sent and its base64 (the same frame goes to each neighbour). */
  #encoded: { data: Uint8Array; text: string } | undefined;
  readonly #signalState = new EventEmitter<{ change: [SignalState] }>();
  #everJoined = false;
  #restarts = 0;
  #lastRestart: { at: number; why: string } | undefined;
  /** Starts in a row that ended before HEALTHY_RUN_MS. */
  #shortRuns = 0;
  #startedAt = 0;
  #answered = false;
  #lastPong = 0;
  #ping = 0;
  readonly #probes = new Map<number, () => void>();
  #heartbeat: NodeJS.Timeout | undefined;
  #restartTimer: NodeJS.Timeout | undefined;
  #restartAt = 0;
  /** Why the current child is being ended, or what it said before dying. */
  #endReason: string | undefined;
  /** The current child's TURN allocations not given back yet, by relayed address. */
  readonly #grants = new Map<string, TurnGrant>();
  /** Give-backs of an ended child's allocations still under way (close waits for them). */
  #givingBack: Promise<void> = Promise.resolve();
  /** The frozen child's main thread as /proc showed it before it was ended (Linux). */
  #frozenThread: string | undefined;
  /** The running Node refused the child's options: it starts as plain node from now on. */
  #plain = false;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(options: TransportProcessOptions) {
    super();
    this.signalUrl = options.init.url;
    this.#options = options;
    this.#log = toLog(options.log);
    this.#warn = toLog(options.warn ?? ((line) => process.stderr.write(`${line}\n`)));
    this.#heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.#stallMs = options.stallMs ?? STALL_MS;
    this.#backoff = scheduleOf(options.backoffMs, TRANSPORT_RESTART);
  }

  /** Starts the transport and its supervision. Call once. */
  start(): void {
    if (this.#heartbeat !== undefined || this.#closed) return;
    this.#heartbeat = setInterval(() => this.#beat(), this.#heartbeatMs);
    this.#heartbeat.unref();
    this.#spawn();
  }

  /** The transport's process id while one runs (tests use it to freeze or kill it). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  // ---- NodeTransport ---------------------------------------------------------------------------

  send(peer: string, data: Uint8Array): boolean {
    if (!this.#links.has(peer) || this.#state === 'restarting') return false;
    // A frame goes to every neighbour in turn: encode it once.
    if (this.#encoded?.data !== data) {
      this.#encoded = {
        data,
        text: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'),
      };
    }
    return this.#tell({ t: 'send', peer, data: this.#encoded.text });
  }

  neighbours(): string[] {
    return [...this.#links.keys()];
  }

  path(peer: string): LinkPath | undefined {
    return this.#links.get(peer);
  }

  // ---- MemberTransport -------------------------------------------------------------------------

  signalState(): SignalState {
    return this.#signal;
  }

  onSignalState(listener: (state: SignalState) => void): () => void {
    this.#signalState.on('change', listener);
    return () => this.#signalState.off('change', listener);
  }

  signalServerBack(): void {
    this.#tell({ t: 'redial' });
  }

  async health(probeMs = PROBE_MS): Promise<NetworkHealth> {
    const child = this.#child;
    if (child !== undefined && (this.#state === 'running' || this.#state === 'unresponsive')) {
      const answered = await this.#probe(probeMs);
      if (!answered && this.#child === child && this.#state === 'running') this.#state = 'unresponsive';
    }
    return { signalUrl: this.signalUrl, signal: this.#signal, transport: this.#health() };
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#restartTimer);
    this.#state = 'closed';
    for (const resolve of this.#probes.values()) resolve();
    this.#probes.clear();
    // A child ended moments ago may still have allocations being given back from here.
    await this.#givingBack;
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // It closes its links (their TURN allocations are given back), leaves the topic and exits; if
    // this process exits first, the closed IPC channel tells it to do the same.
    this.#tell({ t: 'close' });
    if (this.#options.waitOnClose === false) {
      if (child.connected) child.disconnect();
      child.unref();
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), CLOSE_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }

  // ---- the child -------------------------------------------------------------------------------

  #spawn(): void {
    if (this.#closed) return;
    // Before the fork: a fork that throws counts as a start that did not last.
    this.#startedAt = Date.now();
    let child: ChildProcess;
    try {
      // The first start takes the child forked early for this member, if one waits (early-fork.ts).
      const early =
        this.#options.entry === undefined && this.#options.execArgv === undefined
          ? adoptEarlyTransport(this.#options.env)
          : undefined;
      child = early ?? forkTransport(this.#options.env, this.#options.entry, this.#execArgv());
    } catch (err) {
      this.#ended(undefined, `could not be started (${messageOf(err)})`);
      return;
    }
    this.#child = child;
    this.#state = 'starting';
    this.#answered = false;
    this.#lastPong = this.#startedAt;
    this.#endReason = undefined;
    child.on('message', (message: FromTransport) => {
      if (this.#child === child) this.#onMessage(message);
    });
    child.on('error', (err) => {
      // A child that could not be spawned emits no 'exit'.
      if (child.pid === undefined) this.#ended(child, `could not be started (${err.message})`);
      else this.#log(`transport process: ${err.message}`);
    });
    child.on('exit', (code, signal) => {
      // Code 0 is the child's own close, which gave its allocations back.
      if (child === this.#child && code !== 0) this.#giveBack();
      this.#grants.clear();
      // Node stopped at its own options before running a line (a Node newer than this code knew):
      // without them at once, rather than the crash loop that left members unlinked on Node 24.
      if (child === this.#child && code === BAD_OPTION_EXIT && !this.#answered && !this.#plain) {
        const refused = child.spawnargs.filter((arg) => arg.startsWith('--'));
        if (refused.length > 0) return this.#optionsRefused(child, refused);
      }
      this.#ended(child, signal !== null ? `was ended by ${signal}` : `exited with code ${code}`);
    });
    // The child and its channel keep this process alive: a command waiting for an ack (papo say)
    // has nothing else to hold its event loop. close() releases them.
    // Named one by one: nothing else of the member's (its frame key least of all) rides along.
    // `unnamed` is empty by its type, so a field added to the meeting fails to compile here.
    const { url, topic, localId, signalKey, token, pin, ...unnamed } = this.#options.init;
    const _allNamed: Record<string, never> = unnamed;
    this.#tell({
      t: 'init',
      url,
      topic,
      localId,
      signalKey,
      ...(token !== undefined ? { token } : {}),
      ...(pin !== undefined ? { pin } : {}),
    });
  }

  #execArgv(): readonly string[] {
    return this.#plain ? [] : (this.#options.execArgv ?? transportExecArgv());
  }

  #optionsRefused(child: ChildProcess, options: readonly string[]): void {
    this.#plain = true;
    if (this.#options.execArgv === undefined) transportOptionsRefused();
    this.#child = undefined;
    this.#warn(
      `papo: this Node (${process.version}) refused the transport process's options (${options.join(' ')}); starting it without them`,
    );
    if (!this.#closed && child.exitCode !== null) this.#spawn();
  }

  #tell(message: ToTransport): boolean {
    const child = this.#child;
    if (child === undefined || !child.connected) return false;
    try {
      child.send(message);
      return true;
    } catch {
      return false;
    }
  }

  #onMessage(message: FromTransport): void {
    switch (message.t) {
      case 'pong':
        this.#lastPong = Date.now();
        this.#answered = true;
        if (this.#state === 'unresponsive') this.#state = 'running';
        for (const [n, resolve] of this.#probes) {
          if (n <= message.n) {
            this.#probes.delete(n);
            resolve();
          }
        }
        break;
      case 'ready':
        this.#answered = true;
        this.#lastPong = Date.now();
        this.#state = 'running';
        break;
      case 'link-open':
        this.#links.set(message.peer, message.path);
        this.emit('link-open', message.peer);
        break;
      case 'link-close':
        if (this.#links.delete(message.peer)) this.emit('link-close', message.peer);
        break;
      case 'link-message': {
        const data = Buffer.from(message.data, 'base64');
        this.emit(
          'link-message',
          message.peer,
          new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
        );
        break;
      }
      case 'peer-left':
        this.emit('peer-left', message.peer);
        break;
      case 'paths':
        for (const [peer, path] of Object.entries(message.paths)) {
          if (this.#links.has(peer)) this.#links.set(peer, path ?? undefined);
        }
        break;
      case 'signal-state':
        this.#everJoined ||= message.state.everJoined;
        this.#signal = { ...message.state, everJoined: this.#everJoined };
        this.#signalState.emit('change', this.#signal);
        break;
      case 'log':
        this.#log(message.line);
        break;
      case 'turn-grant':
        if (this.#grants.size < MAX_GRANTS) this.#grants.set(message.grant.relayed, message.grant);
        break;
      case 'turn-gone':
        this.#grants.delete(message.relayed);
        break;
      case 'fatal':
        // It cannot run as configured: reported as failing at once, and retried slowly.
        this.#endReason = `could not run (${message.message})`;
        this.#shortRuns = Math.max(this.#shortRuns, FAILING_AFTER - 1);
        break;
    }
  }

  /**
   * The child was killed or died: its sockets are closed, so its allocations stay on the TURN
   * servers until they expire (600 s on coturn) unless given back from here.
   */
  #giveBack(): void {
    const grants = [...this.#grants.values()];
    if (grants.length === 0) return;
    const done = Promise.all(
      grants.map((grant) => releaseGrant(grant).catch(() => 'not released' as const)),
    ).then((outcomes) => {
      const released = outcomes.filter((o) => o === 'released').length;
      this.#log(
        `gave back ${released} of ${grants.length} TURN allocation(s) the ended transport process held${released < grants.length ? ` (others: ${outcomes.filter((o) => o !== 'released').join(', ')})` : ''}`,
      );
    });
    const before = this.#givingBack;
    this.#givingBack = Promise.all([before, done]).then(() => {});
  }

  /** Every heartbeat: a ping, and the end of a transport that stopped answering. */
  #beat(): void {
    const child = this.#child;
    if (child === undefined || this.#closed) return;
    const silent = Date.now() - this.#lastPong;
    const limit = this.#answered ? this.#stallMs : Math.max(this.#stallMs, START_GRACE_MS);
    if (silent >= limit) {
      this.#endReason = `stopped answering for ${Math.round(silent / 1000)} s (frozen)`;
      // For the person reading stderr: a deadlock leaves the main thread sleeping (on a lock), a
      // starved machine leaves it running, a SIGSTOP leaves it stopped.
      this.#frozenThread = mainThreadState(child.pid);
      child.kill('SIGKILL');
      return;
    }
    if (this.#answered && this.#state === 'running' && silent >= 2 * this.#heartbeatMs)
      this.#state = 'unresponsive';
    this.#tell({ t: 'ping', n: ++this.#ping });
  }

  /** Resolves true when the transport answers a ping within `ms`. */
  #probe(ms: number): Promise<boolean> {
    const n = ++this.#ping;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#probes.delete(n);
        resolve(false);
      }, ms);
      this.#probes.set(n, () => {
        clearTimeout(timer);
        resolve(true);
      });
      if (!this.#tell({ t: 'ping', n })) {
        clearTimeout(timer);
        this.#probes.delete(n);
        resolve(false);
      }
    });
  }

  /** The child is gone: its links with it; start another unless closing. */
  #ended(child: ChildProcess | undefined, how: string): void {
    if (child !== this.#child) return;
    this.#child = undefined;
    const why = this.#endReason ?? how;
    this.#endReason = undefined;
    // Closing: nobody listens for the links or the signal state any more.
    if (this.#closed) return;
    for (const peer of [...this.#links.keys()]) {
      this.#links.delete(peer);
      this.emit('link-close', peer);
    }
    this.#signal = { ...NOT_JOINED, everJoined: this.#everJoined };
    this.#signalState.emit('change', this.#signal);
    const now = Date.now();
    this.#shortRuns = now - this.#startedAt >= HEALTHY_RUN_MS ? 1 : this.#shortRuns + 1;
    // The position in the schedule is the run of short starts, which `fatal` also moves.
    const delay = delayOf(this.#backoff, this.#shortRuns - 1);
    this.#restarts += 1;
    this.#lastRestart = { at: now, why };
    this.#state = 'restarting';
    this.#restartAt = now + delay;
    const thread = this.#frozenThread === undefined ? '' : ` (its main thread was ${this.#frozenThread})`;
    this.#frozenThread = undefined;
    this.#warn(
      `papo: the transport process (WebRTC) ${why}; starting it again${delay > 0 ? ` in ${delay / 1000} s` : ''}${thread}`,
    );
    this.#restartTimer = setTimeout(() => this.#spawn(), delay);
    this.#options.onRestart?.(this.#health());
  }

  #health(): TransportHealth {
    const now = Date.now();
    return {
      state: this.#state,
      restarts: this.#restarts,
      ...(this.#lastRestart ? { lastRestart: this.#lastRestart } : {}),
      ...(this.#state === 'unresponsive' ? { silentMs: now - this.#lastPong } : {}),
      ...(this.#state === 'restarting' ? { nextStartInMs: Math.max(0, this.#restartAt - now) } : {}),
      // A crash loop that ended (the last start is running) is history, told by lastRestart.
      failing: this.#shortRuns >= FAILING_AFTER && this.#state !== 'running',
      stallSeconds: Math.round(this.#stallMs / 1000),
    };
  }
}

/** "sleeping", "running", "stopped"... from /proc/<pid>/stat (Linux); undefined elsewhere. */
function mainThreadState(pid: number | undefined): string | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const code = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    const names: Record<string, string> = {
      S: 'sleeping',
      D: 'in disk sleep',
      R: 'running',
      T: 'stopped',
      t: 'stopped',
    };
    return names[code] ?? code;
  } catch {
    return undefined;
  }
}
