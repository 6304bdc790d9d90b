// The profile on disk: $PAPO_HOME/profiles/<profile>/ (docs/files.md, "The profile on disk").
// Folder 0700, every file 0600.
//
//   profile.json  name, about, room secret (hex), signal URL, creation time   (new/join write it)
//   secret.key    Ed25519 seed (hex), kept across --force: it is who we are to other members
//   peers.json    known members            \ lowdb over DurableJsonFile, written by papo mcp
//   outbox.json   messages not yet acked, each with who it is still owed to (outbox.ts)
//   inbox/        unread messages, one file each (inbox-store.ts), written by papo mcp
//   held/         messages held for the person's review, kept the same way (review.ts)
//   review.json   the person's review settings, written by papo review (review.ts)
//   names.json    who each member name belongs to: its first key (member-names.ts), by papo mcp
//   person.key    the person's own Ed25519 seed: papo say signs with it (ADR 0064)
//   log.jsonl     the conversation (log-file.ts)
//   lock          one papo mcp per profile (file-lock.ts)
import { chmod, mkdir, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { Low } from 'lowdb';
import { PapoError } from '../errors.js';
import type { LogTarget } from '../log.js';
import { checkedEnvelope } from '../wire/frames.js';
import { generateIdentity, type Identity, identityFromSecretKey } from '../wire/identity.js';
import type { Envelope, LogEntry, SenderKind } from '../wire/messages.js';
import { isMemberName, NODE_ID_PATTERN, validateProfileName } from '../wire/names.js';
import { DurableJsonFile, readJsonFile, readTextFile, syncDir, writeFileDurable } from './durable-file.js';
import { acquireLock, isAlive } from './file-lock.js';
import { profileDir } from './home.js';
import { countUnread, InboxStore } from './inbox-store.js';
import { LogFile, readLogTail } from './log-file.js';
import { isQueuedMessageList, owedSummary, type QueuedMessage } from './outbox.js';
import { type ProfileFile, parseProfileFile } from './profile-file.js';
import {
  HELD_DIR,
  INBOX_DIR,
  LEGACY_INBOX_FILE,
  LOG_FILE,
  NAMES_FILE,
  OUTBOX_FILE,
  PEERS_FILE,
  PERSON_KEY_FILE,
  PROFILE_FILE,
  SECRET_KEY_FILE,
  TRANSPORT_FILE,
} from './profile-files.js';
import { countHeld, ReviewGate, readReviewSettings } from './review.js';

/** transport.json: the running papo mcp's transport restarts, for `papo status` (ADR 0057). */
export interface TransportRecord {
  /** The papo mcp process that wrote it. */
  pid: number;
  restarts: number;
  /** ms since the epoch */
  at: number;
  why: string;
}

export interface Profile {
  /** Absolute path of the profile folder. */
  dir: string;
  /** The local profile name (never shown to the room). */
  profile: string;
  /** Member name in the room. */
  name: string;
  about?: string;
  /** The 32-byte room secret. */
  secret: Uint8Array;
  /** The room's signal server; absent = the local default. */
  signalUrl?: string;
  /** Unix ms when new/join wrote this profile. */
  createdAt: number;
  identity: Identity;
}

export interface ProfileRef {
  home: string;
  profile: string;
}

export interface CreateProfileInput extends ProfileRef {
  name: string;
  about?: string;
  secret: Uint8Array;
  signalUrl?: string;
  /** Replace an existing profile: keeps secret.key and log.jsonl, clears peers, inbox and outbox. */
  force: boolean;
}

/**
 * Writes a profile for `papo new` / `papo join`. Returns the profile and whether it replaced one.
 * Errors: 'invalid_profile_name', 'profile_exists' (without force, nothing written),
 * 'profile_locked' (a papo server runs with it), 'home_unwritable', 'profile_corrupt' (secret.key).
 */
export async function createProfile(
  input: CreateProfileInput,
): Promise<{ profile: Profile; replaced: boolean }> {
  const profile = validateProfileName(input.profile);
  if (input.secret.length !== 32) throw new RangeError('the room secret must be 32 bytes');
  const dir = profileDir(input.home, profile);
  const profilePath = join(dir, PROFILE_FILE);
  const existed = await exists(profilePath);
  if (existed && !input.force) {
    throw new PapoError(
      'profile_exists',
      `profile '${profile}' already exists; use --force to replace it (your identity and log are kept)`,
    );
  }
  try {
    // recursive mkdir gives every folder it creates this mode; an existing profile folder is
    // tightened too, in case it was made by hand.
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  } catch (err) {
    throw unwritable(input.home, err);
  }
  // Replacing the room under a running papo mcp would pull its inbox away: refuse while locked.
  const lock = await acquireLock(dir);
  try {
    const replaced = await exists(profilePath);
    if (replaced && !input.force) {
      throw new PapoError('profile_exists', `profile '${profile}' already exists; use --force to replace it`);
    }
    const identity = await loadOrCreateIdentity(dir);
    const createdAt = Date.now();
    const file: ProfileFile = { name: input.name, secret: bytesToHex(input.secret), createdAt };
    if (input.about !== undefined && input.about !== '') file.about = input.about;
    if (input.signalUrl !== undefined && input.signalUrl !== '') file.signalUrl = input.signalUrl;
    // profile.json first: until it is renamed into place the old profile (or none) stays whole,
    // its queue included; only then do the old room's files go.
    await writeFileDurable(profilePath, `${JSON.stringify(file, null, 2)}\n`);
    if (replaced) {
      // These belong to the old room (docs/files.md, "Recreating a room"); log.jsonl stays.
      for (const file of [PEERS_FILE, LEGACY_INBOX_FILE, OUTBOX_FILE, NAMES_FILE]) {
        await unlink(join(dir, file)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
        });
      }
      // Held messages too; review.json is the person's setting and stays.
      for (const folder of [INBOX_DIR, HELD_DIR])
        await rm(join(dir, folder), { recursive: true, force: true });
      await syncDir(dir);
    }
    return { profile: toProfile(dir, profile, file, identity), replaced };
  } catch (err) {
    if (err instanceof PapoError) throw err;
    throw unwritable(input.home, err);
  } finally {
    await lock.release();
  }
}

/** Reads a profile. Errors: 'invalid_profile_name', 'profile_missing', 'profile_corrupt'. */
export async function openProfile(ref: ProfileRef): Promise<Profile> {
  const profile = validateProfileName(ref.profile);
  const dir = profileDir(ref.home, profile);
  const path = join(dir, PROFILE_FILE);
  let raw: unknown;
  try {
    raw = await readJsonFile<unknown>(path);
  } catch (err) {
    if (err instanceof PapoError && err.code === 'profile_corrupt') {
      throw new PapoError(
        'profile_corrupt',
        `${err.message}; replace the profile with papo new --force or papo join --force`,
        {
          cause: err,
        },
      );
    }
    throw err;
  }
  if (raw === null) {
    throw new PapoError(
      'profile_missing',
      `profile '${profile}' is not configured — run papo new or papo join`,
    );
  }
  const file = parseProfileFile(raw);
  if (file === null) {
    throw new PapoError(
      'profile_corrupt',
      `${path} is not a valid papo profile; replace it with papo new --force or papo join --force`,
    );
  }
  const identity = await readIdentity(dir, SECRET_KEY_FILE);
  if (identity === null) throw new PapoError('profile_corrupt', `${join(dir, SECRET_KEY_FILE)} is missing`);
  return toProfile(dir, profile, file, identity);
}

export interface PeerRecord {
  name: string;
  about?: string;
  kind: SenderKind;
  /** Unix ms of the last hello or msg from this member. */
  lastSeen: number;
  /** Its person reviews incoming messages (its last hello said so: ADR 0081). */
  review?: true;
}

/** Known members by node id (hex). */
export type Peers = Record<string, PeerRecord>;

/**
 * The durable state of a running member, as the room node drives it (room/durable-delivery.ts,
 * room/peers-save.ts). openMemberState makes it over the profile's files: `outbox` and `peers` are
 * the documents of lowdb databases over DurableJsonFile; change or replace them, then call the
 * matching save, which replaces the file atomically. Take the profile lock (acquireLock) before
 * writing. Tests drive the room node with one kept in memory (tests/support/memory-state.ts).
 */
export interface MemberState {
  /** Unread messages, oldest first (the inbox/ folder: inbox-store.ts). */
  readonly inbox: readonly Envelope[];
  /** Sent messages not acked yet by everyone they are owed to (outbox.ts). */
  outbox: QueuedMessage[];
  peers: Peers;
  /** Stores one message durably; PapoError 'inbox_full' when the inbox is at its cap. */
  addToInbox(msg: Envelope): Promise<void>;
  /** Removes read messages from the inbox. */
  removeFromInbox(ids: Iterable<string>): Promise<void>;
  /** Messages held for the person's review, oldest first (the held/ folder: review.ts). */
  readonly held: readonly Envelope[];
  /** Holds one message durably; PapoError 'inbox_full' when held/ is at the inbox's cap. */
  addToHeld(msg: Envelope): Promise<void>;
  removeFromHeld(ids: Iterable<string>): Promise<void>;
  /** The person's review gate over review.json (ReviewGate): whether it is on, whether it holds a message. */
  readonly review: Pick<ReviewGate, 'reviewing' | 'holds'>;
  saveOutbox(): Promise<void>;
  savePeers(): Promise<void>;
  /** Who each name belongs to (names.json, member-names.ts), as saved (KnownNames checks each entry). */
  readonly names: Record<string, unknown>;
  saveNames(names: Record<string, NameRecord>): Promise<void>;
  /** Appends one line to log.jsonl, fsynced before it resolves. */
  appendLog(entry: LogEntry): Promise<void>;
  /** The last `limit` log entries, oldest first. */
  readLogTail(limit: number): Promise<LogEntry[]>;
  /**
   * Ids of every message ever stored: the `in` entries of the log, plus the inbox and held/
   * (dedupe across restarts). A message the inbox or held/ holds without its `in` line (a stop
   * between the two writes of a store: the agent has it, the history missed it) gets its line
   * now, at the end of the log.
   */
  recoverInboundIds(): Promise<Set<string>>;
}

/** Loads inbox, outbox and peers of the profile in `dir`. Error: 'profile_corrupt'. */
export async function openMemberState(dir: string, onLog?: LogTarget): Promise<MemberState> {
  const inbox = await InboxStore.open(dir);
  const held = await InboxStore.open(dir, HELD_DIR);
  const outboxFile = new DurableJsonFile<QueuedMessage[]>(join(dir, OUTBOX_FILE));
  const peersFile = new DurableJsonFile<Peers>(join(dir, PEERS_FILE));
  const outbox = new Low<QueuedMessage[]>(outboxFile, []);
  const peers = new Low<Peers>(peersFile, {});
  const names = new DurableJsonFile<Record<string, NameRecord>>(join(dir, NAMES_FILE));
  // The files as they are (lowdb's read() would keep its default for a falsy value such as 0).
  const [savedNames, savedOutbox, savedPeers] = await Promise.all([
    names.read(),
    outboxFile.read(),
    peersFile.read(),
  ]);
  const checkedNames = parseNamesFile(savedNames, join(dir, NAMES_FILE));
  outbox.data = parseOutboxFile(savedOutbox, join(dir, OUTBOX_FILE));
  peers.data = parsePeersFile(savedPeers, join(dir, PEERS_FILE));
  const log = new LogFile(join(dir, LOG_FILE));
  return {
    get inbox() {
      return inbox.messages;
    },
    get outbox() {
      return outbox.data;
    },
    set outbox(value) {
      outbox.data = value;
    },
    get peers() {
      return peers.data;
    },
    set peers(value) {
      peers.data = value;
    },
    addToInbox: (msg) => inbox.add(msg),
    removeFromInbox: (ids) => inbox.remove(ids),
    get held() {
      return held.messages;
    },
    addToHeld: (msg) => held.add(msg),
    removeFromHeld: (ids) => held.remove(ids),
    review: new ReviewGate(dir, onLog),
    saveOutbox: () => outbox.write(),
    savePeers: () => peers.write(),
    names: checkedNames,
    saveNames: (data) => names.write(data),
    appendLog: (entry) => log.append(entry),
    readLogTail: (limit) => log.readTail(limit),
    async recoverInboundIds() {
      const ids = await log.readInboundIds();
      const recover = async (entry: LogEntry & { ev: 'in' }) => {
        if (ids.has(entry.msg.id)) return;
        ids.add(entry.msg.id);
        // The message is safe where it is: a line that cannot be written only leaves history short.
        await log
          .append(entry)
          .catch((err: Error) => onLog?.(`could not log message ${entry.msg.id}: ${err.message}`));
      };
      for (const msg of inbox.messages) await recover({ ev: 'in', msg });
      for (const msg of held.messages) await recover({ ev: 'in', msg, held: true });
      return ids;
    },
  };
}

/**
 * The person's own identity in this profile (person.key, made on first use): `papo say` signs with
 * it, so a person's notes are theirs and no other member, nor their own agent, can forge them
 * (ADR 0064). Apart from secret.key, which is the agent's.
 */
export async function personIdentity(dir: string): Promise<Identity> {
  return loadOrCreateIdentity(dir, PERSON_KEY_FILE);
}

async function loadOrCreateIdentity(dir: string, file = SECRET_KEY_FILE): Promise<Identity> {
  const existing = await readIdentity(dir, file);
  if (existing) return existing;
  const identity = generateIdentity();
  await writeFileDurable(join(dir, file), `${bytesToHex(identity.secretKey)}\n`);
  return identity;
}

async function readIdentity(dir: string, file: string): Promise<Identity | null> {
  const path = join(dir, file);
  const text = await readTextFile(path);
  if (text === null) return null;
  return identityFromSecretKey(parseKeyText(text, path));
}

// What another process reads of a profile without its lock (papo status, say, forget), and the
// record papo mcp keeps for them. Each file through its own reader below.

/** peers.json, checked (parsePeersFile). Error: 'profile_corrupt'. */
export async function readPeers(dir: string): Promise<Peers> {
  const path = join(dir, PEERS_FILE);
  return parsePeersFile(await readJsonFile<unknown>(path), path);
}

/** names.json, checked (parseNamesFile). Error: 'profile_corrupt'. */
export async function readNames(dir: string): Promise<Record<string, unknown>> {
  const path = join(dir, NAMES_FILE);
  return parseNamesFile(await readJsonFile<unknown>(path), path);
}

/** outbox.json, checked (parseOutboxFile). Error: 'profile_corrupt'. */
export async function readOutbox(dir: string): Promise<QueuedMessage[]> {
  const path = join(dir, OUTBOX_FILE);
  return parseOutboxFile(await readJsonFile<unknown>(path), path);
}

/**
 * The members the profile remembers and who holds each name, for a member that does not own the
 * files (papo say, papo status beside papo mcp): a file that cannot be read, or does not hold what
 * papo expects, reads as empty. The papo mcp that owns it reports it when it opens the profile.
 */
export async function readRememberedMembers(
  dir: string,
): Promise<{ peers: Peers; names: Record<string, unknown> }> {
  const [peers, names] = await Promise.all([
    readPeers(dir).catch(() => ({})),
    readNames(dir).catch(() => ({})),
  ]);
  return { peers, names };
}

export interface QueueSummary {
  /** Sent messages not acked yet by everyone they are owed to. */
  queued: number;
  /** Who the queue waits for (owedSummary); '' is "the first member to confirm". */
  owed: { name: string; count: number }[];
  unread: number;
  /** Messages held for the person's review. */
  held: number;
  /** The person's review gate is on (review.json, ADR 0081). */
  reviewing: boolean;
}

/** The profile's queues as `papo status` shows them; an outbox it cannot read counts as empty. */
export async function readQueueSummary(dir: string): Promise<QueueSummary> {
  const outbox = await readOutbox(dir).catch(() => []);
  return {
    queued: outbox.length,
    owed: owedSummary(outbox),
    unread: countUnread(dir),
    held: countHeld(dir),
    reviewing: readReviewSettings(dir).on,
  };
}

/** Records the transport restarts of this papo mcp (transport.json). */
export async function writeTransportRecord(dir: string, record: TransportRecord): Promise<void> {
  await writeFileDurable(join(dir, TRANSPORT_FILE), `${JSON.stringify(record)}\n`);
}

/** Removes the record: it is news only while the papo mcp that wrote it runs. */
export async function removeTransportRecord(dir: string): Promise<void> {
  await rm(join(dir, TRANSPORT_FILE), { force: true });
}

/**
 * The running papo mcp's transport restarts, as it recorded them; undefined when there is no
 * record, it cannot be read, or the papo mcp that wrote it no longer runs (an earlier session's).
 */
export async function readAgentTransportRecord(dir: string): Promise<TransportRecord | undefined> {
  const raw = await readJsonFile<unknown>(join(dir, TRANSPORT_FILE)).catch(() => null);
  const record = parseTransportRecord(raw);
  return record !== undefined && isAlive(record.pid) ? record : undefined;
}

/** The last `limit` entries of the profile's log, oldest first; [] when it cannot be read. */
export async function readProfileLogTail(dir: string, limit: number): Promise<LogEntry[]> {
  return readLogTail(join(dir, LOG_FILE), limit).catch(() => []);
}

// The readers of the profile's files, as pure functions of what the file held (fuzzed in
// tests/fuzz/parser-targets.ts): a well-formed value, or PapoError 'profile_corrupt' naming `path`.

/** secret.key or person.key: the 32-byte Ed25519 seed (64 hex characters, a newline allowed). */
export function parseKeyText(text: string, path: string): Uint8Array {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex))
    throw new PapoError('profile_corrupt', `${path} is not a papo identity key`);
  return hexToBytes(hex);
}

/** peers.json (null: absent): node id -> a member remembered, each field of its type. */
export function parsePeersFile(raw: unknown, path: string): Peers {
  if (raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw corruptFile(path);
  for (const [node, p] of Object.entries(raw)) {
    const v = p as Record<string, unknown> | null;
    if (
      !NODE_ID_PATTERN.test(node) ||
      typeof v !== 'object' ||
      v === null ||
      !isMemberName(v.name) ||
      (v.kind !== 'agent' && v.kind !== 'human') ||
      typeof v.lastSeen !== 'number' ||
      !Number.isFinite(v.lastSeen) ||
      (v.about !== undefined && typeof v.about !== 'string') ||
      (v.review !== undefined && v.review !== true)
    )
      throw corruptFile(path);
  }
  return raw as Peers;
}

/**
 * One entry of names.json (member-names.ts): the node id that holds a name, and `spoke` once a
 * message under it was kept here (ADR 0092). A file written before holds the node id alone.
 */
export interface NameRecord {
  node: string;
  spoke?: true;
}

/** names.json (null: absent): which node id holds each name (its entries checked by KnownNames). */
export function parseNamesFile(raw: unknown, path: string): Record<string, unknown> {
  if (raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw corruptFile(path);
  return raw as Record<string, unknown>;
}

/** outbox.json (null: absent): the queued messages (isQueuedMessageList), unknown fields dropped. */
export function parseOutboxFile(raw: unknown, path: string): QueuedMessage[] {
  if (raw === null) return [];
  if (!isQueuedMessageList(raw)) throw corruptFile(path);
  return raw.map((m) => ({
    ...(checkedEnvelope(m) as Envelope),
    ...(m.owed !== undefined ? { owed: m.owed } : {}),
  }));
}

/** transport.json's JSON (null: absent): the record, or undefined when it is not one. */
export function parseTransportRecord(raw: unknown): TransportRecord | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const v = raw as Record<string, unknown>;
  if (typeof v.restarts !== 'number' || typeof v.at !== 'number' || !Number.isInteger(v.pid))
    return undefined;
  return { pid: v.pid as number, restarts: v.restarts, at: v.at, why: String(v.why) };
}

function toProfile(dir: string, profile: string, file: ProfileFile, identity: Identity): Profile {
  const p: Profile = {
    dir,
    profile,
    name: file.name,
    secret: hexToBytes(file.secret),
    createdAt: file.createdAt,
    identity,
  };
  if (file.about !== undefined) p.about = file.about;
  if (file.signalUrl !== undefined) p.signalUrl = file.signalUrl;
  return p;
}

function corruptFile(path: string): PapoError {
  return new PapoError('profile_corrupt', `${path} does not hold what papo expects`);
}

function unwritable(home: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOTDIR' || code === 'EEXIST') {
    return new PapoError('home_unwritable', `cannot write to the papo home ${home} (${code})`, {
      cause: err,
    });
  }
  return err instanceof Error ? err : new Error(String(err));
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR: a file where a folder should be; mkdir reports it as an unwritable home.
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw err;
  }
}
