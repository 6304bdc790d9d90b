// The forwarding path's shortcuts (ADR 0077): a signal frame read without JSON.parse, a forwarded
// signal written without JSON.stringify, and a socket's frames of one tick sent in one write. Each
// must give exactly what the general path gives.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { ServerMessage } from '../../src/signal-protocol.js';
import { text } from '../../src/signal-server/hub.js';
import { parseClientMessage } from '../../src/signal-server/parse.js';
import { type SignalServerHandle, startSignalServer } from '../../src/signal-server/server.js';
import { hex32, TestClient } from './helpers.js';

const open: { close(): Promise<void> }[] = [];
after(async () => {
  for (const o of open.reverse()) await o.close().catch(() => {});
});

const topic = hex32();
const to = hex32();
const signal = (data: unknown) => JSON.stringify({ t: 'signal', topic, to, data });

// Blobs JSON writes as they are, and blobs it escapes (quote, backslash, controls, surrogates).
const blobs = [
  'c2VhbGVk+/==',
  `${'QUJD'.repeat(2000)}-_.|~ !#[]{}`,
  'é ü 漢字 \u2028\u2029 \u007f \ud7ff \ue000 \uffff',
  'a"b',
  'a\\b',
  '\\u0041',
  'line\nbreak',
  '\u0000',
  '\u001f',
  'tab\there',
  'emoji 😀',
  'lone \ud800 surrogate',
  'lone \udfff surrogate',
  ' ',
];

// Frames that look like a signal but are not the canonical one: each must get the general path's
// answer, accepted or refused.
const frames = [
  ...blobs.map(signal),
  signal(''),
  signal(42),
  signal(null),
  JSON.stringify({ t: 'signal', topic: topic.toUpperCase(), to, data: 'x' }),
  JSON.stringify({ t: 'signal', topic, to: to.slice(1), data: 'x' }),
  JSON.stringify({ t: 'signal', topic: `${topic.slice(1)}g`, to, data: 'x' }),
  JSON.stringify({ t: 'signal', to, topic, data: 'x' }),
  JSON.stringify({ t: 'signal', topic, to, data: 'x', extra: 1 }),
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"a","data":"b"}`,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"a","x":"b"}`,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"a"b"}`,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"a\u0001b"}`,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"a\tb"}`,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"\\u0041"}`,
  `{"t":"signal","topic":"\\u0061${topic.slice(1)}","to":"${to}","data":"x"}`,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"x"} `,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"x"}}`,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"x"`,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":""}`,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"}`,
  `{"t":"signal","topic":"${topic}","to":"${to}","data":"\\"}`,
  `{"t":"signal","topic":"${topic}","to":"${to}"}`,
];

test('a signal frame read without JSON.parse gives what JSON.parse and the checks give', () => {
  let fast = 0;
  for (const frame of frames) {
    const got = parseClientMessage(frame);
    // A leading space is still the same JSON, but no longer the canonical frame: the general path.
    const general = parseClientMessage(` ${frame}`);
    assert.equal('plain' in general, false, frame);
    if (got.ok && got.plain) {
      fast++;
      assert.deepEqual({ ok: got.ok, message: got.message }, general, frame);
    } else assert.deepEqual(got, general, frame);
  }
  // The plain blobs and nothing else took the shortcut.
  assert.equal(fast, 4);
});

test('a forwarded signal is the JSON the general path would write, plain or not', () => {
  const from = hex32();
  for (const data of blobs) {
    const expected = JSON.stringify({ t: 'signal', topic, from, data });
    assert.equal(text.signal(topic, from, data), expected, data);
    const parsed = parseClientMessage(signal(data));
    assert.ok(parsed.ok);
    assert.equal(text.signal(topic, from, data, parsed.plain), expected, data);
  }
});

async function server(): Promise<SignalServerHandle> {
  const s = await startSignalServer({ host: '127.0.0.1', port: 0, env: {} });
  open.push(s);
  return s;
}

async function member(s: SignalServerHandle, room: string, peer: string): Promise<TestClient> {
  const c = await TestClient.ready(s.url);
  open.push(c);
  c.send({ t: 'join', topic: room, peer });
  await c.next((m) => m.t === 'peers');
  return c;
}

/** Sends `messages` to the server in one TCP write (the client's socket corked around them). */
test('signals that arrive together leave together: all of them, in order, intact', async () => {
  const s = await server();
  const room = hex32();
  const [pa, pb, pc] = [hex32(), hex32(), hex32()];
  const a = await member(s, room, pa);
  const b = await member(s, room, pb);
  const c = await member(s, room, pc);
  await a.next((m) => m.t === 'joined');
  await a.next((m) => m.t === 'joined');
  await b.next((m) => m.t === 'joined');

  // One write from a: signals to b and c interleaved, blobs plain and not, and a signal to a peer
  // that is not there, whose error comes back to a between them.
  const messages: unknown[] = [];
  for (let i = 0; i < 40; i++) {
    const data = `${i}:${blobs[i % blobs.length]}`;
    messages.push({ t: 'signal', topic: room, to: i % 2 === 0 ? pb : pc, data });
    if (i === 20) messages.push({ t: 'signal', topic: room, to: hex32(), data: 'nobody' });
  }
  a.sendTogether(messages);
  // b also gets signals from c, in a burst of c's own at the same time.
  c.sendTogether(Array.from({ length: 20 }, (_, i) => ({ t: 'signal', topic: room, to: pb, data: `c${i}` })));

  const expect = (peer: string, from: string, prefix: string) =>
    messages
      .filter((m) => (m as { to: string }).to === peer)
      .map((m) => ({ t: 'signal', topic: room, from, data: (m as { data: string }).data }))
      .filter((m) => prefix === '' || m.data.startsWith(prefix));
  const take = async (client: TestClient, n: number, match: (m: ServerMessage) => boolean) => {
    const out: ServerMessage[] = [];
    for (let i = 0; i < n; i++) out.push(await client.next(match));
    return out;
  };
  assert.deepEqual(await take(b, 20, (m) => m.t === 'signal' && m.from === pa), expect(pb, pa, ''));
  assert.deepEqual(
    await take(b, 20, (m) => m.t === 'signal' && m.from === pc),
    Array.from({ length: 20 }, (_, i) => ({ t: 'signal', topic: room, from: pc, data: `c${i}` })),
  );
  assert.deepEqual(await take(c, 20, (m) => m.t === 'signal'), expect(pc, pa, ''));
  assert.equal((await a.error('unknown_peer')).t, 'error');
  assert.deepEqual(a.received, []);
  assert.equal(s.metrics.signalsForwarded, 60);
});
