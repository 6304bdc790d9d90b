// The WebRTC side of a member: the signal client, the TURN/TCP bridges and the mesh of peer
// links, put together from the room's topic and keys and the environment (ICE settings). It runs
// in the transport process (transport-child.ts, ADR 0057), or in the member's own process where a
// test or a benchmark asks for that (InlineTransport). It never sees the frame key: what it carries
// between the member and its neighbours is already sealed.

import { messageOf } from '../errors.js';
import { type LogTarget, toLog } from '../log.js';
import type { IceFacts, SignalState, UnlinkedPeer } from './health.js';
import { type IceConfig, resolveIceConfig } from './ice-config.js';
import type { RoomMeeting } from './meeting.js';
import { Mesh } from './mesh.js';
import { SignalClient } from './signal-client.js';
import { pinForHost } from './tls-pin.js';
import type { GrantEvent } from './turn-release.js';
import { TurnBridges } from './turn-tcp-bridge.js';

/** A TURN allocation no live link has claimed for this long is an orphan, given back (ADR 0058). */
const ORPHAN_AGE_MS = 10_000;

/** Where to meet the room (meeting.ts), and what the stack needs from its process beside it. */
export interface NetworkStackOptions extends RoomMeeting {
  /** Where PAPO_ICE_SERVERS, PAPO_ICE_POLICY and PAPO_TEST_DENY_LINKS are read. */
  env: NodeJS.ProcessEnv;
  /** Diagnostics; never stdout. */
  log: LogTarget;
  /** Hears of each TURN-over-UDP allocation made and given back (the member's process keeps them). */
  onTurnGrant?: (event: GrantEvent) => void;
}

export class NetworkStack {
  readonly signal: SignalClient;
  readonly mesh: Mesh;
  readonly #bridges: TurnBridges;
  readonly #sweep: NodeJS.Timeout;
  readonly #env: NodeJS.ProcessEnv;
  readonly #turnLimited: () => boolean;
  /** Peers on the topic without a link, and since when (what `signalState` reports as `unlinked`). */
  readonly #unlinkedSince = new Map<string, number>();

  private constructor(
    signal: SignalClient,
    mesh: Mesh,
    bridges: TurnBridges,
    sweep: NodeJS.Timeout,
    env: NodeJS.ProcessEnv,
    turnLimited: () => boolean,
  ) {
    this.signal = signal;
    this.mesh = mesh;
    this.#bridges = bridges;
    this.#sweep = sweep;
    this.#env = env;
    this.#turnLimited = turnLimited;
    for (const event of ['peers', 'joined'] as const) signal.on(event, () => this.#unlinked());
    mesh.on('link-open', () => this.#unlinked());
    mesh.on('link-close', () => this.#unlinked());
  }

  /** Builds the stack and starts dialling the signal server. */
  static async open(options: NetworkStackOptions): Promise<NetworkStack> {
    // The signal client gets the meeting alone, whatever fields it has; the rest is the stack's.
    const { env, log: logTarget, onTurnGrant, ...meeting } = options;
    const log = toLog(logTarget);
    const serverLog = log.child('signal server: ');
    const signal = new SignalClient(meeting);
    signal.on('disconnected', ({ reason }) => log(`signal server connection lost (${reason}); redialling`));
    signal.on('server-error', ({ code, message }) => serverLog(`${code}: ${message}`));
    signal.on('displaced', ({ rejoinInMs }) =>
      log(`another socket joined the signal server as this member; joining again in ${rejoinInMs} ms`),
    );
    // TURN over TCP/TLS goes through local bridges (the ICE agent speaks UDP TURN only).
    const bridges = new TurnBridges(log, onTurnGrant, (host) => pinForHost(options, host));
    try {
      await bridges.prepare(resolveIceConfig({ env }).servers);
    } catch (err) {
      bridges.close();
      throw err;
    }
    let turnLimitedSaid = false;
    let turnLimited = false;
    signal.on('welcome', (servers, notes) => {
      void bridges.prepare(resolveIceConfig({ env, welcome: servers }).servers);
      turnLimited = notes.includes('turn_limited');
      // The server has TURN but gave this address its share already (no token required there).
      if (notes.includes('turn_limited') && !turnLimitedSaid) {
        turnLimitedSaid = true;
        serverLog(
          'no TURN relay for this connection (turn_limited: this address had its share of TURN credentials lately); direct and STUN links still work, a token on that server lifts the limit',
        );
      }
    });
    const allowLink = deniedLinks(env);
    const mesh = new Mesh(
      { signal, releaseRelays: (relayed) => bridges.release(relayed), log },
      {
        ice: () => bridges.rewrite(resolveIceConfig({ env, welcome: signal.iceServers })),
        ...(allowLink ? { allowLink } : {}),
      },
    );
    // Allocations whose link closed before naming them (its Allocate was in flight) are swept.
    const sweep = setInterval(() => {
      void bridges
        .sweep(new Set(mesh.relayedInUse()), ORPHAN_AGE_MS)
        .catch((err: unknown) => log(`turn: could not sweep orphan allocations: ${messageOf(err)}`));
    }, ORPHAN_AGE_MS);
    sweep.unref();
    signal.start();
    return new NetworkStack(signal, mesh, bridges, sweep, env, () => turnLimited);
  }

  /** Calls `listener` whenever the signal connection changes (joined, peers, lost, refused). */
  onSignalChange(listener: () => void): void {
    for (const event of ['peers', 'joined', 'left', 'displaced', 'disconnected', 'server-error'] as const)
      this.signal.on(event, listener);
  }

  signalState(): SignalState {
    const signal = this.signal;
    const problem = signal.problem;
    return {
      joined: signal.joined,
      everJoined: signal.everJoined,
      peers: signal.peers(),
      ...(problem ? { problem } : {}),
      dropped: signal.dropped(),
      unlinked: this.#unlinked(),
      ice: this.#iceFacts(),
    };
  }

  /** The peers on the topic with no open link, each since it was first seen so. */
  #unlinked(): UnlinkedPeer[] {
    const linked = new Set(this.mesh.neighbours());
    const now = Date.now();
    const waiting = this.signal.joined ? this.signal.peers().filter((p) => !linked.has(p)) : [];
    for (const peer of this.#unlinkedSince.keys())
      if (!waiting.includes(peer)) this.#unlinkedSince.delete(peer);
    for (const peer of waiting) if (!this.#unlinkedSince.has(peer)) this.#unlinkedSince.set(peer, now);
    return [...this.#unlinkedSince].map(([peer, since]) => ({ peer, since }));
  }

  #iceFacts(): IceFacts {
    let ice: IceConfig;
    try {
      ice = resolveIceConfig({ env: this.#env, welcome: this.signal.iceServers });
    } catch {
      // A bad setting stopped the stack at start; nothing to tell here.
      return { relayOnly: false, turn: false, source: 'env', turnLimited: false };
    }
    const turn = ice.servers.some(
      (s) =>
        s.username !== undefined &&
        s.credential !== undefined &&
        (typeof s.urls === 'string' ? [s.urls] : s.urls).some((u) => /^turns?:/i.test(u.trim())),
    );
    return { relayOnly: ice.policy === 'relay', turn, source: ice.source, turnLimited: this.#turnLimited() };
  }

  /** Gives every TURN allocation back, closes the links and leaves the topic. */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    // Every allocation is given back at once, beside the links' own close (which may wait up to
    // 2 s for the native side): a transport that is ending must not run out of time before its
    // Refresh requests leave. Again after, for one made meanwhile. The transport is ending: a part
    // that fails to close ends with its process, and must not keep the others from closing.
    const releaseAll = () => this.#bridges.sweep(new Set(), 0).catch(() => {});
    await Promise.all([releaseAll(), this.mesh.close().catch(() => {}), this.signal.close().catch(() => {})]);
    await releaseAll();
    this.#bridges.close();
  }
}

/**
 * Test-only (PAPO_TEST_DENY_LINKS): node ids, or prefixes of them, separated by commas, that this
 * member must not link with directly — so a test can build a room where A reaches C only via B.
 */
function deniedLinks(env: NodeJS.ProcessEnv): ((peer: string) => boolean) | undefined {
  const list = (env.PAPO_TEST_DENY_LINKS ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (list.length === 0) return undefined;
  return (peer) => !list.some((prefix) => peer.startsWith(prefix));
}
