// Puts a room member together for a profile: the profile and its lock, the durable state, the
// transport (signal client, TURN bridges and WebRTC links, in a supervised process of their own:
// ADR 0057) and the room node — and, for a room on a loopback signal URL, the embedded signal
// server (docs/architecture.md, "The local signal server"), which stays in this process so that a restart
// of the transport does not take it away from the other members on this machine. Callers get the
// member as its contract (RoomMember) and a small read-only probe of its network (RoomProbe), never
// the room node or the transport themselves.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PapoError } from './errors.js';
import type { RoomMember, RoomProbe } from './member-api.js';
import { resolveIceConfig } from './net/ice-config.js';
import { signalTokenFor } from './net/signal-token.js';
import { takeForgetRequests } from './room/forget.js';
import { KnownNames } from './room/member-names.js';
import { type KnownPeer, RoomNode } from './room/room-node.js';
import { readJsonFile, writeFileDurable } from './store/durable-file.js';
import { acquireLock, type ProfileLock } from './store/file-lock.js';
import { NAMES_FILE, PEERS_FILE, TRANSPORT_FILE } from './store/profile-files.js';
import { listRequests, REQUEST_POLL_MS } from './store/profile-requests.js';
import {
  openMemberState,
  openProfile,
  type Peers,
  type Profile,
  personIdentity,
  type TransportRecord,
} from './store/profile-store.js';
import { takeReviewRequests } from './store/review.js';
import type { MemberTransport } from './transport/member-transport.js';
import { TransportProcess } from './transport/transport-process.js';
import { FrameCodec } from './wire/frame-codec.js';
import { generateIdentity } from './wire/identity.js';
import { deriveRoomKeys } from './wire/room-crypto.js';
import { effectiveSignalAddress, isLoopbackSignalUrl } from './wire/signal-url.js';

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
  /**
   * Ephemeral mode: sign as the profile's person (person.key), as `papo say` does, instead of a
   * throw-away key (`papo status`). ADR 0064.
   */
  signAsPerson?: boolean;
  /** What this member works on (agent mode). */
  about?: string;
  /** Diagnostics; never stdout. */
  log?: (line: string) => void;
  /** What a person should see on stderr whatever PAPO_LOG says (transport restarts). */
  warn?: (line: string) => void;
  /**
   * 'process' (default): WebRTC in a supervised child process (ADR 0057). 'inline': in this
   * process, unsupervised — for tests that look inside the stack and for benchmarks.
   */
  transport?: 'process' | 'inline';
  /** Whether closing waits for the transport process to exit (default true; see TransportProcess). */
  waitForTransportExit?: boolean;
  /**
   * For a room on a loopback signal URL: starts the signal server on that address when no member
   * of this machine hosts it yet. The CLI gives it (src/cli/local-signal-server.ts), so this
   * module never imports the server; without it, such a room needs a server already running.
   */
  hostSignalServer?: HostSignalServer;
}

/** Starts a signal server on `host`:`port` (rejects with EADDRINUSE when one is already there). */
export type HostSignalServer = (at: { host: string; port: number }) => Promise<{ close(): Promise<void> }>;

export interface OpenedMember {
  /** The member, as papo mcp, say and status drive it (member-api.ts). */
  member: RoomMember;
  profile: Profile;
  /** What say/status/tests read of the network besides the member: small and read-only. */
  probe: RoomProbe;
}

export async function openMember(options: OpenMemberOptions): Promise<OpenedMember> {
  const { env, mode } = options;
  const log = options.log ?? (() => {});
  const profile = await openProfile({ home: options.home, profile: options.profile });
  // The address's fragment (pin, token: ADR 0089) goes to the transport apart from the URL, which
  // is what the member dials, shows and reports.
  const address = effectiveSignalAddress(profile.signalUrl, env);
  const signalUrl = address.url;
  // Only a token bound to this server's origin goes to it (ADR 0060); a PAPO_SIGNAL_TOKEN that
  // cannot be used safely stops here, with its error, before the lock or the network are taken.
  const token = signalTokenFor(address, env);
  const keys = deriveRoomKeys(profile.secret);

  let lock: ProfileLock | undefined;
  let node: RoomNode | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  try {
    let identity = profile.identity;
    let state = null;
    let knownPeers: Record<string, KnownPeer> = {};
    let names: KnownNames;
    let person: string | undefined;
    if (mode === 'agent') {
      lock = await lockForAgent(profile.dir);
      const held = lock;
      cleanups.push(() => held.release());
      state = await openMemberState(profile.dir, log);
      names = new KnownNames(state.names);
      // The profile's person signs papo say with a key of their own: the agent knows it is theirs.
      person = (await personIdentity(profile.dir)).nodeId;
      names.claim(profile.name, 'human', person);
    } else {
      identity = options.signAsPerson ? await personIdentity(profile.dir) : generateIdentity();
      knownPeers = (await readJsonFile<Peers>(join(profile.dir, PEERS_FILE)).catch(() => null)) ?? {};
      names = new KnownNames(
        (await readJsonFile<Record<string, string>>(join(profile.dir, NAMES_FILE)).catch(() => null)) ?? {},
      );
      names.claim(profile.name, 'agent', profile.identity.nodeId);
    }

    // Only a plain ws:// room: the local server speaks no TLS, and a wss:// URL on this machine is
    // a TLS proxy's port, which the member must not take when the proxy is down.
    const host = options.hostSignalServer;
    const embedded =
      host !== undefined && signalUrl.startsWith('ws://') && isLoopbackSignalUrl(signalUrl)
        ? new EmbeddedSignalServer(signalUrl, host, log)
        : undefined;
    if (embedded) {
      await embedded.tryStart();
      cleanups.push(() => embedded.close());
    }

    const room = {
      url: signalUrl,
      topic: keys.topic,
      // A person's say signs with their lasting key but meets the room under a throw-away peer id:
      // one run's links may still be closing when the next run starts, and the same id twice on
      // the signal server and in the others' meshes would tangle the two (ADR 0064).
      localId: options.signAsPerson ? generateIdentity().nodeId : identity.nodeId,
      token,
      pin: address.pin,
    };
    // A bad PAPO_ICE_SERVERS or PAPO_ICE_POLICY stops here, with its error, rather than in a
    // transport process that would fail at every start (resolveIceConfig loads no WebRTC).
    resolveIceConfig({ env });
    let transport: MemberTransport;
    if (options.transport === 'inline') {
      const { InlineTransport } = await import('./transport/inline-transport.js');
      transport = await InlineTransport.open({ ...room, signalKey: keys.signalKey, env, log });
    } else {
      const child = new TransportProcess({
        init: { ...room, signalKey: Buffer.from(keys.signalKey).toString('hex') },
        env,
        log,
        ...(options.warn ? { warn: options.warn } : {}),
        ...(options.waitForTransportExit === false ? { waitOnClose: false } : {}),
        // The agent's restarts are kept where `papo status`, another process, can read them.
        ...(mode === 'agent'
          ? {
              onRestart: (health) => {
                const record: TransportRecord = {
                  pid: process.pid,
                  restarts: health.restarts,
                  at: health.lastRestart?.at ?? Date.now(),
                  why: health.lastRestart?.why ?? 'stopped',
                };
                writeFileDurable(join(profile.dir, TRANSPORT_FILE), `${JSON.stringify(record)}\n`).catch(
                  (err: unknown) => log(`could not record the transport restart: ${(err as Error).message}`),
                );
              },
            }
          : {}),
      });
      child.start();
      transport = child;
    }
    const t = transport;
    cleanups.push(() => t.close());
    if (mode === 'agent') {
      // The record of this session's restarts is news only while it runs (papo status).
      cleanups.push(() => rm(join(profile.dir, TRANSPORT_FILE), { force: true }));
    }
    transport.onSignalState((signal) => {
      // The process that hosted the local signal server exited: take the port over.
      if (!signal.joined) void embedded?.tryStart();
    });

    const about = mode === 'agent' ? (options.about ?? profile.about) : undefined;
    node = new RoomNode({
      name: profile.name,
      ...(about ? { about } : {}),
      kind: mode === 'agent' ? 'agent' : 'human',
      nodeId: identity.nodeId,
      roomId: keys.roomId,
      codec: new FrameCodec(keys.frameKey, keys.topic, identity),
      transport,
      network: () => t.health(),
      state,
      knownPeers,
      names,
      ...(person ? { person } : {}),
      log,
      memberSince: profile.createdAt,
      onClose: () => runCleanups(cleanups),
    });
    await node.start();
    if (mode === 'agent') {
      // `papo forget` and `papo review` run while this member holds the profile leave requests
      // here (profile-requests.ts).
      const started = node;
      let busy = false;
      const poll = async () => {
        if (busy) return;
        busy = true;
        try {
          // One listing of the profile folder serves both kinds.
          const names = await listRequests(profile.dir);
          if (names === undefined) return;
          await takeForgetRequests(
            profile.dir,
            async (name) => {
              const { released, peers } = await started.forget(name);
              log(`forgot ${name}: ${released} queued messages no longer wait for them, ${peers} identities`);
            },
            log,
            names,
          );
          await takeReviewRequests(profile.dir, started, log, names);
        } finally {
          busy = false;
        }
      };
      await poll();
      const timer = setInterval(() => void poll(), REQUEST_POLL_MS);
      timer.unref();
      cleanups.push(async () => clearInterval(timer));
    }
    // The probe reads the transport; it does not hand it out (nor its send).
    const probe: RoomProbe = {
      signalState: () => t.signalState(),
      onSignalState: (listener) => t.onSignalState(listener),
      neighbours: () => t.neighbours(),
      hostsSignalServer: () => embedded?.running ?? false,
    };
    return { member: node, profile, probe };
  } catch (err) {
    if (node === undefined) await runCleanups(cleanups);
    throw err;
  }
}

/**
 * How long papo mcp keeps trying a profile lock that is held: `papo forget` and `papo review` take
 * it for a moment when no papo mcp runs, and one starting just then must not report "another papo
 * server is already running" for its whole session. A lock held longer is another papo mcp's.
 */
const LOCK_RETRY_MS = 5_000;

async function lockForAgent(dir: string): Promise<ProfileLock> {
  const deadline = Date.now() + LOCK_RETRY_MS;
  for (;;) {
    try {
      return await acquireLock(dir);
    } catch (err) {
      if (!(err instanceof PapoError && err.code === 'profile_locked') || Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
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
  #startServer: HostSignalServer;
  #log: (line: string) => void;
  #handle: { close(): Promise<void> } | undefined;
  #starting: Promise<void> | undefined;
  #closed = false;

  constructor(url: string, start: HostSignalServer, log: (line: string) => void) {
    const parsed = new URL(url);
    const host = parsed.hostname === 'localhost' ? '127.0.0.1' : parsed.hostname.replace(/^\[|\]$/g, '');
    this.#host = host;
    this.#port = Number(parsed.port || 80); // a ws:// URL (openMember hosts no other)
    this.#startServer = start;
    this.#log = log;
  }

  get running(): boolean {
    return this.#handle !== undefined;
  }

  tryStart(): Promise<void> {
    if (this.#closed || this.#handle !== undefined) return Promise.resolve();
    this.#starting ??= this.#hostNow().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #hostNow(): Promise<void> {
    try {
      const handle = await this.#startServer({ host: this.#host, port: this.#port });
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
