// A member that floods another (docs/security.md, finding 5): it holds the room key, so every frame
// it forges opens. Before the bounds of ADR 0062, 5,000 forged hellos made the victim remember
// 5,000 members, rewrite peers.json 5,000 times and send 15,002 frames, and 300 messages of 48 KiB
// made it rewrite 2.2 GB into inbox.json. The victim here is a real `papo mcp`; the attacker a raw
// peer with the room's keys (tests/member/raw-peer.ts) on a real signal server and a real link.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_KNOWN_PEERS } from '../../src/client/room/room-node.js';
import { MAX_INBOX_BYTES } from '../../src/client/store/inbox-store.js';
import type { Frame, RefusedFrame } from '../../src/client/wire/frames.js';
import { MAX_BODY_BYTES } from '../../src/client/wire/frames.js';
import { generateIdentity, type Identity } from '../../src/client/wire/identity.js';
import { LIMITS } from '../../src/mcp/texts.js';
import { inboxIdsOnDisk, readProfileJson, signalServer, startMcp, waitOnline } from '../member/helpers.js';
import { RawPeer } from '../member/raw-peer.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bytes a process passed to write(2) so far (/proc/<pid>/io), whatever the file system. */
function bytesWritten(pid: number): number {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return Number(/^wchar: (\d+)$/m.exec(io)?.[1]);
}

/** CPU seconds a process used so far (utime + stime of /proc/<pid>/stat). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const framesFrom = (peer: RawPeer, since: number) => peer.frames.slice(since);

test('5,000 forged hellos: the victim remembers a bounded number, writes peers.json a few times, answers a few', {
  timeout: 120_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Bia'], signalUrl: server.url, make: 'store' });
  const bia = await startMcp(t, room.members.Bia.home);
  await bia.tool('status');
  const victim = room.members.Bia.profile.identity.nodeId;
  const attacker = new RawPeer({ secret: room.secret, url: server.url });
  t.after(() => attacker.close());
  await attacker.linkTo(victim);
  // The victim says hello when its end of the link opens, and not again until its 30-s heartbeat:
  // once in CI (2026-12-01, under load) that hello never reached the attacker within 15 s, the
  // cause not established. A member says hello too, which the victim answers: the attacker does,
  // once a second, until the link is known to carry frames both ways.
  let lastHello = 0;
  await waitFor('the victim hears the attacker', () => {
    if (attacker.frames.some((f) => f.t === 'hello')) return true;
    if (Date.now() - lastHello >= 1000) {
      lastHello = Date.now();
      const hello = {
        t: 'hello',
        node: attacker.nodeId,
        name: 'attacker',
        kind: 'agent',
        ephemeral: false,
        ts: Date.now(),
      } as const;
      attacker.sendFrame(victim, hello);
    }
    return false;
  });

  let peersWrites = 0;
  const watcher = watch(room.members.Bia.profile.dir, (_event, name) => {
    if (name === 'peers.json') peersWrites++;
  });
  t.after(() => watcher.close());
  const writtenBefore = bytesWritten(bia.pid);
  const cpuBefore = cpuSeconds(bia.pid);
  const framesBefore = attacker.frames.length;

  const about = 'a'.repeat(200);
  const identities = Array.from({ length: 5000 }, () => generateIdentity());
  for (let i = 0; i < 5000; i++) {
    // A member holding the room key can sign as many new identities as it likes (ADR 0064).
    const forged = identities[i] as Identity;
    const hello = {
      t: 'hello',
      node: forged.nodeId,
      name: `m${i}`,
      about,
      kind: 'agent',
      ephemeral: false,
      ts: Date.now(),
    } as const;
    attacker.sendFrame(victim, hello, forged);
    if (i % 50 === 49) await sleep(5); // let the channel drain: the frames must reach the victim
  }
  // The coalesced peers.json write comes within 5 s of the last change.
  await sleep(7000);

  const frames = framesFrom(attacker, framesBefore);
  const known = Object.keys(readProfileJson<Record<string, unknown>>(room.members.Bia, 'peers.json', {}));
  const written = bytesWritten(bia.pid) - writtenBefore;
  const cpu = cpuSeconds(bia.pid) - cpuBefore;
  t.diagnostic(
    `frames out ${frames.length}, peers.json writes ${peersWrites}, members on disk ${known.length}, ` +
      `bytes written ${written}, CPU ${cpu.toFixed(2)} s`,
  );
  assert.ok(known.length <= MAX_KNOWN_PEERS, `${known.length} members in peers.json`);
  assert.ok(peersWrites <= 10, `peers.json written ${peersWrites} times`);
  assert.ok(frames.length <= 30, `the victim sent ${frames.length} frames to the attacker`);
  assert.ok(written < 5_000_000, `the victim wrote ${written} bytes`);

  const status = await bia.tool('status');
  assert.ok(status.length <= LIMITS.maxResultChars, `status is ${status.length} characters`);
  assert.match(status, /more members not shown/);
});

test('300 messages of 48 KiB: each costs its size on disk, the inbox stops at its cap, and the sender is told', {
  timeout: 180_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const bia = await startMcp(t, room.members.Bia.home);
  const ana = await startMcp(t, room.members.Ana.home);
  await waitOnline(ana, 'Bia');
  const victim = room.members.Bia.profile.identity.nodeId;
  const attacker = new RawPeer({ secret: room.secret, url: server.url });
  t.after(() => attacker.close());
  await attacker.linkTo(victim);

  const body = 'x'.repeat(MAX_BODY_BYTES);
  /** A message from "Mal" to Bia only (another member forwards it but does not store it). */
  const forge = (text: string): string => {
    const id = randomBytes(5).toString('hex');
    const msg = { id, from: 'Mal', node: attacker.nodeId, kind: 'agent', to: 'Bia', ts: Date.now() } as const;
    attacker.sendFrame(victim, { t: 'msg', ...msg, body: text });
    return id;
  };
  const answered = (id: string) =>
    attacker.frames.some((f: Frame) => (f.t === 'ack' || f.t === 'refused') && f.id === id);
  // Bytes the victim had written before each message (and after the last).
  const written: number[] = [];
  for (let i = 0; i < 300; i++) {
    written.push(bytesWritten(bia.pid));
    const id = forge(body);
    // One at a time, as fast as the victim answers: the cost measured is the victim's.
    await waitFor(`an answer to message ${i}`, () => answered(id), 20_000);
  }
  written.push(bytesWritten(bia.pid));
  const stored = inboxIdsOnDisk(room.members.Bia);
  const refused = attacker.frames.filter((f): f is RefusedFrame & { sig: string } => f.t === 'refused');
  const cost = (from: number, to: number) =>
    ((written[to] as number) - (written[from] as number)) / (to - from);
  const early = cost(0, 50);
  const late = cost(stored.length - 50, stored.length);
  t.diagnostic(
    `stored ${stored.length}, refused ${refused.length}; bytes written a message: ${Math.round(early)} for the ` +
      `first 50, ${Math.round(late)} for the last 50 stored, ${Math.round(cost(stored.length, 300))} refused; ` +
      `${(written[300] as number) - (written[0] as number)} in all`,
  );
  // A message costs its size (inbox file, log line, push, forward), not the size of the inbox:
  // papo 0.1's one-file inbox (ADR 0062) made the last ones cost several times the first.
  assert.ok(late < early * 1.5, `the last stored messages cost ${late} bytes each, the first ${early}`);
  assert.ok(
    stored.length > 0 && stored.length * MAX_BODY_BYTES <= MAX_INBOX_BYTES,
    `${stored.length} stored`,
  );
  assert.equal(stored.length + new Set(refused.map((f) => f.id)).size, 300);
  assert.ok(refused.every((f) => f.by === 'Bia' && f.why === 'inbox_full'));

  // What room the bytes cap leaves, the attacker fills with the smallest messages it can.
  for (let i = 0; i < 1000; i++) {
    const id = forge('x');
    await waitFor(`an answer to a small message ${i}`, () => answered(id), 20_000);
    if (attacker.frames.some((f) => f.t === 'refused' && f.id === id)) break;
  }

  // A real member's send to the full inbox says why it is not delivered.
  const sent = await ana.tool('send', { message: 'are you there?', to: 'Bia' });
  assert.match(sent, /^Not delivered yet \(msg_id [0-9a-f]{10}\): Bia's inbox is full/);

  // Once the agent reads, there is room again: the queued message goes with the next re-send
  // (every 30 s), and Ana's outbox empties; nothing was lost.
  const read = await bia.tool('inbox');
  assert.ok(read.length <= 50_000);
  await waitFor(
    'the queued message delivered once there is room',
    () => readProfileJson<unknown[]>(room.members.Ana, 'outbox.json', [null]).length === 0,
    60_000,
  );
  assert.ok(loggedBodies(room.members.Bia.profile.dir).includes('are you there?'));
});

/** Bodies of the messages a member stored (the `in` lines of its log.jsonl). */
function loggedBodies(dir: string): string[] {
  return readFileSync(join(dir, 'log.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"ev":"in"'))
    .map((l) => (JSON.parse(l) as { msg: { body: string } }).msg.body);
}
