// Attacks on the signal path (docs/security.md, "Attacks on the signal path"), each against real
// `papo mcp` processes on loopback:
// - what a real signal server is given holds no SDP, candidate or IP address in clear;
// - a malicious signal server that alters, replays or injects signals links nobody through itself
//   and reads nothing; announcing peers that do not exist must not exhaust the member;
// - a member of another room on the same server, or an eavesdropper that knows the topic, gets
//   nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type TestContext, test } from 'node:test';
import { WebSocket } from 'ws';
import { decodeInvite } from '../../src/client/wire/invite.js';
import { deriveRoomKeys } from '../../src/client/wire/room-crypto.js';
import { SIGNAL_PATH } from '../../src/signal-protocol.js';
import { startSignalServer } from '../../src/signal-server/server.js';
import { linkOf, type Member, startMember, waitLinked, waitMessage } from '../support/members.js';
import { makeRoom } from '../support/room.js';
import { findLeaks, type Recorded, startEvilSignalServer, startRecordingProxy } from './evil-signal.js';

const A = 'alpha-member-one';
const B = 'beta-member-two';

async function room(
  t: TestContext,
  url: string,
  names = [A, B],
): Promise<{ members: Member[]; invite: string }> {
  const setup = await makeRoom(null, { names, signalUrl: url, label: 'attack' });
  const members: Member[] = [];
  t.after(async () => {
    await Promise.all(members.map((m) => m.kill()));
    await setup.close();
  });
  for (const [i, name] of names.entries()) members.push(await startMember(name, setup.homes[i] as string));
  return { members, invite: setup.invite };
}

function leaksIn(records: Recorded[]): string[] {
  const out: string[] = [];
  for (const r of records) {
    for (const leak of findLeaks(r.text)) out.push(`${leak} in ${r.dir} ${r.text.slice(0, 120)}`);
    const data = /"data":"([A-Za-z0-9+/=]*)"/.exec(r.text)?.[1];
    if (data) {
      for (const leak of findLeaks(Buffer.from(data, 'base64').toString('latin1')))
        out.push(`${leak} in a decoded blob`);
    }
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('what a real signal server is given holds no SDP, candidate, IP address, name or body in clear', async (t) => {
  const server = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
  t.after(() => server.close());
  const proxy = await startRecordingProxy(server.url);
  t.after(() => proxy.close());
  const { members, invite } = await room(t, proxy.url);
  const [a, b] = members as [Member, Member];
  assert.equal(await waitLinked(a, B), 'direct');
  const body = `body-${randomBytes(8).toString('hex')}`;
  assert.match(await a.send(body, { to: B }), /^Delivered to beta-member-two/);
  await waitMessage(b, body);

  const signals = proxy.records.filter((r) => r.text.includes('"t":"signal"'));
  assert.ok(signals.length >= 4, `an offer, an answer and candidates went through (${signals.length})`);
  assert.deepEqual(leaksIn(proxy.records), []);
  const whole = proxy.records.map((r) => r.text).join('\n');
  const secretHex = Buffer.from(decodeInvite(invite).secret).toString('hex');
  for (const clear of [A, B, body, secretHex, invite])
    assert.ok(!whole.includes(clear), `${clear} in the capture`);
});

test('a signal server that alters every blob links nobody and gets nothing delivered', async (t) => {
  const evil = await startEvilSignalServer({
    tamper: (s) => {
      // Flip one base64 character in the middle of the sealed blob.
      const i = Math.floor(s.data.length / 2);
      const ch = s.data[i] === 'A' ? 'B' : 'A';
      return [{ to: s.to, data: s.data.slice(0, i) + ch + s.data.slice(i + 1) }];
    },
  });
  t.after(() => evil.close());
  const { members } = await room(t, evil.url);
  const [a, b] = members as [Member, Member];
  // Both are on the topic and the server forwards (altered) blobs between them.
  for (let i = 0; i < 100 && evil.blobs.length < 2; i++) await sleep(100);
  assert.ok(evil.blobs.length >= 2, 'the members did try to signal through the server');
  await sleep(5000);
  for (const [m, peer] of [
    [a, B],
    [b, A],
  ] as const) {
    const link = linkOf(await m.status(), peer);
    assert.ok(link !== 'direct' && link !== 'relay', `${m.name} must not be linked to ${peer}: ${link}`);
  }
  assert.deepEqual(leaksIn(evil.records), []);
});

test('a signal server that replays every blob, and replays them all again later, changes nothing', async (t) => {
  const evil = await startEvilSignalServer({
    tamper: (s) => [
      { to: s.to, data: s.data },
      { to: s.to, data: s.data },
    ],
  });
  t.after(() => evil.close());
  const { members } = await room(t, evil.url);
  const [a, b] = members as [Member, Member];
  assert.equal(await waitLinked(a, B), 'direct');
  // Everything ever signalled, replayed to its addressee once the link is up.
  for (const s of [...evil.blobs])
    evil.inject(s.to, { t: 'signal', topic: s.topic, from: s.from, data: s.data });
  await sleep(1000);
  assert.equal(linkOf(await a.status(), B), 'direct', 'the link survives the replay');
  const body = `once-${randomBytes(6).toString('hex')}`;
  assert.match(await a.send(body, { to: B }), /^Delivered to/);
  const got = await waitMessage(b, body);
  assert.equal(got.split(body).length - 1, 1, 'delivered once');
});

test('a signal server that injects forged signals and a fake peer gets no link and no readable answer', async (t) => {
  const fake = `f${randomBytes(32).toString('hex').slice(1)}`; // larger than any real id: members offer to it
  const evil = await startEvilSignalServer({ fakePeers: [fake] });
  t.after(() => evil.close());
  const { members } = await room(t, evil.url);
  const [a, b] = members as [Member, Member];
  assert.equal(await waitLinked(a, B), 'direct');
  const [idA, idB] = [evil.blobs.find((s) => s.to !== fake)?.from, evil.blobs.find((s) => s.to !== fake)?.to];
  assert.ok(idA && idB);
  const topic = evil.blobs[0]?.topic as string;
  const sdp =
    'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n' +
    'c=IN IP4 0.0.0.0\r\na=ice-ufrag:evil\r\na=ice-pwd:evilevilevilevilevilevil\r\n' +
    'a=fingerprint:sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF\r\n' +
    'a=setup:actpass\r\na=mid:0\r\na=sctp-port:5000\r\n';
  const forged = [
    // an offer in clear, as an attacker without the room key would write it
    Buffer.from(JSON.stringify({ k: 'offer', link: '0123456789abcdef', sdp })).toString('base64'),
    Buffer.from(
      JSON.stringify({
        from: fake,
        to: idB,
        ts: Date.now(),
        payload: { k: 'offer', link: '0123456789abcdef', sdp },
      }),
    ).toString('base64'),
    // random bytes of a plausible length, and an empty blob
    randomBytes(600).toString('base64'),
    '',
  ];
  for (const data of forged) {
    for (const [to, from] of [
      [idB, fake],
      [idB, idA],
      [idA, fake],
    ]) {
      evil.inject(to as string, { t: 'signal', topic, from, data });
    }
  }
  // A's own blob reflected back to it as if B had sent it.
  const own = evil.blobs.find((s) => s.from === idA);
  if (own) evil.inject(idA, { t: 'signal', topic, from: idB, data: own.data });
  await sleep(1500);
  for (const m of [a, b]) {
    const status = await m.status();
    assert.equal(status.match(/^- /gm)?.length, 1, `only the real member is listed:\n${status}`);
  }
  assert.equal(linkOf(await a.status(), B), 'direct');
  // What the members sent the fake peer: sealed, nothing in clear.
  const toFake = evil.records.filter((r) => r.dir === 'in' && r.text.includes(fake));
  assert.ok(toFake.length > 0, 'the members did signal the fake peer');
  // (Only what the members sent: the forged blobs above hold an SDP in clear on purpose.)
  assert.deepEqual(leaksIn(evil.records.filter((r) => r.dir === 'in')), []);
  const body = `after-${randomBytes(6).toString('hex')}`;
  assert.match(await a.send(body, { to: B }), /^Delivered to/);
  await waitMessage(b, body);
});

test('a signal server announcing 1000 peers that do not exist does not make the member open a link to each', async (t) => {
  // Found by this suite: the mesh creates one native PeerConnection (one thread or more each) for
  // every peer id the server announces, with no bound; an honest server caps a topic at 32 peers.
  const evil = await startEvilSignalServer({});
  t.after(() => evil.close());
  const { members } = await room(t, evil.url, [A]);
  const [a] = members as [Member];
  await a.status();
  for (let i = 0; i < 100 && evil.peers().length === 0; i++) await sleep(100);
  const me = evil.peers()[0] as string;
  const topic = JSON.parse(evil.records.find((r) => r.text.includes('"t":"join"'))?.text ?? '{}')
    .topic as string;
  for (let i = 0; i < 1000; i++) {
    evil.inject(me, { t: 'joined', topic, peer: `f${randomBytes(32).toString('hex').slice(1)}` });
  }
  // The most threads the member runs over the next 6 s (each native PeerConnection has its own).
  let threads = 0;
  for (let i = 0; i < 30; i++) {
    await sleep(200);
    const status = readFileSync(`/proc/${a.pid}/status`, 'utf8');
    threads = Math.max(threads, Number(/Threads:\s+(\d+)/.exec(status)?.[1]));
  }
  await a.status(); // still answers
  assert.ok(threads < 200, `the member ran ${threads} threads after 1000 fake peers were announced`);
});

test('a member of another room on the same signal server, or an eavesdropper on the topic, gets nothing', async (t) => {
  const server = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
  t.after(() => server.close());
  const { members, invite } = await room(t, server.url);
  const [a, b] = members as [Member, Member];
  const other = await room(t, server.url, ['gamma-other-room']);
  const [c] = other.members as [Member];
  assert.equal(await waitLinked(a, B), 'direct');

  // The operator knows the topic (it is on the wire): join it as a third peer and listen.
  const topic = deriveRoomKeys(decodeInvite(invite).secret).topic;
  const spy = new WebSocket(`${server.url}${SIGNAL_PATH}`);
  const heard: string[] = [];
  spy.on('message', (d) => heard.push(String(d)));
  spy.on('error', () => {});
  t.after(() => spy.terminate());
  await new Promise((resolve) => spy.once('open', resolve));
  const spyId = `0${randomBytes(32).toString('hex').slice(1)}`; // smaller than real ids: members knock
  spy.send(JSON.stringify({ t: 'join', topic, peer: spyId }));
  await sleep(1000);
  const peersMsg = heard
    .map((h) => JSON.parse(h) as { t: string; peers?: string[] })
    .find((m) => m.t === 'peers');
  assert.equal(peersMsg?.peers?.length, 2, 'the spy sees the two node ids (the server knows them)');
  for (const id of peersMsg?.peers ?? []) {
    spy.send(JSON.stringify({ t: 'signal', topic, to: id, data: randomBytes(300).toString('base64') }));
  }

  const body = `private-${randomBytes(6).toString('hex')}`;
  assert.match(await a.send(body), /^Delivered to/);
  await waitMessage(b, body);
  await sleep(1000);
  const statusC = await c.status();
  assert.match(statusC, /Peers: none known yet/, `the other room's member sees nobody:\n${statusC}`);
  for (const m of [a, b]) {
    const status = await m.status();
    assert.ok(!status.includes('gamma-other-room'), status);
    assert.equal(status.match(/^- /gm)?.length, 1, `the spy is not a member:\n${status}`);
  }
  const heardText = heard.join('\n');
  assert.ok(!heardText.includes(body));
  assert.deepEqual(leaksIn(heard.map((text) => ({ dir: 'out', peer: null, text }))), []);
});
