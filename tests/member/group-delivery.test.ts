// Delivery in rooms of three and four (ADR 0063), with real `papo mcp` processes driven over stdio
// and killed -9 between steps: a message to the room is owed to every member known when it is
// sent, and a member that was offline gets it through another member even when the sender is
// gone; a message with `to` still reaches its recipient alone; and `papo forget` stops waiting for
// a member who left for good.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QueuedMessage } from '../../src/client/store/outbox.js';
import type { McpProcess } from '../support/mcp-process.js';
import { memberEnv, msgIdIn, runPapo } from '../support/papo.js';
import { type MemberHome, makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { pushedIds, readProfileJson, readProfileLog, signalServer, startMcp, waitOnline } from './helpers.js';

function outbox(member: MemberHome): QueuedMessage[] {
  return readProfileJson<QueuedMessage[]>(member, 'outbox.json', []);
}

function stored(member: MemberHome, id: string): boolean {
  return readProfileLog(member).some((e) => e.ev === 'in' && e.msg.id === id);
}

/** Waits until `member`'s status shows `name` offline. */
async function waitOffline(member: McpProcess, name: string): Promise<void> {
  const line = new RegExp(`^- ${name} \\([a-z]+\\): offline`, 'm');
  await waitFor(`${name} offline`, async () => line.test(await member.tool('status')), 20_000);
}

/** Starts every member and waits until each sees each other online. */
async function meet(
  t: Parameters<typeof startMcp>[0],
  homes: Record<string, MemberHome>,
): Promise<Record<string, McpProcess>> {
  const running: Record<string, McpProcess> = {};
  for (const [name, m] of Object.entries(homes)) running[name] = await startMcp(t, m.home);
  for (const [a, ma] of Object.entries(running))
    for (const b of Object.keys(running)) if (a !== b) await waitOnline(ma, b);
  return running;
}

test('three members: terceiro was offline, voce sent to the room and left; terceiro gets it from colega', {
  timeout: 150_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, {
    names: ['voce', 'colega', 'terceiro'],
    signalUrl: server.url,
    make: 'store',
  });
  const m = await meet(t, room.members);
  const voce = m.voce as McpProcess;
  const colega = m.colega as McpProcess;

  await (m.terceiro as McpProcess).kill();
  await waitOffline(voce, 'terceiro');
  const text = await voce.tool('send', { message: 'the contract is v2 now' });
  const id = msgIdIn(text);
  assert.equal(
    text,
    `Delivered to colega (msg_id ${id}). terceiro is offline and will get it when they connect. If you need their answer to continue, call \`wait\`.`,
  );
  // colega's ack did not clear it: it is still owed to terceiro, on disk.
  assert.deepEqual(
    outbox(room.members.voce).map((q) => [q.id, q.owed]),
    [[id, ['terceiro']]],
  );
  const status = await voce.tool('status');
  assert.match(status, /Queued for delivery: 1\./);
  assert.match(status, /Waiting for confirmation from: terceiro \(1 message\)\./);

  // The person says something too: papo say keeps no queue, but colega stored it. (papo say knows
  // the members from peers.json, which papo mcp writes at most every 5 s.)
  await waitFor('terceiro in voce’s peers.json', () =>
    Object.values(
      readProfileJson<Record<string, { name: string }>>(room.members.voce, 'peers.json', {}),
    ).some((p) => p.name === 'terceiro'),
  );
  const said = await runPapo(['say', 'a word from the person'], {
    env: { ...memberEnv(), PAPO_HOME: room.members.voce.home },
    timeoutMs: 60_000,
  });
  assert.equal(said.code, 0, said.stderr);
  assert.match(said.stdout, /^delivered to .*colega.* \(msg [0-9a-f]{10}\)$/m);
  assert.match(
    said.stdout,
    /^terceiro offline: papo say keeps no queue, but the members who stored it pass it on when they connect/m,
  );
  const saidId = /msg ([0-9a-f]{10})/.exec(said.stdout)?.[1] as string;

  // voce goes away before terceiro comes back.
  await voce.kill();
  const terceiro = await startMcp(t, room.members.terceiro.home);
  await waitFor('terceiro got it pushed', () => pushedIds(terceiro).includes(id), 30_000);
  await waitFor('terceiro got what the person said', () => pushedIds(terceiro).includes(saidId), 30_000);
  const inbox = await terceiro.tool('inbox');
  assert.match(inbox, /the contract is v2 now/);
  assert.match(inbox, /from=voce \(human\)/);
  const entry = readProfileLog(room.members.terceiro).find((e) => e.ev === 'in' && e.msg.id === id);
  assert.equal(entry?.ev === 'in' && entry.msg.from, 'voce', 'the envelope as voce sent it');
  // colega is not handed it twice.
  assert.equal(pushedIds(colega).filter((x) => x === id).length, 1);

  // voce comes back: terceiro acks the re-sent copy again, and the outbox empties.
  const voce2 = await startMcp(t, room.members.voce.home);
  await waitFor('voce’s outbox cleared', () => outbox(room.members.voce).length === 0, 60_000);
  await waitFor('delivered to terceiro in voce’s log', () =>
    readProfileLog(room.members.voce).some((e) => e.ev === 'delivered' && e.id === id && e.by === 'terceiro'),
  );
  assert.match(await voce2.tool('status'), /Queued for delivery: 0\./);
  assert.equal(pushedIds(terceiro).filter((x) => x === id).length, 1, 'handed to terceiro once');
});

test('four members: a message to the room reaches both who were away; one with `to` reaches its recipient alone', {
  timeout: 180_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, {
    names: ['voce', 'colega', 'terceiro', 'quarto'],
    signalUrl: server.url,
    make: 'store',
  });
  const m = await meet(t, room.members);
  const voce = m.voce as McpProcess;

  await (m.terceiro as McpProcess).kill();
  await (m.quarto as McpProcess).kill();
  await waitOffline(voce, 'terceiro');
  await waitOffline(voce, 'quarto');
  const all = await voce.tool('send', { message: 'for everyone' });
  const allId = msgIdIn(all);
  assert.match(all, /^Delivered to colega \(msg_id [0-9a-f]{10}\)\. quarto and terceiro are offline/);
  const only = await voce.tool('send', { message: 'for terceiro only', to: 'terceiro' });
  const onlyId = msgIdIn(only);
  assert.match(only, /^Not acknowledged yet/);
  assert.deepEqual(
    outbox(room.members.voce).map((q) => [q.id, q.owed]),
    [
      [allId, ['quarto', 'terceiro']],
      [onlyId, ['terceiro']],
    ],
  );
  await voce.kill();
  // colega restarts too: what it stored survives in its log.
  await (m.colega as McpProcess).kill();
  const colega = await startMcp(t, room.members.colega.home);

  const terceiro = await startMcp(t, room.members.terceiro.home);
  const quarto = await startMcp(t, room.members.quarto.home);
  await waitFor('terceiro got the room’s message', () => pushedIds(terceiro).includes(allId), 30_000);
  await waitFor('quarto got the room’s message', () => pushedIds(quarto).includes(allId), 30_000);
  // The message to terceiro alone is stored by nobody else, so only voce can bring it.
  await new Promise((r) => setTimeout(r, 2000));
  assert.ok(!stored(room.members.terceiro, onlyId), 'nobody but voce holds it');
  assert.ok(!stored(room.members.colega, onlyId));
  assert.ok(!stored(room.members.quarto, onlyId));

  const voce2 = await startMcp(t, room.members.voce.home);
  await waitFor(
    'terceiro got the `to` message from voce',
    () => pushedIds(terceiro).includes(onlyId),
    30_000,
  );
  await waitFor('voce’s outbox cleared', () => outbox(room.members.voce).length === 0, 60_000);
  assert.ok(!stored(room.members.quarto, onlyId), 'quarto never stores a message to terceiro');
  assert.ok(!stored(room.members.colega, onlyId));
  // outbox.json is replaced a moment before the `delivered` line is appended to the log.
  const expected = [`${allId}:colega`, `${allId}:quarto`, `${allId}:terceiro`, `${onlyId}:terceiro`].sort();
  const delivered = () =>
    readProfileLog(room.members.voce)
      .filter((e) => e.ev === 'delivered')
      .map((e) => (e.ev === 'delivered' ? `${e.id}:${e.by}` : ''))
      .sort();
  await waitFor(
    'the delivered lines in voce’s log',
    () => delivered().length >= expected.length,
    10_000,
  ).catch(() => {});
  assert.deepEqual(delivered(), expected);
  assert.match(await voce2.tool('status'), /Queued for delivery: 0\./);
  void colega;
});

test('papo forget: voce stops waiting for a member who left for good, while its papo mcp runs and after a restart', {
  timeout: 150_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, {
    names: ['voce', 'colega', 'terceiro'],
    signalUrl: server.url,
    make: 'store',
  });
  const m = await meet(t, room.members);
  const voce = m.voce as McpProcess;
  await (m.terceiro as McpProcess).kill();
  await waitOffline(voce, 'terceiro');
  const first = await voce.tool('send', { message: 'before terceiro left' });
  assert.match(first, /terceiro is offline and will get it when they connect/);
  assert.equal(outbox(room.members.voce).length, 1);

  const papo = (args: string[], extra: Record<string, string> = {}) =>
    runPapo(args, {
      env: { ...memberEnv(extra), PAPO_HOME: room.members.voce.home },
      timeoutMs: 30_000,
    });
  // The person sees who the queue waits for, and how to stop waiting.
  const cliStatus = await papo(['status', '--timeout', '3']);
  assert.match(
    cliStatus.stdout,
    /^Waiting for: terceiro \(1\)\. Someone who left for good: papo forget NAME\.$/m,
  );
  const typo = await papo(['forget', 'tercero']);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, /no member named "tercero" is known/);
  const typoPt = await papo(['forget', 'tercero'], { PAPO_LANG: 'pt' });
  assert.match(typoPt.stderr, /^erro: nenhum membro chamado "tercero" é conhecido nesta sala/);
  const self = await papo(['forget', 'VOCE']);
  assert.match(self.stderr, /"VOCE" is you/);

  // papo mcp runs: the command leaves it a request and waits for it.
  const forgot = await papo(['forget', 'Terceiro']);
  assert.equal(forgot.code, 0, forgot.stderr);
  assert.match(forgot.stdout, /^Terceiro is forgotten: your agent's papo mcp no longer waits for them/);
  assert.deepEqual(outbox(room.members.voce), []);
  const status = await voce.tool('status');
  assert.match(status, /Queued for delivery: 0\./);
  assert.doesNotMatch(status, /terceiro/);
  // New messages are not owed to terceiro: colega's ack delivers it (docs/mcp.md, "Tools").
  const next = await voce.tool('send', { message: 'after terceiro left' });
  assert.equal(
    next,
    `Delivered to colega (msg_id ${msgIdIn(next)}). If you need their answer to continue, call \`wait\`.`,
  );
  assert.deepEqual(outbox(room.members.voce), []);

  // With papo mcp stopped, the command edits the profile itself; a restart keeps it forgotten.
  await voce.kill();
  await (m.colega as McpProcess).kill();
  const queued = await startMcp(t, room.members.voce.home);
  const alone = await queued.tool('send', { message: 'colega is away too' });
  assert.match(alone, /^Not acknowledged yet/);
  assert.deepEqual(
    outbox(room.members.voce).map((q) => q.owed),
    [['colega']],
  );
  await queued.kill();
  const offline = await papo(['forget', 'colega']);
  assert.equal(offline.code, 0, offline.stderr);
  assert.match(offline.stdout, /^colega is forgotten: 1 queued message no longer waits for them/);
  assert.deepEqual(outbox(room.members.voce), []);
  assert.deepEqual(readProfileJson(room.members.voce, 'peers.json', {}), {});
  const voce3 = await startMcp(t, room.members.voce.home);
  assert.match(await voce3.tool('status'), /Peers: none known yet/);
});

test('a member that can reach only one other member gets what that one caught up on later (digests again every 30 s)', {
  timeout: 180_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, {
    names: ['ana', 'bia', 'caio', 'dora'],
    signalUrl: server.url,
    make: 'store',
  });
  const id = (n: 'ana' | 'bia' | 'dora') => room.members[n].profile.identity.nodeId.slice(0, 16);
  // dora links to caio alone; what reaches her goes through him.
  const env = {
    ana: memberEnv({ PAPO_TEST_DENY_LINKS: id('dora') }),
    bia: memberEnv({ PAPO_TEST_DENY_LINKS: id('dora') }),
    caio: memberEnv(),
    dora: memberEnv({ PAPO_TEST_DENY_LINKS: `${id('ana')},${id('bia')}` }),
  };
  const ana = await startMcp(t, room.members.ana.home, env.ana);
  const bia = await startMcp(t, room.members.bia.home, env.bia);
  const caio = await startMcp(t, room.members.caio.home, env.caio);
  const dora = await startMcp(t, room.members.dora.home, env.dora);
  for (const name of ['bia', 'caio', 'dora']) await waitOnline(ana, name);
  await waitOnline(dora, 'ana');
  await caio.kill();
  await dora.kill();
  await waitOffline(ana, 'caio');
  await waitOffline(ana, 'dora');
  const text = await ana.tool('send', { message: 'for the whole room' });
  const msgId = msgIdIn(text);
  assert.match(text, /^Delivered to bia \(msg_id [0-9a-f]{10}\)\. caio and dora are offline/);
  await ana.kill();
  await bia.kill();

  // caio and dora come back and link to each other: neither holds the message yet.
  const caio2 = await startMcp(t, room.members.caio.home, env.caio);
  const dora2 = await startMcp(t, room.members.dora.home, env.dora);
  await waitOnline(caio2, 'dora');
  await waitOnline(dora2, 'caio');
  // bia comes back: caio catches up from her when their link opens; dora, who cannot link to
  // bia, gets it from caio with the next exchange of digests.
  const bia2 = await startMcp(t, room.members.bia.home, env.bia);
  await waitFor('caio got it from bia', () => pushedIds(caio2).includes(msgId), 30_000);
  await waitFor('dora got it from caio', () => pushedIds(dora2).includes(msgId), 60_000);
  assert.ok(!dora2.stderr().includes('could not'), dora2.stderr().slice(-500));

  // ana comes back: both acks reach her (dora's through caio), and her outbox empties.
  await startMcp(t, room.members.ana.home, env.ana);
  await waitFor('ana’s outbox cleared', () => outbox(room.members.ana).length === 0, 60_000);
  void bia2;
});
