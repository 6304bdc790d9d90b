// The gate of the loopback TURN helpers (ADR 0096): which datagrams from a source without a flow
// open one (a request signed with a credential the member was given, checked against the RFCs'
// own vectors), which it answers itself (an unsigned request, once the server's realm is known),
// and the flow table's cap and order. The helpers under a real flood: turn-local-flood.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  isStun,
  STUN_ATTR,
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

test('the flow table keeps MAX_FLOWS, pushing out the least recently active one', () => {
  const evicted: string[] = [];
  const table = new FlowTable<{ key: string }>((flow) => evicted.push(flow.key));
  const flows = Array.from({ length: MAX_FLOWS }, (_, i) => ({ key: `127.0.0.1:${10_000 + i}` }));
  for (const flow of flows) table.add(flow);
  assert.deepEqual(evicted, []);
  // The oldest has just been active: the second oldest goes first.
  table.touch(flows[0] as { key: string });
  table.add({ key: '127.0.0.1:20000' });
  assert.deepEqual(evicted, ['127.0.0.1:10001']);
  assert.equal(table.holds(flows[0] as { key: string }), true);
  assert.equal(table.holds(flows[1] as { key: string }), false);
  // A flow pushed out is not touched back in, nor deleted twice.
  table.touch(flows[1] as { key: string });
  table.delete(flows[1] as { key: string });
  assert.equal(table.get('127.0.0.1:10001'), undefined);
  assert.equal([...table.values()].length, MAX_FLOWS);
});
