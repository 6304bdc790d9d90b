// Puts a room member together for a profile: the profile and its lock, the durable state, the
// signal client, the WebRTC mesh and the room node — and, for a room on a loopback signal URL,
// the embedded signal server (DESIGN.md "Where the signal server is").
import { join } from 'node:path';
import { readJsonFile } from './durable-file.js';
import { acquireLock, type ProfileLock } from './file-lock.js';
import { resolveIceConfig } from './ice-config.js';
import { generateIdentity } from './identity.js';
import { Mesh } from './mesh.js';
import { openMemberState, openProfile, PEERS_FILE, type Peers, type Profile } from './profile-store.js';
import { deriveRoomKeys } from './room-crypto.js';
import { type KnownPeer, RoomNode } from './room-node.js';
import { SignalClient } from './signal-client.js';
import { effectiveSignalUrl, isLoopbackSignalUrl } from './signal-url.js';
import { TurnBridges } from './turn-tcp-bridge.js';

export interface OpenMemberOptions {
  home: string;
  profile: string;
  env: NodeJS.ProcessEnv;
  /**
   * 'agent': the profile's own identity, lock, inbox and outbox (papo mcp).
   * 'ephemeral': a throw-away identity speaking as a human (papo say / status): it never stores,
   * never acks, and is never remembered by the others, so it runs beside the profile's server.
   */
  mode: 'agent' | 'ephemeral';
  /** What this member works on (agent mode). */
  about?: string;
  /** Diagnostics; never stdout. */
  log?: (line: string) => void;
}

export interface OpenedMember {
  node: RoomNode;
  profile: Profile;
  signal: SignalClient;
  signalUrl: string;
  /** True while this process hosts the embedded signal server. */
  hostsSignalServer(): boolean;
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

export async function openMember(options: OpenMemberOptions): Promise<OpenedMember> {
  const { env, mode } = options;
  const log = options.log ?? (() => {});
  const profile = await openProfile({ home: options.home, profile: options.profile });
  const signalUrl = effectiveSignalUrl(profile.signalUrl, env);
  const keys = deriveRoomKeys(profile.secret);

  let lock: ProfileLock | undefined;
  let node: RoomNode | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  try {
    let identity = profile.identity;
    let state = null;
    let knownPeers: Record<string, KnownPeer> = {};
    if (mode === 'agent') {
      lock = await acquireLock(profile.dir);
      const held = lock;
      cleanups.push(() => held.release());
      state = await openMemberState(profile.dir);
    } else {
      identity = generateIdentity();
      knownPeers = (await readJsonFile<Peers>(join(profile.dir, PEERS_FILE)).catch(() => null)) ?? {};
    }

    const embedded = isLoopbackSignalUrl(signalUrl) ? new EmbeddedSignalServer(signalUrl, log) : undefined;
    if (embedded) {
      await embedded.tryStart();
      cleanups.push(() => embedded.close());
    }

    const signal = new SignalClient({
      url: signalUrl,
      topic: keys.topic,
      localId: identity.nodeId,
      signalKey: keys.signalKey,
      token: env.PAPO_SIGNAL_TOKEN,
    });
    cleanups.push(() => signal.close());
    signal.on('disconnected', ({ reason }) => {
      log(`signal server connection lost (${reason}); redialling`);
      // The process that hosted the local signal server exited: take the port over.
      void embedded?.tryStart();
    });
    signal.on('server-error', ({ code, message }) => log(`signal server: ${code}: ${message}`));

    // TURN over TCP/TLS goes through local bridges (the ICE agent speaks UDP TURN only).
    const bridges = new TurnBridges(log);
    cleanups.push(async () => bridges.close());
    await bridges.prepare(resolveIceConfig({ env }).servers);
    signal.on('welcome', (servers) => {
      void bridges.prepare(resolveIceConfig({ env, welcome: servers }).servers);
    });

    const allowLink = deniedLinks(env);
    const mesh = new Mesh({
      signal,
      ice: () => bridges.rewrite(resolveIceConfig({ env, welcome: signal.iceServers })),
      ...(allowLink ? { allowLink } : {}),
      log,
    });
    cleanups.push(() => mesh.close());

    const about = mode === 'agent' ? (options.about ?? profile.about) : undefined;
    node = new RoomNode({
      name: profile.name,
      ...(about ? { about } : {}),
      kind: mode === 'agent' ? 'agent' : 'human',
      nodeId: identity.nodeId,
      roomId: keys.roomId,
      frameKey: keys.frameKey,
      transport: mesh,
      state,
      knownPeers,
      log,
      onClose: () => runCleanups(cleanups),
    });
    await node.start();
    signal.start();
    return { node, profile, signal, signalUrl, hostsSignalServer: () => embedded?.running ?? false };
  } catch (err) {
    if (node === undefined) await runCleanups(cleanups);
    throw err;
  }
}

/** Runs cleanups newest first; one failing does not stop the others. */
async function runCleanups(cleanups: (() => Promise<void>)[]): Promise<void> {
  for (const cleanup of [...cleanups].reverse()) {
    try {
      await cleanup();
    } catch {
      // closing is best effort: the process is going away
    }
  }
  cleanups.length = 0;
}

/** The local signal server, hosted by whichever member on this machine got the port first. */
class EmbeddedSignalServer {
  #host: string;
  #port: number;
  #log: (line: string) => void;
  #handle: { close(): Promise<void> } | undefined;
  #starting: Promise<void> | undefined;
  #closed = false;

  constructor(url: string, log: (line: string) => void) {
    const parsed = new URL(url);
    const host = parsed.hostname === 'localhost' ? '127.0.0.1' : parsed.hostname.replace(/^\[|\]$/g, '');
    this.#host = host;
    this.#port = Number(
      parsed.port || (parsed.protocol === 'wss:' || parsed.protocol === 'https:' ? 443 : 80),
    );
    this.#log = log;
  }

  get running(): boolean {
    return this.#handle !== undefined;
  }

  tryStart(): Promise<void> {
    if (this.#closed || this.#handle !== undefined) return Promise.resolve();
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    const { startSignalServer } = await import('../signal-server/server.js');
    try {
      // Settings of an operator's server (tokens, Redis, TURN) are not the local server's.
      const handle = await startSignalServer({ host: this.#host, port: this.#port, env: {} });
      if (this.#closed) {
        await handle.close();
        return;
      }
      this.#handle = handle;
      this.#log(`hosting the local signal server on ws://${this.#host}:${this.#port}`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE') {
        this.#log(`could not start the local signal server: ${(err as Error).message}`);
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#starting;
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close();
  }
}
