// `papo say` handed to the profile's running papo mcp (ADR 0102): the member listens on a Unix
// socket in the profile folder (member.sock, 0600 in the 0700 folder, only while it holds the
// profile's lock), a say writes one JSON line with what it says and the id and time it chose, and
// the member runs the say over the links it already has (person-say.ts) and answers one line with
// how it ended. A say that finds no socket, or nobody listening on it, runs its own ephemeral
// member as before; one whose member goes away before answering sends the same say (same id,
// same signed bytes) itself, so it is neither lost nor kept twice. What the CLI loads of it stays
// small (no wire crypto, no store): a handed say is a person's quick word.
//
// The same socket answers `papo status` (ADR 0103): a line `{"status":{"waitMs":N}}` is answered
// with the member's view of the room (who is online, by which path, its network, the profile's
// queues). One request per connection, one line each way, the same limits. A line of a kind the
// member does not know is answered `{"error":"unknown request"}` (a member older than "status"
// answers `{"error":"not a say"}`), and an answer the CLI does not know is no answer: either way
// the CLI does what it did before the socket, on its own.
//
// On Windows the member listens on a named pipe instead (sayEndpoint): Node speaks to both through
// the same net calls, but a pipe is no file in the profile folder, so the folder's mode does not
// keep it private; its name does.
import { createHash } from 'node:crypto';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { messageOf } from '../errors.js';
import type { Log } from '../log.js';
import type { MemberStatus, NetworkHealth, SendResult } from '../member-api.js';
import type { SignalState } from '../net/health.js';
import { readNoFollowSync } from '../store/no-follow.js';
import { SAY_SOCKET, SECRET_KEY_FILE } from '../store/profile-files.js';
import type { QueueSummary } from '../store/profile-store.js';
import { isFrameTime } from '../wire/frame-time.js';
import { MAX_BODY_BYTES } from '../wire/limits.js';
import { isMemberName, MESSAGE_ID_PATTERN } from '../wire/names.js';
import { type PersonSay, SAY_LONGEST_MS, type SayOutcome, type SayRoom, sayInRoom } from './person-say.js';

/** The longest line either side reads: a say of 48 KiB, escaped as JSON, and room to spare. */
const MAX_LINE_BYTES = 512 * 1024;

/** The member's answer: how the say ended, and for nobody online, its view of the network. */
export interface HandedAnswer {
  outcome: SayOutcome;
  /** Present when nobody had it: what the CLI's network notes read (network-notes.ts). */
  network?: NetworkHealth;
  members?: MemberStatus[];
}

/** What a say handed over became: answered, nobody to hand it to, or the member went away. */
export type Handed = { answer: HandedAnswer } | 'none' | 'lost';

/** What the listening member runs a say on: its room, and its person's send (RoomNode.sayAsPerson). */
export interface SayHost extends SayRoom {
  sayAsPerson(say: PersonSay, ackTimeoutMs: number, acked: (by: string) => void): Promise<SendResult>;
  /** Its view of the room for `papo status`, once seen (room-view.ts) or after `waitMs`. */
  status?(waitMs: number): Promise<StatusView>;
}

/** The running member's answer to `papo status`: what the CLI prints (src/cli/commands/status.ts). */
export interface StatusView {
  /** The profile, the person's name in the room, the room's id, the agent's node id. */
  profile: string;
  name: string;
  roomId: string;
  node: string;
  /** The members it knows, its own agent among them (online, no path: it has no link to itself). */
  members: MemberStatus[];
  /** Who is on the room's topic at the signal server (node ids), and whether it joined. */
  signal: Pick<SignalState, 'joined' | 'peers'>;
  network: NetworkHealth;
  queues: QueueSummary;
  /**
   * How room messages reach the agent in that papo mcp's session (ADR 0118): its push route, the
   * client's door papo found and why it is off. Absent from an older papo mcp's answer, and from a
   * look of the CLI's own.
   */
  push?: PushSeen;
}

/** A papo mcp's push route as `papo status` and `papo doctor` read it (src/mcp/push-contract.ts's PushView). */
export interface PushSeen {
  /** 'channel', a client's door ('claude-session', 'qwen-session', 'codex-queue') or 'none'. */
  route: string;
  channelsAsked: boolean;
  proven: boolean;
  door?: string;
  doorOff?: { why: string; detail?: string };
}

/** The longest `papo status` may ask the member to wait (its --timeout: 600 s at most). */
const MAX_STATUS_WAIT_MS = 600_000;

/** Where the running member takes says: a Unix socket's path, or a Windows named pipe's name. */
export interface SayEndpoint {
  path: string;
  /** A named pipe: no file to look at, make 0600 or remove (it goes away with its process). */
  pipe: boolean;
}

/**
 * The longest Unix socket path `platform` takes, in bytes: sun_path less its closing NUL, 108 on
 * Linux and 104 on macOS and the BSDs. Past it Node 24's libuv refuses to listen (EINVAL), and
 * Node 20's and 22's cut the path short without a word (measured on Linux: they listened on
 * another name, which nobody asks), so a longer path is not tried.
 */
export function maxSocketPathBytes(platform: NodeJS.Platform): number {
  return platform === 'linux' || platform === 'android' ? 107 : 103;
}

/** Said in the pipe's name hash, so that it is no hash of the key made for anything else. */
const PIPE_CONTEXT = 'papo 2026 member pipe\0';

/**
 * Where the profile in `dir` takes says on `platform`, or undefined when it has no such place and
 * papo say links by itself. A Unix socket in the profile folder, private by the folder's 0700, when
 * its path fits the platform's socket address: `$PAPO_HOME/profiles/<profile>/member.sock` is
 * PAPO_HOME plus at most 54 bytes, so a PAPO_HOME of up to 49 bytes always fits on macOS and 53 on
 * Linux. On Windows a named pipe: pipes share one namespace for the whole machine, which every user
 * can list and in which anyone may take a free name first, so the name comes from the member's
 * secret key (`secretKeyText`, secret.key's text; null when it cannot be read): only who can read
 * the profile's files can find the pipe or take its name, as only they can reach the folder's
 * socket elsewhere. The hash tells nothing of the key.
 */
export function sayEndpoint(
  dir: string,
  platform: NodeJS.Platform,
  secretKeyText: () => string | null,
): SayEndpoint | undefined {
  if (platform === 'win32') {
    const key = secretKeyText()?.trim();
    if (!key) return undefined;
    const name = createHash('sha256').update(PIPE_CONTEXT).update(key).digest('hex').slice(0, 32);
    return { path: `\\\\.\\pipe\\papo-${name}`, pipe: true };
  }
  const path = join(dir, SAY_SOCKET);
  return Buffer.byteLength(path) <= maxSocketPathBytes(platform) ? { path, pipe: false } : undefined;
}

/** This machine's place for the profile in `dir` (a link at secret.key names no pipe). */
function endpoint(dir: string): SayEndpoint | undefined {
  return sayEndpoint(dir, process.platform, () => {
    try {
      return readNoFollowSync(join(dir, SECRET_KEY_FILE));
    } catch {
      return null;
    }
  });
}

/** Is something other than a Unix socket at `at` (a pipe has no file to look at)? */
async function notASocket(at: SayEndpoint): Promise<boolean> {
  if (at.pipe) return false;
  // Only a socket is spoken to: a link in its place is never followed.
  const there = await lstat(at.path).catch(() => undefined);
  return !there?.isSocket();
}

/**
 * A say as a line carries it, checked as the CLI checks its own words and its time as the wire
 * checks a frame's against `now` (ADR 0119); null if it is not one.
 */
export function checkedSay(value: unknown, now = Date.now()): PersonSay | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const isId = (x: unknown): x is string => typeof x === 'string' && MESSAGE_ID_PATTERN.test(x);
  if (!isId(v.id) || !isFrameTime(v.ts, now)) return null;
  if (typeof v.body !== 'string' || v.body.trim() === '' || Buffer.byteLength(v.body) > MAX_BODY_BYTES)
    return null;
  if (v.to !== undefined && !isMemberName(v.to)) return null;
  if (v.replyTo !== undefined && !isId(v.replyTo)) return null;
  return {
    id: v.id,
    ts: v.ts,
    body: v.body,
    ...(v.to !== undefined ? { to: v.to as string } : {}),
    ...(v.replyTo !== undefined ? { replyTo: v.replyTo as string } : {}),
  };
}

/** Calls `line` with each line `socket` sends (up to MAX_LINE_BYTES); `tooLong` past that. */
function readLines(socket: Socket, line: (text: string) => void, tooLong: () => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const text = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      line(text);
    }
    if (buffered.length > MAX_LINE_BYTES) tooLong();
  });
}

/**
 * Listens for handed says while this member holds the profile; returns what stops it (and removes
 * the socket). A socket left by a papo mcp that was killed is removed first: the lock is ours, so
 * nobody else listens on it. Where the socket cannot be made (a path too long for one), says run
 * their own member, as before.
 */
export async function listenForSays(dir: string, host: SayHost, log: Log): Promise<() => Promise<void>> {
  const at = endpoint(dir);
  if (at === undefined) {
    const why =
      process.platform === 'win32'
        ? 'no secret.key to name its pipe by'
        : "the profile's path is too long for a socket";
    log(`no ${SAY_SOCKET}: ${why}; papo say links by itself`);
    return async () => {};
  }
  const { path } = at;
  // lstat: a link there is removed as a link, never followed. A pipe leaves nothing behind.
  const there = at.pipe ? undefined : await lstat(path).catch(() => undefined);
  if (there?.isSocket() || there?.isSymbolicLink()) await unlink(path).catch(() => {});
  else if (there !== undefined) {
    log(`no ${SAY_SOCKET}: something else is there; papo say links by itself`);
    return async () => {};
  }
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {}); // the say went away: what it asked still runs to its end
    let taken = false;
    readLines(
      socket,
      (text) => {
        if (taken) return;
        taken = true;
        void request(host, text, log).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
      },
      () => socket.destroy(),
    );
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', (err) => {
      log(`no ${SAY_SOCKET}: ${messageOf(err)}; papo say links by itself`);
      resolve(false);
    });
    server.listen(path, () => resolve(true));
  });
  if (!listening) return async () => {};
  // The 0700 folder already keeps everyone else out; the socket is 0600 like every file of it.
  if (!at.pipe) await chmod(path, 0o600).catch((err: unknown) => log(`${SAY_SOCKET}: ${messageOf(err)}`));
  server.on('error', (err) => log(`${SAY_SOCKET}: ${messageOf(err)}`));
  return async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // A say still waiting for its acks is cut: it sends the same say itself (handSay).
      for (const socket of sockets) socket.destroy();
    });
    if (!at.pipe) await unlink(path).catch(() => {});
  };
}

/** A request line: a say, a status, or an error for a line of a kind this member does not know. */
async function request(host: SayHost, text: string, log: Log): Promise<object> {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch {
    return { error: 'not a request' };
  }
  if (typeof line !== 'object' || line === null) return { error: 'not a request' };
  if ('say' in line) return answer(host, checkedSay(line.say), log);
  if ('status' in line && host.status !== undefined) {
    const asked = line.status as { waitMs?: unknown } | null;
    const waitMs = typeof asked?.waitMs === 'number' && asked.waitMs >= 0 ? asked.waitMs : 0;
    try {
      const status = await host.status(Math.min(waitMs, MAX_STATUS_WAIT_MS));
      log(`papo status: answered (${status.members.length} members)`);
      return { status };
    } catch (err) {
      log(`papo status asked this member and failed: ${messageOf(err)}`);
      return { error: 'no status' };
    }
  }
  return { error: 'unknown request' };
}

async function answer(
  host: SayHost,
  say: PersonSay | null,
  log: Log,
): Promise<HandedAnswer | { error: string }> {
  if (say === null) return { error: 'not a say' };
  const outcome = await sayInRoom(host, say, (s, ms, acked) => host.sayAsPerson(s, ms, acked)).catch(
    (err: unknown) => {
      log(`a say of the person failed: ${messageOf(err)}`);
      return undefined;
    },
  );
  // Closing, or a disk error: the say is the CLI's to send again (the same bytes).
  if (outcome === undefined) return { error: 'not sent' };
  log(`said ${say.id} for the person: ${outcome.t}`);
  if (outcome.t !== 'no_known_members' && outcome.t !== 'nobody_online') return { outcome };
  return { outcome, network: await host.member.network(), members: host.member.members() };
}

/**
 * Hands `say` to the profile's running papo mcp, if one listens: its answer, 'none' when nobody
 * listens (no socket, a stale one, an older papo mcp's refusal), 'lost' when the member went away
 * before answering (the say may or may not have gone out: send the same one again).
 */
export async function handSay(dir: string, say: PersonSay, waitMs = SAY_LONGEST_MS + 5_000): Promise<Handed> {
  // A member that says nothing for longer than any say takes is as good as gone.
  const reply = await ask(dir, { say }, waitMs);
  if (reply === 'none') return 'none';
  // Refused or not sent: nothing confirmed, so the say runs its own member, same id.
  if (typeof reply !== 'object' || reply === null || !('outcome' in reply)) return 'lost';
  return { answer: reply as HandedAnswer };
}

/**
 * Asks the profile's running papo mcp for its view of the room (ADR 0103), letting it wait up to
 * `waitMs` for the room to show itself: its view, or undefined when nobody listens, it went away,
 * or it answered something else (an older papo mcp: "not a say"), and the CLI looks by itself.
 * `answerMs` bounds the whole ask (a papo mcp that is frozen never answers).
 */
export async function askStatus(
  dir: string,
  waitMs: number,
  answerMs = waitMs + 5_000,
): Promise<StatusView | undefined> {
  const reply = await ask(dir, { status: { waitMs } }, answerMs);
  if (typeof reply !== 'object' || reply === null) return undefined;
  return checkedStatus((reply as { status?: unknown }).status);
}

/**
 * The one way to member.sock: a request line, and the one line it answers, parsed; 'none' when
 * nobody listens (no socket, a stale one), 'lost' when the member went away or said nothing
 * within `waitMs`, or answered what is not JSON.
 */
async function ask(dir: string, line: object, waitMs: number): Promise<unknown> {
  const at = endpoint(dir);
  if (at === undefined || (await notASocket(at))) return 'none';
  const { path } = at;
  return new Promise<unknown>((resolve) => {
    let connected = false;
    let done = false;
    const end = (value: unknown) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const socket = connect(path, () => {
      connected = true;
      socket.write(`${JSON.stringify(line)}\n`);
    });
    const timer = setTimeout(() => end('lost'), waitMs);
    readLines(
      socket,
      (text) => {
        try {
          end(JSON.parse(text));
        } catch {
          end('lost');
        }
      },
      () => end('lost'),
    );
    socket.on('error', () => end(connected ? 'lost' : 'none'));
    socket.on('close', () => end(connected ? 'lost' : 'none'));
  });
}

/** A status answer as the CLI prints it, or undefined when it is not one (then it looks itself). */
export function checkedStatus(value: unknown): StatusView | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<Record<keyof StatusView, unknown>>;
  const str = (x: unknown) => typeof x === 'string';
  if (!str(v.profile) || !str(v.name) || !str(v.roomId) || !str(v.node)) return undefined;
  const isMember = (m: unknown) => {
    if (typeof m !== 'object' || m === null) return false;
    const x = m as Record<string, unknown>;
    return (
      str(x.name) && str(x.node) && typeof x.online === 'boolean' && (x.about === undefined || str(x.about))
    );
  };
  if (!Array.isArray(v.members) || !v.members.every(isMember)) return undefined;
  const signal = v.signal as Partial<StatusView['signal']> | null | undefined;
  if (typeof signal?.joined !== 'boolean' || !Array.isArray(signal.peers) || !signal.peers.every(str))
    return undefined;
  const network = v.network as Partial<NetworkHealth> | null | undefined;
  if (
    typeof network?.signalUrl !== 'string' ||
    typeof network.signal !== 'object' ||
    typeof network.transport !== 'object'
  )
    return undefined;
  const queues = v.queues as Partial<QueueSummary> | null | undefined;
  if (
    typeof queues?.queued !== 'number' ||
    typeof queues.unread !== 'number' ||
    typeof queues.held !== 'number' ||
    typeof queues.reviewing !== 'boolean' ||
    !Array.isArray(queues.owed)
  )
    return undefined;
  // An answer with a push that is not one is still a status: the push line is left out.
  if (v.push !== undefined && !isPushSeen(v.push)) {
    const { push: _, ...rest } = value as StatusView;
    return rest;
  }
  return value as StatusView;
}

function isPushSeen(value: unknown): value is PushSeen {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  const off = p.doorOff as Record<string, unknown> | null | undefined;
  return (
    typeof p.route === 'string' &&
    typeof p.channelsAsked === 'boolean' &&
    typeof p.proven === 'boolean' &&
    (p.door === undefined || typeof p.door === 'string') &&
    (off === undefined ||
      (typeof off === 'object' &&
        off !== null &&
        typeof off.why === 'string' &&
        (off.detail === undefined || typeof off.detail === 'string')))
  );
}
