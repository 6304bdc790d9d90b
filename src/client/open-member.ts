// Puts a room member together for a profile: the profile and its lock, the durable state, the
// transport (signal client, TURN bridges and WebRTC links, in a supervised process of their own:
// ADR 0057) and the room node — and, for a room on a loopback signal URL, the local signal server
// (embedded-signal-server.ts) when the CLI hands in what starts it. Callers get the member as its
// contract (RoomMember) and a small read-only probe of its network (RoomProbe), never the room
// node or the transport themselves.
import { type HostSignalServer, startEmbeddedSignalServer } from './embedded-signal-server.js';
import { messageOf, PapoError } from './errors.js';
import { type Log, type LogTarget, toLog } from './log.js';
import type { RoomMember, RoomProbe } from './member-api.js';
import type { TransportHealth } from './net/health.js';
import { resolveIceConfig } from './net/ice-config.js';
import type { RoomMeeting } from './net/meeting.js';
import { signalTokenFor } from './net/signal-token.js';
import { listenForSays, type PushSeen, type StatusView } from './person/handed-say.js';
import { lookAtRoom } from './person/room-view.js';
import { takeForgetRequests } from './room/forget.js';
import { KnownNames } from './room/member-names.js';
import { type KnownPeer, RoomNode } from './room/room-node.js';
import { acquireLock, type ProfileLock } from './store/file-lock.js';
import { listRequests, REQUEST_POLL_MS } from './store/profile-requests.js';
import {
  type MemberState,
  openMemberState,
  openProfile,
  type Profile,
  personIdentity,
  readRememberedMembers,
  removeTransportRecord,
  type TransportRecord,
  writeTransportRecord,
} from './store/profile-store.js';
import { takeReviewRequests } from './store/review.js';
import type { MemberTransport } from './transport/member-transport.js';
import { TransportProcess } from './transport/transport-process.js';
import { FrameCodec } from './wire/frame-codec.js';
import { generateIdentity, type Identity } from './wire/identity.js';
import { inertText } from './wire/inert-text.js';
import { deriveRoomKeys, type RoomKeys } from './wire/room-crypto.js';
import { effectiveSignalAddress } from './wire/signal-url.js';

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
  /** Agent mode: the push route of the papo mcp that opens it, for `papo status`'s answer (ADR 0118). */
  push?: () => PushSeen;
  /** Diagnostics; never stdout. */
  log?: LogTarget;
  /** What a person should see on stderr whatever PAPO_LOG says (transport restarts). */
  warn?: LogTarget;
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

export type { HostSignalServer } from './embedded-signal-server.js';

export interface OpenedMember {
  /** The member, as papo mcp, say and status drive it (member-api.ts). */
  member: RoomMember;
  profile: Profile;
  /** What say/status/tests read of the network besides the member: small and read-only. */
  probe: RoomProbe;
}

/** What closing the member runs, newest first (runCleanups). */
type Cleanups = (() => Promise<void>)[];

export async function openMember(options: OpenMemberOptions): Promise<OpenedMember> {
  const { env } = options;
  // Every part's log comes together here, and a line may carry a stranger's text: the signal
  // server's error code and message, a TURN server's reason, what a peer sent. Each line is made
  // inert (ADR 0059) on its way out, so a terminal reading PAPO_LOG's stderr acts on none of it.
  const write = toLog(options.log ?? (() => {}));
  const log = toLog((line: string) => write(inertText(line, 'line')));
  const profile = await openProfile({ home: options.home, profile: options.profile });
  // The address's fragment (pin, token: ADR 0089) goes to the transport apart from the URL, which
  // is what the member dials, shows and reports.
  const address = effectiveSignalAddress(profile.signalUrl, env);
  const signalUrl = address.url;
  // Only a token bound to this server's origin goes to it (ADR 0060); a PAPO_SIGNAL_TOKEN that
  // cannot be used safely stops here, with its error, before the lock or the network are taken.
  const token = signalTokenFor(address, env);
  const keys = deriveRoomKeys(profile.secret);

  let node: RoomNode | undefined;
  const cleanups: Cleanups = [];
  try {
    const side = await openSide(options, profile, log, cleanups);
    const embedded = await startEmbeddedSignalServer(signalUrl, options.hostSignalServer, log);
    if (embedded) cleanups.push(() => embedded.close());
    const transport = await startTransport(
      options,
      profile.dir,
      {
        url: signalUrl,
        topic: keys.topic,
        // A person's say signs with their lasting key but meets the room under a throw-away peer
        // id: one run's links may still be closing when the next run starts, and the same id twice
        // on the signal server and in the others' meshes would tangle the two (ADR 0064).
        localId: options.signAsPerson ? generateIdentity().nodeId : side.identity.nodeId,
        token,
        pin: address.pin,
        signalKey: keys.signalKey,
      },
      log,
      cleanups,
    );
    if (embedded !== undefined)
      transport.onSignalState((signal) => {
        // The process that hosted the local signal server exited: take the port over, and have
        // the transport dial it now. Its signal client would redial after its backoff (1-1.5 s),
        // and a say started in that gap met an empty topic: "I don't know anyone" (issue 40).
        if (signal.joined) return;
        void embedded.tryStart().then((up) => up && transport.signalServerBack());
      });
    node = roomNode(options, profile, keys, side, transport, log, () => runCleanups(cleanups));
    await node.start();
    // The probe reads the transport; it does not hand it out (nor its send).
    const probe: RoomProbe = {
      signalState: () => transport.signalState(),
      onSignalState: (listener) => transport.onSignalState(listener),
      neighbours: () => transport.neighbours(),
      hostsSignalServer: () => embedded?.running ?? false,
    };
    if (options.mode === 'agent') {
      cleanups.push(await pollRequests(profile.dir, node, log));
      // The person's `papo say` is handed to this member while it runs (ADR 0102), and
      // `papo status` asks it (ADR 0103).
      const speaker = node;
      const inRoomSince = Date.now();
      const room = { member: speaker, probe, self: profile.name };
      const host = {
        ...room,
        sayAsPerson: speaker.sayAsPerson.bind(speaker),
        status: async (waitMs: number): Promise<StatusView> => {
          const view = await lookAtRoom(room, profile, waitMs, inRoomSince);
          return options.push === undefined ? view : { ...view, push: options.push() };
        },
      };
      cleanups.push(await listenForSays(profile.dir, host, log));
    }
    return { member: node, profile, probe };
  } catch (err) {
    if (node === undefined) await runCleanups(cleanups);
    throw err;
  }
}

/** Who this member is in the room and what it remembers of it, from the profile's store. */
interface MemberSide {
  identity: Identity;
  /** The durable state (agent mode); null for an ephemeral member, which stores nothing. */
  state: MemberState | null;
  knownPeers: Record<string, KnownPeer>;
  names: KnownNames;
  /** The profile's person (agent mode: their `papo say` is theirs, ADR 0064, and handed here, 0102). */
  person?: Identity;
}

/**
 * The store's side of the member. An agent takes the profile's lock and opens its durable state;
 * an ephemeral member reads, without the lock, who the profile remembers.
 */
async function openSide(
  options: OpenMemberOptions,
  profile: Profile,
  log: Log,
  cleanups: Cleanups,
): Promise<MemberSide> {
  if (options.mode === 'agent') {
    const lock = await lockForAgent(profile.dir);
    cleanups.push(() => lock.release());
    const state = await openMemberState(profile.dir, log);
    const names = new KnownNames(state.names);
    // The profile's person signs papo say with a key of their own: the agent knows it is theirs.
    const person = await personIdentity(profile.dir);
    names.own(profile.name, 'human', person.nodeId);
    return { identity: profile.identity, state, knownPeers: {}, names, person };
  }
  const identity = options.signAsPerson ? await personIdentity(profile.dir) : generateIdentity();
  const remembered = await readRememberedMembers(profile.dir);
  const names = new KnownNames(remembered.names);
  names.own(profile.name, 'agent', profile.identity.nodeId);
  return { identity, state: null, knownPeers: remembered.peers, names };
}

/**
 * The transport (ADR 0057): a supervised process of its own, or inline for tests and benchmarks.
 * An agent's restarts are kept in transport.json, where `papo status`, another process, reads them.
 */
async function startTransport(
  options: OpenMemberOptions,
  profileDir: string,
  meeting: RoomMeeting,
  log: Log,
  cleanups: Cleanups,
): Promise<MemberTransport> {
  const { env } = options;
  // A bad PAPO_ICE_SERVERS or PAPO_ICE_POLICY stops here, with its error, rather than in a
  // transport process that would fail at every start (resolveIceConfig loads no WebRTC).
  resolveIceConfig({ env });
  let transport: MemberTransport;
  if (options.transport === 'inline') {
    const { InlineTransport } = await import('./transport/inline-transport.js');
    transport = await InlineTransport.open({ ...meeting, env, log });
  } else {
    const child = new TransportProcess({
      init: { ...meeting, signalKey: Buffer.from(meeting.signalKey).toString('hex') },
      env,
      log,
      ...(options.warn ? { warn: options.warn } : {}),
      ...(options.waitForTransportExit === false ? { waitOnClose: false } : {}),
      ...(options.mode === 'agent' ? { onRestart: (health) => recordRestart(profileDir, health, log) } : {}),
    });
    child.start();
    transport = child;
  }
  cleanups.push(() => transport.close());
  // The record of this session's restarts is news only while it runs (papo status).
  if (options.mode === 'agent') cleanups.push(() => removeTransportRecord(profileDir));
  return transport;
}

function recordRestart(profileDir: string, health: TransportHealth, log: Log): void {
  const record: TransportRecord = {
    pid: process.pid,
    restarts: health.restarts,
    at: health.lastRestart?.at ?? Date.now(),
    why: health.lastRestart?.why ?? 'stopped',
  };
  writeTransportRecord(profileDir, record).catch((err: unknown) =>
    log(`could not record the transport restart: ${messageOf(err)}`),
  );
}

/** The room node over the member's side and its transport; `onClose` runs the cleanups. */
function roomNode(
  options: OpenMemberOptions,
  profile: Profile,
  keys: RoomKeys,
  side: MemberSide,
  transport: MemberTransport,
  log: Log,
  onClose: () => Promise<void>,
): RoomNode {
  const agent = options.mode === 'agent';
  const about = agent ? (options.about ?? profile.about) : undefined;
  return new RoomNode({
    name: profile.name,
    ...(about ? { about } : {}),
    kind: agent ? 'agent' : 'human',
    nodeId: side.identity.nodeId,
    roomId: keys.roomId,
    codec: new FrameCodec(keys.frameKey, keys.topic, side.identity),
    transport,
    network: () => transport.health(),
    state: side.state,
    knownPeers: side.knownPeers,
    names: side.names,
    ...(side.person
      ? { person: side.person.nodeId, personCodec: new FrameCodec(keys.frameKey, keys.topic, side.person) }
      : {}),
    log,
    memberSince: profile.createdAt,
    onClose,
  });
}

/**
 * Takes the requests that `papo forget` and `papo review` leave while this member holds the
 * profile (profile-requests.ts): once now, then every REQUEST_POLL_MS. Returns what stops it.
 */
async function pollRequests(dir: string, node: RoomNode, log: Log): Promise<() => Promise<void>> {
  let busy = false;
  const poll = async () => {
    if (busy) return;
    busy = true;
    try {
      // One listing of the profile folder serves both kinds.
      const names = await listRequests(dir);
      if (names === undefined) return;
      await takeForgetRequests(
        dir,
        async (name) => {
          const { released, peers } = await node.forget(name);
          log(`forgot ${name}: ${released} queued messages no longer wait for them, ${peers} identities`);
        },
        log,
        names,
      );
      await takeReviewRequests(dir, node, log, names);
    } finally {
      busy = false;
    }
  };
  await poll();
  const timer = setInterval(() => void poll(), REQUEST_POLL_MS);
  timer.unref();
  return async () => clearInterval(timer);
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
