// Several stateless replicas behind a load balancer behave as one server (ADR 0021).
//
// Membership lives in Redis, one sorted set per topic (peer -> expiry in ms, Redis clock) and one
// hash (peer -> owning socket). The replica holding a socket refreshes its memberships every TTL/3;
// any replica with members on a topic sweeps expired entries and announces them as `left`, so a
// replica that dies leaves no ghost for longer than the TTL (+ one sweep period). Membership events
// and signals for peers on other replicas travel over one pub/sub channel per topic, to which a
// replica subscribes while it has local members there. Every change is a Lua script, so the check
// and the write (and the PUBLISH) are one atomic step.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { PEER_PATTERN } from '../signal-protocol.js';
import { deliver, type Entry, type Hub, type JoinResult, LocalRooms, type Member, text } from './hub.js';
import type { Metrics } from './metrics.js';
import { jsonObject, parseForwardedSignal } from './parse.js';

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Lua that removes the members of KEYS[1]/KEYS[2] whose expiry is past `now` and announces each as
 * `left` on the channel named by `channel` (an ARGV reference); leaves them in `expired`.
 */
function expire(channel: string): string {
  return `local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
for _, p in ipairs(expired) do
  local o = redis.call('HGET', KEYS[2], p) or ''
  redis.call('ZREM', KEYS[1], p)
  redis.call('HDEL', KEYS[2], p)
  redis.call('PUBLISH', ${channel}, cjson.encode({k = 'l', p = p, o = o}))
end`;
}

/** KEYS: members, owners. ARGV: peer, owner, ttl, max peers, channel. Returns the members or nil. */
const JOIN = `${NOW}
local ttl = tonumber(ARGV[3])
${expire('ARGV[5]')}
local present = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not present and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return nil end
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local before = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
if before ~= ARGV[2] then
  redis.call('PUBLISH', ARGV[5], cjson.encode({k = 'j', p = ARGV[1], o = ARGV[2]}))
end
return members
`;

/** KEYS: members, owners. ARGV: peer, owner, channel. Only the owning socket may leave. */
const LEAVE = `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[3], cjson.encode({k = 'l', p = ARGV[1], o = ARGV[2]}))
return 1
`;

/**
 * KEYS: members, owners. ARGV: peer, owner, ttl, channel.
 * 0 = another socket owns it now; 1 = refreshed; 2 = it had expired (this replica lost Redis for
 * longer than the TTL) and is announced again.
 */
const REFRESH = `${NOW}
local ttl = tonumber(ARGV[3])
local cur = redis.call('HGET', KEYS[2], ARGV[1])
if cur and cur ~= ARGV[2] then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
if not cur then
  redis.call('PUBLISH', ARGV[4], cjson.encode({k = 'j', p = ARGV[1], o = ARGV[2]}))
  return 2
end
return 1
`;

/** KEYS: members, owners. ARGV: channel. Removes and announces expired members. */
const SWEEP = `${NOW}
${expire('ARGV[1]')}
return #expired
`;

/** KEYS: members. ARGV: peer, channel, payload. Publishes only to a live member. */
const SIGNAL = `${NOW}
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s or tonumber(s) < now then return 0 end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`;

type Reply = Promise<unknown>;
interface Scripts {
  papoJoin(m: string, o: string, peer: string, owner: string, ttl: number, max: number, ch: string): Reply;
  papoLeave(m: string, o: string, peer: string, owner: string, ch: string): Reply;
  papoRefresh(m: string, o: string, peer: string, owner: string, ttl: number, ch: string): Reply;
  papoSweep(m: string, o: string, ch: string): Reply;
  papoSignal(m: string, peer: string, ch: string, payload: string): Reply;
}
type ScriptPipeline = { [K in keyof Scripts]: (...args: Parameters<Scripts[K]>) => unknown } & {
  exec(): Promise<[Error | null, unknown][] | null>;
};

export interface RedisHubOptions {
  url: string;
  prefix: string;
  ttlMs: number;
  maxPeersPerTopic: number;
  /** A client's frame limit: a signal from another replica is held to the same bound. */
  maxMessageBytes: number;
  metrics: Metrics;
  log: (line: string) => void;
}

interface PeerEvent {
  k: 'j' | 'l';
  p: string;
  o: string;
}

/**
 * What an event on a topic's channel asks of this replica, once checked: a signal for one of its
 * members (the frame written anew from the checked fields), a membership change, nothing (a signal
 * for a peer elsewhere), or a string saying why it is not an event any replica writes.
 */
type ChannelEvent = { to: string; frame: string } | PeerEvent | undefined | string;

/** An owner as `join` writes it ("<replica>.<socket id>"), or '' for an entry that had none. */
const OWNER = /^(?:[0-9a-f]{12}\.[1-9][0-9]{0,15})?$/;
/** Longer than any membership event a replica publishes (cjson of { k, p, o }, about 110 bytes). */
const MAX_PEER_EVENT = 256;

/**
 * Reads an event from the channel of `topic`. Whoever can write to Redis can publish there too, so
 * nothing is believed: a signal meets the rules a client's signal meets (parse.ts), a membership
 * event names a peer id and an owner in the form replicas write them.
 */
function readEvent(
  message: string,
  topic: string,
  isLocal: (peer: string) => boolean,
  maxMessageBytes: number,
): ChannelEvent {
  if (message.startsWith('s')) {
    // "s" + 64 hex chars of the addressee + the frame as the addressee will receive it.
    const to = message.slice(1, 65);
    if (!PEER_PATTERN.test(to)) return 'a signal without an addressee';
    // Every replica on the topic hears every signal; only the addressee's reads the frame.
    if (!isLocal(to)) return undefined;
    const f = parseForwardedSignal(message.slice(65), maxMessageBytes);
    if (!f.ok) return f.reason;
    if (f.topic !== topic) return "a signal of another topic on this topic's channel";
    return { to, frame: text.signal(topic, f.from, f.data, f.plain) };
  }
  if (message.length > MAX_PEER_EVENT) return 'a membership event larger than replicas write';
  const value = jsonObject(message);
  if (typeof value === 'string') return value;
  const { k, p, o } = value;
  if (k !== 'j' && k !== 'l') return 'an unknown kind of event';
  if (typeof p !== 'string' || !PEER_PATTERN.test(p))
    return 'a peer id that is not 64 lower-case hex characters';
  if (typeof o !== 'string' || !OWNER.test(o)) return 'an owner not in the form replicas write';
  return { k, p, o };
}

export class RedisHub implements Hub {
  private readonly local = new LocalRooms();
  /** Unique per process, so owners ("<replica>.<socket>") never collide across replicas. */
  private readonly replica = randomBytes(6).toString('hex');
  private readonly subscribed = new Map<string, Promise<unknown>>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private lastErrorLog = 0;
  private lastDropLog = 0;
  private droppedSinceLog = 0;

  private constructor(
    private readonly cmd: Redis & Scripts,
    private readonly sub: Redis,
    private readonly o: RedisHubOptions,
  ) {
    for (const [name, lua, keys] of [
      ['papoJoin', JOIN, 2],
      ['papoLeave', LEAVE, 2],
      ['papoRefresh', REFRESH, 2],
      ['papoSweep', SWEEP, 2],
      ['papoSignal', SIGNAL, 1],
    ] as const) {
      cmd.defineCommand(name, { numberOfKeys: keys, lua });
    }
    sub.on('message', (channel: string, message: string) => this.onChannel(channel, message));
    this.timer = setInterval(() => void this.maintain(), Math.max(100, Math.floor(o.ttlMs / 3)));
    this.timer.unref();
  }

  /** Connects both Redis connections (commands and pub/sub); rejects when Redis is unreachable. */
  static async connect(o: RedisHubOptions): Promise<RedisHub> {
    // Once the start has failed, ioredis must stop redialling (its sockets would keep the
    // process alive): the retry strategy answers null from then on.
    let gaveUp = false;
    const options = {
      lazyConnect: true,
      maxRetriesPerRequest: 3,
      connectTimeout: 5000,
      retryStrategy: (attempt: number) => (gaveUp ? null : Math.min(attempt * 200, 2000)),
    };
    const cmd = new Redis(o.url, options);
    const sub = new Redis(o.url, options);
    let lastLog = 0;
    const onError = (err: Error) => {
      // ioredis reports every failed reconnect; one line per 10 s is enough for an operator.
      const now = Date.now();
      if (now - lastLog > 10_000) {
        lastLog = now;
        o.log(`redis: ${err.message}`);
      }
    };
    cmd.on('error', onError);
    sub.on('error', onError);
    try {
      await withTimeout(Promise.all([cmd.connect(), sub.connect()]), 10_000);
    } catch (err) {
      gaveUp = true;
      cmd.disconnect();
      sub.disconnect();
      throw new Error('cannot reach Redis (PAPO_SIGNAL_REDIS)', { cause: err });
    }
    return new RedisHub(cmd as Redis & Scripts, sub, o);
  }

  private keys(topic: string): [string, string, string] {
    const p = this.o.prefix;
    return [`${p}m:${topic}`, `${p}o:${topic}`, `${p}c:${topic}`];
  }

  private subscribe(topic: string): Promise<unknown> {
    let pending = this.subscribed.get(topic);
    if (pending === undefined) {
      pending = this.sub.subscribe(this.keys(topic)[2]);
      this.subscribed.set(topic, pending);
    }
    return pending;
  }

  private unsubscribeIfEmpty(topic: string): void {
    if (this.local.rooms.has(topic) || !this.subscribed.has(topic)) return;
    this.subscribed.delete(topic);
    this.sub.unsubscribe(this.keys(topic)[2]).catch((err: unknown) => this.fail(err));
  }

  async join(member: Member, topic: string, peer: string): Promise<JoinResult> {
    const [m, o, channel] = this.keys(topic);
    const current = this.local.get(topic, peer);
    let entry: Entry;
    if (current?.member === member) {
      entry = current;
    } else {
      // Registered before the script runs, with a queue: events published after the script are
      // caught and held until the `peers` list has gone out, so none is lost or reordered.
      entry = { member, owner: `${this.replica}.${member.id}`, queue: [] };
      const old = this.local.set(topic, peer, entry);
      if (old !== undefined && old.member !== member) deliver(old, text.left(topic, peer));
    }
    try {
      await this.subscribe(topic);
      const members = (await this.cmd.papoJoin(
        m,
        o,
        peer,
        entry.owner,
        this.o.ttlMs,
        this.o.maxPeersPerTopic,
        channel,
      )) as string[] | null;
      if (members === null) {
        this.local.delete(topic, peer, member);
        this.unsubscribeIfEmpty(topic);
        return 'room_full';
      }
      member.sendText(
        text.peers(
          topic,
          members.filter((p) => p !== peer),
        ),
      );
      const queued = entry.queue;
      entry.queue = undefined;
      for (const message of queued ?? []) member.sendText(message);
      return 'ok';
    } catch (err) {
      this.local.delete(topic, peer, member);
      this.unsubscribeIfEmpty(topic);
      throw err;
    }
  }

  async leave(member: Member, topic: string): Promise<void> {
    const peer = member.topics.get(topic);
    if (peer === undefined) return;
    const entry = this.local.get(topic, peer);
    if (entry === undefined || entry.member !== member) {
      member.topics.delete(topic);
      return;
    }
    this.local.delete(topic, peer, member);
    const [m, o, channel] = this.keys(topic);
    try {
      // Local members hear `left` through the channel like everyone else.
      await this.cmd.papoLeave(m, o, peer, entry.owner, channel);
    } finally {
      this.unsubscribeIfEmpty(topic);
    }
  }

  async signal(member: Member, topic: string, to: string, data: string, plain?: boolean): Promise<boolean> {
    const from = member.topics.get(topic);
    if (from === undefined) return false;
    const message = text.signal(topic, from, data, plain);
    const target = this.local.get(topic, to);
    if (target !== undefined) {
      deliver(target, message);
      this.o.metrics.signalsForwarded++;
      return true;
    }
    const [m, , channel] = this.keys(topic);
    // "s" + 64 hex chars of the addressee + the message as the addressee will receive it.
    return (await this.cmd.papoSignal(m, to, channel, `s${to}${message}`)) === 1;
  }

  async dropMember(member: Member): Promise<void> {
    const results = await Promise.allSettled([...member.topics.keys()].map((t) => this.leave(member, t)));
    for (const r of results) if (r.status === 'rejected') this.fail(r.reason);
  }

  private onChannel(channel: string, message: string): void {
    const topic = channel.slice(this.o.prefix.length + 2);
    const room = this.local.rooms.get(topic);
    if (room === undefined) return;
    const event = readEvent(message, topic, (peer) => room.has(peer), this.o.maxMessageBytes);
    if (event === undefined) return;
    if (typeof event === 'string') {
      this.dropped(event);
      return;
    }
    if ('frame' in event) {
      const entry = room.get(event.to);
      if (entry !== undefined) {
        deliver(entry, event.frame);
        this.o.metrics.signalsForwarded++;
      }
      return;
    }
    if (event.k === 'j') {
      const entry = room.get(event.p);
      // A newer socket (maybe on another replica) took this peer id over: newest wins. A pending
      // join is left alone: its own script decides, and a refresh corrects the rare race.
      if (entry !== undefined && entry.owner !== event.o && entry.queue === undefined) {
        this.local.delete(topic, event.p, entry.member);
        deliver(entry, text.left(topic, event.p));
        this.unsubscribeIfEmpty(topic);
      }
      this.local.broadcast(topic, event.p, text.joined(topic, event.p));
    } else if (event.k === 'l') {
      // If it is our own live member, swept after a Redis outage longer than the TTL, the others
      // have heard `left` too; the next refresh re-adds it and announces `joined` again.
      this.local.broadcast(topic, event.p, text.left(topic, event.p));
    }
  }

  /** Refreshes this replica's memberships and sweeps expired ones on its topics. */
  private async maintain(): Promise<void> {
    if (this.closed || this.cmd.status !== 'ready' || this.local.rooms.size === 0) return;
    const pipeline = this.cmd.pipeline() as unknown as ScriptPipeline;
    // One slot per pipelined command, in order: a refreshed membership, or null for a sweep.
    const slots: ([string, string, Entry] | null)[] = [];
    for (const [topic, room] of this.local.rooms) {
      const [m, o, channel] = this.keys(topic);
      for (const [peer, entry] of room) {
        if (entry.queue !== undefined) continue; // its join script is still running
        pipeline.papoRefresh(m, o, peer, entry.owner, this.o.ttlMs, channel);
        slots.push([topic, peer, entry]);
      }
      pipeline.papoSweep(m, o, channel);
      slots.push(null);
    }
    let results: [Error | null, unknown][];
    try {
      results = (await pipeline.exec()) ?? [];
    } catch (err) {
      this.fail(err);
      return;
    }
    for (const [i, [err, value]] of results.entries()) {
      const slot = slots[i];
      if (err !== null) {
        this.fail(err);
        continue;
      }
      if (slot === null || slot === undefined || value !== 0) continue;
      // Another socket owns this peer id now and we missed its `joined` (e.g. during an outage).
      const [topic, peer, entry] = slot;
      if (this.local.delete(topic, peer, entry.member)) {
        deliver(entry, text.left(topic, peer));
        this.unsubscribeIfEmpty(topic);
      }
    }
  }

  /**
   * An event that no replica wrote (something else publishes on papo's channels) is dropped and
   * counted; the log says so in papo's words only, never with the event's bytes (they could carry
   * terminal escapes, or anything), and at most one line per 10 s with the count since the last.
   */
  private dropped(reason: string): void {
    this.o.metrics.redisEventsDropped++;
    this.droppedSinceLog++;
    const now = Date.now();
    if (now - this.lastDropLog < 10_000) return;
    this.lastDropLog = now;
    const n = this.droppedSinceLog;
    this.droppedSinceLog = 0;
    this.o.log(
      `redis: dropped ${n} event${n === 1 ? '' : 's'} on papo's channels that no replica wrote (last: ${reason}); ` +
        'something else can write to this Redis: protect it (docs/signal-server.md, "Several replicas")',
    );
  }

  private fail(err: unknown): void {
    const now = Date.now();
    if (now - this.lastErrorLog < 10_000) return;
    this.lastErrorLog = now;
    this.o.log(`redis: ${err instanceof Error ? err.message : String(err)}`);
  }

  counts(): { topics: number; peers: number } {
    return { topics: this.local.rooms.size, peers: this.local.peers };
  }

  healthy(): boolean {
    return this.cmd.status === 'ready' && this.sub.status === 'ready';
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    const leaving: Promise<void>[] = [];
    for (const room of this.local.rooms.values()) {
      for (const entry of room.values()) leaving.push(Promise.resolve(this.dropMember(entry.member)));
    }
    await Promise.allSettled(leaving);
    this.cmd.disconnect();
    this.sub.disconnect();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
