// The gate of the loopback TURN helpers (ADR 0096): which datagrams from a source without a flow
// open one (a request signed with a credential the member was given, checked against the RFCs'
// own vectors), which it answers itself (an unsigned request, once the server's realm is known),
// and the flow table's cap and order. The helpers under a real flood: turn-local-flood.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  isStun,
  longTermKey,
  STUN_ATTR,
  STUN_METHOD,
  stunAttr,
  stunAttribute,
  stunMessage,
} from '../../src/client/net/stun-message.js';
import { FlowTable, MAX_FLOWS, realmRequest, TurnGate } from '../../src/client/net/turn-gate.js';

const vectors = JSON.parse(
  readFileSync(new URL('../../../tests/vectors/stun-long-term.json', import.meta.url), 'utf8'),
) as { username: string; password: string; realm: string; cases: { name: string; message: string }[] };

test('a request signed as the RFCs sample it (MESSAGE-INTEGRITY with MD5, -SHA256 with USERHASH) opens a flow; tampered, or under another password, it is dropped', () => {
  const gate = new TurnGate();
  gate.remember('someone-else', 'another-password');
  gate.remember(vectors.username, vectors.password);
  const stranger = new TurnGate();
  stranger.remember(vectors.username, 'not-the-password');
  for (const { name, message } of vectors.cases) {
    const signed = Buffer.from(message, 'hex');
    assert.equal(gate.admit(signed), 'open', name);
    assert.equal(stranger.admit(signed), 'drop', name);
    // Any byte the signature covers, changed: the transaction id, the realm.
    for (const at of [8, signed.indexOf('example.org')]) {
      const tampered = Buffer.from(signed);
      tampered[at] = (tampered[at] ?? 0) ^ 1;
      assert.equal(gate.admit(tampered), 'drop', `${name}, byte ${at} changed`);
    }
  }
});

test('an unsigned request: dropped while the realm is unknown (ask the server), then answered 401 with the realm and a nonce of the gate’s own', () => {
  const gate = new TurnGate();
  gate.remember('test-user', 'test-only-password');
  const first = realmRequest();
  assert.equal(gate.admit(first), 'ask the realm');
  assert.equal(gate.knowsRealm, false);
  // The server's 401 to it (error class of Allocate) tells the realm.
  const challenge = stunMessage(
    0x0113,
    [
      stunAttr(STUN_ATTR.errorCode, Buffer.from([0, 0, 4, 1])),
      stunAttr(STUN_ATTR.realm, Buffer.from('papo')),
      stunAttr(STUN_ATTR.nonce, Buffer.from('the-servers-nonce')),
    ],
    undefined,
    first.subarray(8, 20),
  );
  gate.heard(challenge);
  assert.equal(gate.knowsRealm, true);
  const admitted = gate.admit(first);
  assert.ok(typeof admitted === 'object', String(admitted));
  const answer = admitted.answer;
  assert.ok(isStun(answer));
  assert.equal(answer.readUInt16BE(0), 0x0113);
  assert.deepEqual(answer.subarray(8, 20), first.subarray(8, 20));
  assert.deepEqual(
    stunAttribute(answer, STUN_ATTR.errorCode),
    Buffer.from([0, 0, 4, 1, ...Buffer.from('Unauthorized')]),
  );
  assert.equal(stunAttribute(answer, STUN_ATTR.realm)?.toString(), 'papo');
  const nonce = stunAttribute(answer, STUN_ATTR.nonce)?.toString() ?? '';
  assert.match(nonce, /^papo-[0-9a-f]{24}$/);
  // A request (not an answer) tells nothing; nor does an answer without a realm.
  const other = new TurnGate();
  other.heard(first);
  other.heard(stunMessage(0x0113, [stunAttr(STUN_ATTR.errorCode, Buffer.from([0, 0, 4, 0]))]));
  assert.equal(other.knowsRealm, false);
});

test('from a source without a flow, only STUN requests count: answers, indications, ChannelData and other bytes are dropped', () => {
  const gate = new TurnGate();
  gate.heard(stunMessage(0x0113, [stunAttr(STUN_ATTR.realm, Buffer.from('papo'))]));
  const channelData = Buffer.alloc(24);
  channelData.writeUInt16BE(0x4000, 0);
  channelData.writeUInt16BE(20, 2);
  for (const datagram of [
    stunMessage(0x0103, []), // Allocate success
    stunMessage(0x0113, []), // Allocate error
    stunMessage(0x0016, []), // Send indication
    channelData,
    Buffer.from('not a TURN message at all'),
  ])
    assert.equal(gate.admit(datagram), 'drop', datagram.subarray(0, 2).toString('hex'));
});

test('the flow table: a flow for each source the gate lets in, at most MAX_FLOWS, the least recently active pushed out; a source with a flow is not asked again', () => {
  const events: string[] = [];
  const table = new FlowTable<{ key: string; lastSeen: number }>({
    open: (key) => ({ key, lastSeen: 0 }),
    evict: (flow) => events.push(`evicted ${flow.key}`),
    reply: (_answer, port) => events.push(`answered ${port}`),
    askRealm: () => events.push('asked the realm'),
  });
  table.gate.remember('test-user', 'test-only-password');
  const signed = stunMessage(
    STUN_METHOD.allocate,
    [
      stunAttr(STUN_ATTR.username, Buffer.from('test-user')),
      stunAttr(STUN_ATTR.realm, Buffer.from('papo')),
      stunAttr(STUN_ATTR.nonce, Buffer.from('a-nonce')),
    ],
    longTermKey('test-user', 'papo', 'test-only-password'),
  );
  const unsigned = realmRequest();
  const first = table.route(signed, '127.0.0.1', 10_000);
  assert.equal(first?.key, '127.0.0.1:10000');
  assert.ok((first?.lastSeen ?? 0) > 0);
  for (let i = 1; i < MAX_FLOWS; i++) assert.ok(table.route(signed, '127.0.0.1', 10_000 + i));
  assert.deepEqual(events, []);
  // The oldest has just been active: the second oldest goes first.
  assert.equal(table.route(unsigned, '127.0.0.1', 10_000), first);
  assert.ok(table.route(signed, '127.0.0.1', 20_000));
  assert.deepEqual(events, ['evicted 127.0.0.1:10001']);
  assert.equal([...table.values()].length, MAX_FLOWS);
  // A new source that does not sign opens nothing: the realm is asked, then the gate answers.
  assert.equal(table.route(unsigned, '127.0.0.1', 30_000), undefined);
  table.gate.heard(stunMessage(0x0113, [stunAttr(STUN_ATTR.realm, Buffer.from('papo'))]));
  assert.equal(table.route(unsigned, '127.0.0.1', 30_000), undefined);
  assert.equal(table.route(Buffer.from('junk that is not STUN'), '127.0.0.1', 30_001), undefined);
  assert.deepEqual(events.slice(1), ['asked the realm', 'answered 30000']);
  // A flow deleted (its socket closed) is gone; deleting it again changes nothing.
  table.delete(first as { key: string; lastSeen: number });
  table.delete(first as { key: string; lastSeen: number });
  assert.equal(table.holds(first as { key: string; lastSeen: number }), false);
  assert.equal([...table.values()].length, MAX_FLOWS - 1);
});
