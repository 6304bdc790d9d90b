// `papo say` handed to the profile's running papo mcp (ADR 0102): the member listens on a Unix
// socket in the profile folder (member.sock, 0600 in the 0700 folder, only while it holds the
// profile's lock), a say writes one JSON line with what it says and the id and time it chose, and
// the member runs the say over the links it already has (person-say.ts) and answers one line with
// how it ended. A say that finds no socket, or nobody listening on it, runs its own ephemeral
// member as before; one whose member goes away before answering sends the same say (same id,
// same signed bytes) itself, so it is neither lost nor kept twice. What the CLI loads of it stays
// small (no wire crypto, no store): a handed say is a person's quick word.
import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { messageOf } from '../errors.js';
import type { Log } from '../log.js';
import type { MemberStatus, NetworkHealth, SendResult } from '../member-api.js';
import { SAY_SOCKET } from '../store/profile-files.js';
import { MAX_BODY_BYTES } from '../wire/limits.js';
import { isMemberName, MESSAGE_ID_PATTERN } from '../wire/names.js';
import { type PersonSay, SAY_LONGEST_MS, type SayOutcome, type SayRoom, sayInRoom } from './person-say.js';

/** A Unix socket's path must fit in sun_path (108 bytes on Linux, with its closing NUL). */
const MAX_SOCKET_PATH_BYTES = 107;
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
}

function socketPath(dir: string): string | undefined {
  const path = join(dir, SAY_SOCKET);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES ? path : undefined;
}

/** A say as a line carries it, checked as the CLI checks its own words; null if it is not one. */
export function checkedSay(value: unknown): PersonSay | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const isId = (x: unknown): x is string => typeof x === 'string' && MESSAGE_ID_PATTERN.test(x);
  if (!isId(v.id) || typeof v.ts !== 'number' || !Number.isSafeInteger(v.ts)) return null;
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
  const path = socketPath(dir);
  if (path === undefined) {
    log(`no ${SAY_SOCKET}: the profile's path is too long for a socket; papo say links by itself`);
    return async () => {};
  }
  // lstat: a link there is removed as a link, never followed.
  const there = await lstat(path).catch(() => undefined);
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
        void answer(host, text, log).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
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
  await chmod(path, 0o600).catch((err: unknown) => log(`${SAY_SOCKET}: ${messageOf(err)}`));
  server.on('error', (err) => log(`${SAY_SOCKET}: ${messageOf(err)}`));
  return async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // A say still waiting for its acks is cut: it sends the same say itself (handSay).
      for (const socket of sockets) socket.destroy();
    });
    await unlink(path).catch(() => {});
  };
}

async function answer(host: SayHost, text: string, log: Log): Promise<HandedAnswer | { error: string }> {
  let say: PersonSay | null = null;
  try {
    say = checkedSay((JSON.parse(text) as { say?: unknown }).say);
  } catch {
    // not JSON: answered below
  }
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
  const path = socketPath(dir);
  if (path === undefined) return 'none';
  // Only a socket is spoken to: a link in its place is never followed.
  const there = await lstat(path).catch(() => undefined);
  if (!there?.isSocket()) return 'none';
  return new Promise<Handed>((resolve) => {
    let connected = false;
    let done = false;
    const end = (value: Handed) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const socket = connect(path, () => {
      connected = true;
      socket.write(`${JSON.stringify({ say })}\n`);
    });
    // A member that says nothing for longer than any say takes is as good as gone.
    const timer = setTimeout(() => end('lost'), waitMs);
    readLines(
      socket,
      (text) => {
        let reply: Partial<HandedAnswer> & { error?: string };
        try {
          reply = JSON.parse(text) as typeof reply;
        } catch {
          return end('lost');
        }
        if (reply.outcome !== undefined) return end({ answer: reply as HandedAnswer });
        // Refused or not sent: nothing confirmed, so the say runs its own member, same id.
        end('lost');
      },
      () => end('lost'),
    );
    socket.on('error', () => end(connected ? 'lost' : 'none'));
    socket.on('close', () => end(connected ? 'lost' : 'none'));
  });
}
