// The chaos driver: real `papo mcp` members in the NAT lab (member i on site i % 2, both sites
// behind endpoint-independent NAT, `papo signal` in the public segment) exchange addressed,
// numbered messages, addressed or to the whole room, while faults are injected: kill -9 of a member and its restart, a site cut
// off from the public segment and restored, the signal server killed and restarted, and a
// member's transport process frozen with SIGSTOP (as the native deadlock of ADR 0055 leaves it),
// which papo mcp must end and start again by itself (ADR 0057). At the end
// everything is healed, the room settles, and the counts come from the members' own files:
// - lost: an `out` entry in a sender's log.jsonl whose id never appears as `in` in the
//   addressee's log, or, for a message to the room, in the log of each other member (ADR 0063:
//   every member gets every message; counted per recipient; must be 0);
// - duplicates handed to an agent: an id returned twice by the `inbox` tool to the same member,
//   across restarts (must be 0); duplicates stored: an id twice as `in` in one log (must be 0);
// - left queued: what is still in outbox.json after the settle time.
// Used by tests/chaos/chaos.test.ts (short) and bench/chaos.ts (long).
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createNatLab, type NatLab } from '../nat/lab.js';
import { startLabSignal } from '../nat/lab-signal.js';
import { type Member, startMember } from '../support/members.js';
import { webRtcChildren } from '../support/processes.js';
import { makeRoom, type Room } from '../support/room.js';

export interface ChaosOptions {
  members: number;
  messages: number;
  faults: number;
  seed: number;
  /** Pause between two sends (the whole room), ms. */
  sendIntervalMs: number;
  /** Pause between the end of a fault and the next one, ms (randomised ±50%). */
  faultIntervalMs: number;
  /** How long a fault lasts (member down, site cut, signal down), ms (randomised ±50%). */
  faultDurationMs: number;
  /** Longest wait for the room to settle at the end. */
  settleMs: number;
  /** Every how many messages one goes to the whole room (no `to`); 0: all are addressed. */
  roomEvery?: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  members: number;
  messages: number;
  faults: { kill: number; cut: number; signal: number; freeze: number };
  /** Messages the senders' logs hold as sent. */
  sent: number;
  /** Send calls cut short by a kill (the message may or may not exist). */
  interruptedSends: number;
  /** Messages to the whole room among those sent. */
  roomMessages: number;
  /** Copies missing, per recipient: an addressed message counts once, one to the room once per member. */
  lost: number;
  /** `id@member` of each copy missing. */
  lostIds: string[];
  duplicatesToAgent: number;
  duplicatesStored: number;
  leftQueued: number;
  /** Messages the agents got through `inbox` / all stored. */
  handedToAgents: number;
  seconds: number;
}

const SIGNAL_PORT = 8452;

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface LogLine {
  ev: string;
  msg?: { id: string; from: string; to?: string; body: string };
}

function readLog(home: string): LogLine[] {
  let text = '';
  try {
    text = readFileSync(join(home, 'profiles', 'default', 'log.jsonl'), 'utf8');
  } catch {
    return [];
  }
  const out: LogLine[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as LogLine);
    } catch {
      // a torn last line (kill -9 while appending) is ignored, as the product does
    }
  }
  return out;
}

function outboxLength(home: string): number {
  try {
    return (JSON.parse(readFileSync(join(home, 'profiles', 'default', 'outbox.json'), 'utf8')) as unknown[])
      .length;
  } catch {
    return 0;
  }
}

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const log = o.log ?? (() => {});
  const rand = prng(o.seed);
  const spread = (ms: number) => Math.round(ms * (0.5 + rand()));
  const started = Date.now();
  const lab: NatLab = await createNatLab({ sites: [{ nat: 'eim' }, { nat: 'eim' }] });
  const names = Array.from({ length: o.members }, (_, i) => `m${i}`);
  let signal: ChildProcess | null = null;
  const homes: string[] = [];
  let room: Room<string> | undefined;
  const members: (Member | null)[] = names.map(() => null);
  const seenByAgent = names.map(() => new Map<string, number>());
  let interrupted = 0;
  const faults = { kill: 0, cut: 0, signal: 0, freeze: 0 };
  let stop = false;

  const startSignal = async () => {
    signal = await startLabSignal(lab, null, {}, SIGNAL_PORT);
  };

  // STUN from the lab's coturn (the signal server's welcome may be missing while it is down).
  const env = {
    PAPO_MAX_SENDS_PER_10MIN: '1000000',
    PAPO_ICE_SERVERS: JSON.stringify([{ urls: `stun:${lab.publicIp}:3478` }]),
  };
  const siteOf = (i: number) => lab.sites[i % 2] as NatLab['sites'][0];
  const start = async (i: number) => {
    members[i] = await startMember(names[i] as string, homes[i] as string, { ns: siteOf(i).ns, env });
  };

  try {
    await lab.startCoturn({ secret: 'chaos-lab-secret' });
    await startSignal();
    room = await makeRoom(null, { names, signalUrl: `ws://${lab.publicIp}:${SIGNAL_PORT}`, label: 'chaos' });
    homes.push(...room.homes);
    for (let i = 0; i < o.members; i++) await start(i);

    // Consumers: each agent reads its inbox now and then, as an agent would.
    const consumers = names.map(async (_, i) => {
      while (!stop) {
        const m = members[i];
        if (m) {
          try {
            const text = await m.tool('inbox');
            for (const match of text.matchAll(/\[msg_id=([0-9a-f]{10}) /g)) {
              const id = match[1] as string;
              seenByAgent[i]?.set(id, (seenByAgent[i]?.get(id) ?? 0) + 1);
            }
          } catch {
            // killed meanwhile
          }
        }
        await sleep(400);
      }
    });

    // Faults, one at a time.
    const kinds = ['kill', 'cut', 'signal', 'freeze'].sort(() => rand() - 0.5);
    // A fault that fails to heal (a restart that does not come up) stops the run through the
    // `finally` below, which ends the members and removes the lab; unhandled, it would end this
    // process with the lab's namespaces and coturn left behind.
    let faultFailed: { error: unknown } | undefined;
    const faultLoop = (async () => {
      let done = 0;
      while (done < o.faults && !stop) {
        await sleep(spread(o.faultIntervalMs));
        // The kinds take turns (in an order drawn from the seed) so that even a short run has each.
        const kind = kinds[done % kinds.length];
        const duration = spread(o.faultDurationMs);
        if (kind === 'kill') {
          const i = Math.floor(rand() * o.members);
          log(`fault ${done + 1}: kill -9 ${names[i]} for ${duration} ms`);
          const m = members[i];
          members[i] = null;
          await m?.kill();
          await sleep(duration);
          await start(i);
          faults.kill += 1;
        } else if (kind === 'freeze') {
          // Frozen for good, as a deadlocked library leaves it: papo mcp must notice and replace it.
          const i = Math.floor(rand() * o.members);
          const m = members[i];
          const transport = m ? webRtcChildren(m.pid) : [];
          log(
            `fault ${done + 1}: transport of ${names[i]} frozen (SIGSTOP ${transport.join(',') || 'none found'})`,
          );
          for (const pid of transport) process.kill(pid, 'SIGSTOP');
          await sleep(duration);
          faults.freeze += 1;
        } else if (kind === 'cut') {
          const site = lab.sites[rand() < 0.5 ? 0 : 1];
          log(`fault ${done + 1}: site ${site.index} cut off for ${duration} ms`);
          await lab.setSiteOffline(site, true);
          await sleep(duration);
          await lab.setSiteOffline(site, false);
          faults.cut += 1;
        } else {
          log(`fault ${done + 1}: signal server down for ${duration} ms`);
          const old = signal as ChildProcess | null;
          old?.kill('SIGKILL');
          await sleep(duration);
          await startSignal();
          faults.signal += 1;
        }
        done += 1;
      }
    })().catch((error: unknown) => {
      faultFailed = { error };
      stop = true;
    });

    // Senders: message k goes from k % n to another member, round robin over the others.
    const inFlight = new Set<Promise<void>>();
    for (let k = 0; k < o.messages && faultFailed === undefined; k++) {
      const s = k % o.members;
      const r = (s + 1 + (Math.floor(k / o.members) % (o.members - 1))) % o.members;
      while ((members[s] === null || inFlight.size >= 6 * o.members) && faultFailed === undefined)
        await sleep(50);
      if (faultFailed !== undefined) break;
      const m = members[s] as Member;
      const toRoom = (o.roomEvery ?? 0) > 0 && k % (o.roomEvery as number) === 0;
      const body = `chaos #${k} from ${names[s]} to ${toRoom ? 'the room' : names[r]}`;
      const p = m
        .send(body, toRoom ? {} : { to: names[r] })
        .then(
          () => {},
          () => {
            interrupted += 1;
          },
        )
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (k % 50 === 0) log(`sent ${k}/${o.messages}`);
      await sleep(o.sendIntervalMs);
    }
    await faultLoop;
    if (faultFailed !== undefined) throw faultFailed.error;
    await Promise.all(inFlight);

    // Settle: everything healed; wait until no outbox holds anything and every inbox is read.
    log('settling');
    const deadline = Date.now() + o.settleMs;
    for (;;) {
      await sleep(1000);
      const queued = homes.reduce((n, h) => n + outboxLength(h), 0);
      const stored = homes.map((h) => readLog(h).filter((e) => e.ev === 'in').length);
      const handed = seenByAgent.reduce((n, s) => n + s.size, 0);
      const total = stored.reduce((a, b) => a + b, 0);
      if ((queued === 0 && handed >= total) || Date.now() > deadline) break;
    }
    stop = true;
    await Promise.all(consumers);

    // Count from the files.
    const sentIds = new Map<string, { from: string; to: string }>(); // id -> sender, addressee ('' = room)
    for (const h of homes) {
      for (const e of readLog(h)) {
        if (e.ev === 'out' && e.msg) sentIds.set(e.msg.id, { from: e.msg.from, to: e.msg.to ?? '' });
      }
    }
    const received = names.map(() => new Map<string, number>());
    for (const [i, h] of homes.entries()) {
      for (const e of readLog(h)) {
        if (e.ev === 'in' && e.msg) received[i]?.set(e.msg.id, (received[i]?.get(e.msg.id) ?? 0) + 1);
      }
    }
    const lostIds: string[] = [];
    for (const [id, { from, to }] of sentIds) {
      const recipients = to === '' ? names.filter((n) => n !== from) : [to];
      for (const name of recipients) {
        const i = names.indexOf(name);
        if (i < 0 || !received[i]?.has(id)) lostIds.push(`${id}@${name}`);
      }
    }
    const count = (maps: Map<string, number>[]) =>
      maps.reduce((n, m) => n + [...m.values()].filter((v) => v > 1).length, 0);
    return {
      members: o.members,
      messages: o.messages,
      faults,
      sent: sentIds.size,
      roomMessages: [...sentIds.values()].filter((x) => x.to === '').length,
      interruptedSends: interrupted,
      lost: lostIds.length,
      lostIds,
      duplicatesToAgent: count(seenByAgent),
      duplicatesStored: count(received),
      leftQueued: homes.reduce((n, h) => n + outboxLength(h), 0),
      handedToAgents: seenByAgent.reduce((n, s) => n + s.size, 0),
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    stop = true;
    await Promise.all(members.map((m) => m?.kill()));
    await lab.close();
    await room?.close();
  }
}
