// The contract of `sendOutcome`: the text of every outcome of `send` it chooses, exact (docs/mcp.md,
// "Tools"; ADR 0062, 0063, 0064, 0068, 0081). The model reads these words; a change is reviewed here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type NetworkView, type SendOutcome, sendOutcome, type TrustView } from '../../src/mcp/texts.js';

const ID = '3f9a1c07b2';
const QUIET: NetworkView = {
  signalUrl: 'wss://signal.example.test',
  loopback: false,
  knowsMembers: true,
  signal: { joined: true },
  transport: { state: 'running', restarts: 0, failing: false, stallSeconds: 5 },
};
const TRUSTED: TrustView = { name: 'voce', takenBy: undefined, impostors: [] };
const queued = (over: Partial<Extract<SendOutcome, { kind: 'queued' }>> = {}): SendOutcome => ({
  kind: 'queued',
  msgId: ID,
  online: [],
  to: undefined,
  unknownTo: false,
  owed: [],
  trust: TRUSTED,
  network: QUIET,
  ...over,
});

test('sendOutcome, delivered: to everyone it is owed to, with the review note when a recipient reviews', () => {
  assert.equal(
    sendOutcome({ kind: 'delivered', msgId: ID, acked: ['colega'], later: [], reviewers: [] }),
    'Delivered to colega (msg_id 3f9a1c07b2). If you need their answer to continue, call `wait`.',
  );
  assert.equal(
    sendOutcome({
      kind: 'delivered',
      msgId: ID,
      acked: ['colega', 'terceiro'],
      later: [],
      reviewers: ['colega'],
    }),
    "Delivered to colega and terceiro (msg_id 3f9a1c07b2). If you need their answer to continue, call `wait`. colega's person reviews incoming messages before their agent sees them, so an answer can take longer; do not send it again.",
  );
});

test('sendOutcome, delivered to some: who has it, who gets it later (offline, online), and the reviewers', () => {
  assert.equal(
    sendOutcome({
      kind: 'delivered',
      msgId: ID,
      acked: ['colega'],
      later: [{ name: 'terceiro', online: false }],
      reviewers: [],
    }),
    'Delivered to colega (msg_id 3f9a1c07b2). terceiro is offline and will get it when they connect. If you need their answer to continue, call `wait`.',
  );
  assert.equal(
    sendOutcome({
      kind: 'delivered',
      msgId: ID,
      acked: ['ana', 'colega'],
      later: [
        { name: 'quarto', online: true },
        { name: 'terceiro', online: false },
      ],
      reviewers: ['ana', 'colega'],
    }),
    'Delivered to ana and colega (msg_id 3f9a1c07b2). terceiro is offline and will get it when they connect. quarto is online but did not confirm yet; papo sends it again until they do. If you need their answer to continue, call `wait`. The people of ana and colega review incoming messages before their agents see them, so answers can take longer; do not send it again.',
  );
});

test('sendOutcome, refused: a full inbox, and a full inbox at a member whose person reviews', () => {
  assert.equal(
    sendOutcome({ kind: 'refused', msgId: ID, by: 'colega', reviews: false }),
    "Not delivered yet (msg_id 3f9a1c07b2): colega's inbox is full, because their agent has not read the messages it already holds. It stays queued and goes automatically once colega's agent reads them. Do not send it again; if it cannot wait, tell your user.",
  );
  assert.equal(
    sendOutcome({ kind: 'refused', msgId: ID, by: 'colega', reviews: true }),
    "Not delivered yet (msg_id 3f9a1c07b2): colega cannot keep more messages until their agent reads the ones it holds or their person decides on the ones held for review (colega's person reviews incoming messages before their agent sees them). It stays queued and goes automatically once there is room. Do not send it again; if it cannot wait, tell your user.",
  );
});

test('sendOutcome, queued: nobody online, one owed, several owed, an addressee offline or never seen', () => {
  const nobody =
    'Not acknowledged yet (msg_id 3f9a1c07b2). It is queued and will be delivered automatically when a peer is reachable. No peer is online right now.';
  assert.equal(sendOutcome(queued()), nobody);
  // Owed to one member: that is the addressee the text already names, nothing is added.
  assert.equal(sendOutcome(queued({ owed: ['colega'] })), nobody);
  assert.equal(
    sendOutcome(queued({ owed: ['colega', 'terceiro'] })),
    `${nobody} It goes to each of colega and terceiro as they connect.`,
  );
  assert.equal(
    sendOutcome(queued({ online: ['colega', 'terceiro'], owed: ['colega', 'terceiro'] })),
    'Not acknowledged yet (msg_id 3f9a1c07b2). It is queued and will be delivered automatically when a peer is reachable. Online: colega, terceiro, but no acknowledgement arrived within 8s; it will be sent again. It goes to each of colega and terceiro as they connect.',
  );
  assert.equal(
    sendOutcome(queued({ online: ['terceiro'], to: 'colega', owed: ['colega'] })),
    'Not acknowledged yet (msg_id 3f9a1c07b2). It is queued and will be delivered automatically when colega is reachable. colega is not online right now.',
  );
  assert.equal(
    sendOutcome(queued({ to: 'colgea', unknownTo: true, owed: ['colgea'] })),
    'Not acknowledged yet (msg_id 3f9a1c07b2). It is queued and will be delivered automatically when colgea is reachable. No peer is online right now. No member named "colgea" has been seen in this room yet; check the name with `status`.',
  );
});

test('sendOutcome, queued: the name warnings (the three latest impostors), then the network, one line each', () => {
  const impostor = (name: string, frames: number) => ({
    name,
    kind: 'agent',
    node: `${name[0]}`.repeat(64),
    frames,
  });
  const text = sendOutcome(
    queued({
      online: ['colega'],
      trust: {
        name: 'voce',
        takenBy: 'colega',
        impostors: [impostor('ana', 9), impostor('bia', 1), impostor('caio', 2), impostor('dora', 3)],
      },
      network: {
        ...QUIET,
        signal: {
          joined: false,
          problem: { code: 'unreachable', detail: 'connect ECONNREFUSED 192.0.2.7:7450' },
        },
      },
    }),
  );
  assert.deepEqual(text.split('\n'), [
    'Not acknowledged yet (msg_id 3f9a1c07b2). It is queued and will be delivered automatically when a peer is reachable. Online: colega, but no acknowledgement arrived within 8s; it will be sent again.',
    'WARNING: another key already holds the name "voce" in this room, so colega\'s papo refuses what you send and nobody receives it. Tell your user: join again under another name (`papo join --force --name <another name>`); if this profile was made again on purpose, the others must let the old key go (`papo forget voce`).',
    "WARNING: a member with another key [bbbbbbbbbb] claims to be bia (agent); papo refused what it sent (1 frame) and handed you none of it. Tell your user: someone who has this room's invite is impersonating bia.",
    "WARNING: a member with another key [cccccccccc] claims to be caio (agent); papo refused what it sent (2 frames) and handed you none of it. Tell your user: someone who has this room's invite is impersonating caio.",
    "WARNING: a member with another key [dddddddddd] claims to be dora (agent); papo refused what it sent (3 frames) and handed you none of it. Tell your user: someone who has this room's invite is impersonating dora.",
    'WARNING: papo cannot reach the signal server wss://signal.example.test (connect ECONNREFUSED 192.0.2.7:7450), so it cannot meet the other members; it keeps trying. Messages stay queued and go out once it works. Tell your user: the server may be down, or not reachable from this network.',
  ]);
});
