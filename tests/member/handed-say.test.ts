// `papo say` handed to the profile's running `papo mcp` (ADR 0102), with real processes: the
// built papo binary, a real signal server, real `papo mcp` members over real links. Delivered,
// owed to a member offline (and caught up), the agent's anti-loop window untouched, the review
// gate, a papo mcp killed while it holds the say (nothing lost, nothing twice), and no papo mcp
// at all (a stale socket: today's path). The texts are the CLI's own (src/cli/i18n.ts).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { messages } from '../../src/cli/i18n.js';
import { makeTempDir } from '../support/files.js';
import { loadedModules, moduleLogEnv } from '../support/module-log.js';
import { memberEnv, runPapo } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import type { ChildRun } from '../support/run-child.js';
import { waitFor } from '../support/wait.js';
import { inboxIdsOnDisk, readProfileLog, signalServer, startMcp, waitOnline } from './helpers.js';

const en = messages('en');

function papo(args: string[], home: string, env: NodeJS.ProcessEnv = {}): Promise<ChildRun> {
  return runPapo(args, { env: { ...memberEnv(), PAPO_HOME: home, ...env }, timeoutMs: 90_000 });
}

/** The id of the msg line a say printed. */
function saidId(run: ChildRun): string {
  const id = /\(msg ([0-9a-f]{10})\)/.exec(run.stdout)?.[1];
  assert.ok(id, `no msg id in ${JSON.stringify(run.stdout)}; stderr: ${run.stderr}`);
  return id;
}

/** How many `in` lines of the member's log hold message `id`. */
function loggedIn(member: Parameters<typeof readProfileLog>[0], id: string): number {
  return readProfileLog(member).filter((e) => e.ev === 'in' && e.msg.id === id).length;
}

/** Ana's and Bia's `papo mcp` on a signal server of their own, Bia online for Ana. */
async function linkedAgents(t: Parameters<typeof signalServer>[0], anaEnv: NodeJS.ProcessEnv = {}) {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const ana = await startMcp(t, room.members.Ana.home, { ...memberEnv(), ...anaEnv });
  const bia = await startMcp(t, room.members.Bia.home);
  await waitOnline(ana, 'Bia');
  return { room, ana, bia };
}

test('handed to the running papo mcp: delivered to its own agent and the one online, in the same words; the agent’s anti-loop window is not the person’s', {
  timeout: 120_000,
}, async (t) => {
  const { room, ana } = await linkedAgents(t, { PAPO_MAX_SENDS_PER_10MIN: '1' });
  const socket = statSync(join(room.members.Ana.profile.dir, 'member.sock'));
  assert.ok(socket.isSocket());
  assert.equal(socket.mode & 0o777, 0o600);

  const said = await papo(['say', 'hello', 'from', 'the', 'terminal'], room.members.Ana.home);
  assert.equal(said.code, 0, said.stderr);
  const id = saidId(said);
  // Its own agent has it first (on its disk before the say went out), then Bia.
  assert.equal(said.stdout, `${en.deliveredTo('Ana, Bia', id)}\n`);
  assert.equal(said.stderr, `${en.connecting}\n`);
  // Handed over: the running member said it, no member of the say's own.
  assert.match(ana.stderr(), new RegExp(`said ${id} for the person: delivered`));
  for (const m of [room.members.Ana, room.members.Bia]) {
    assert.deepEqual(
      inboxIdsOnDisk(m).filter((x) => x === id),
      [id],
    );
    assert.equal(loggedIn(m, id), 1);
  }
  const inBia = readProfileLog(room.members.Bia).find((e) => e.ev === 'in' && e.msg.id === id);
  assert.equal(inBia?.ev === 'in' && inBia.msg.kind, 'human');
  assert.equal(inBia?.ev === 'in' && inBia.msg.from, 'Ana');
  assert.equal(inBia?.ev === 'in' && inBia.msg.body, 'hello from the terminal');
  // Signed by the person's key, not the agent's: Bia's agent knows it as Ana's person's.
  assert.notEqual(inBia?.ev === 'in' && inBia.msg.node, room.members.Ana.profile.identity.nodeId);

  // The anti-loop limit is the agent's `send` (1 here): the say took nothing from it.
  assert.doesNotMatch(await ana.tool('send', { message: 'one' }), /loop/i);
  assert.match(await ana.tool('send', { message: 'two' }), /loop/i);
  // A plain line is read without commander (ADR 0109); one commander reads (`--`) says the same.
  const modules = makeTempDir('papo-say-modules-');
  t.after(() => rmSync(modules, { recursive: true, force: true }));
  const again = await papo(
    ['say', '--to', 'Bia', 'still', 'me'],
    room.members.Ana.home,
    moduleLogEnv(modules),
  );
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, `${en.deliveredTo('Bia', saidId(again))}\n`);
  const [sayModules = []] = [...loadedModules(modules).values()];
  assert.ok(sayModules.some((u) => u.endsWith('/cli/commands/say.js')));
  assert.deepEqual(
    sayModules.filter((u) => u.includes('/commander/')),
    [],
  );
  const viaCommander = await papo(['say', '--to', 'Bia', '--', 'still', 'me'], room.members.Ana.home);
  assert.equal(viaCommander.code, 0, viaCommander.stderr);
  assert.equal(viaCommander.stdout, `${en.deliveredTo('Bia', saidId(viaCommander))}\n`);
  assert.equal(viaCommander.stderr, again.stderr);
});

test('handed: a member known but offline is named, and gets it from those who stored it when it comes', {
  timeout: 120_000,
}, async (t) => {
  const { room, ana, bia } = await linkedAgents(t);
  await bia.stop();
  await waitFor('Bia offline for Ana', async () =>
    /- Bia \([a-z]+\): offline/m.test(await ana.tool('status')),
  );

  const said = await papo(['say', 'for', 'later'], room.members.Ana.home);
  assert.equal(said.code, 0, said.stderr);
  const id = saidId(said);
  assert.equal(said.stdout, `${en.deliveredTo('Ana', id)}\n${en.sayLater('Bia')}\n`);
  assert.match(ana.stderr(), new RegExp(`said ${id} for the person`));

  // With --to and the target offline: not sent, as today.
  const toBia = await papo(['say', '--to', 'Bia', 'are', 'you', 'there'], room.members.Ana.home);
  assert.equal(toBia.code, 1);
  assert.equal(toBia.stdout, '');
  assert.match(toBia.stderr, new RegExp(`^error: ${en.memberNotOnline('Bia')}$`, 'm'));

  // Bia comes back and catches up from Ana's agent, which stored the say (ADR 0063): once.
  await startMcp(t, room.members.Bia.home);
  // The store writes the inbox, then the log line: caught up once both hold it.
  await waitFor('Bia caught up', () => loggedIn(room.members.Bia, id) > 0, { timeoutMs: 30_000 });
  assert.deepEqual(
    inboxIdsOnDisk(room.members.Bia).filter((x) => x === id),
    [id],
  );
  assert.equal(loggedIn(room.members.Bia, id), 1);
});

test('handed: the review gate holds it at a reviewing member, never from the person’s own agent', {
  timeout: 120_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  for (const m of [room.members.Ana, room.members.Bia]) {
    const on = await papo(['review', 'on'], m.home);
    assert.equal(on.code, 0, on.stderr);
  }
  const ana = await startMcp(t, room.members.Ana.home);
  await startMcp(t, room.members.Bia.home);
  await waitOnline(ana, 'Bia');
  const said = await papo(['say', 'deploy', 'now'], room.members.Ana.home);
  assert.equal(said.code, 0, said.stderr);
  const id = saidId(said);
  assert.equal(said.stdout, `${en.deliveredTo('Ana, Bia', id)}\n`);
  assert.match(ana.stderr(), new RegExp(`said ${id} for the person`));
  // Ana's agent has it unread; Bia's person holds it (held/), her agent does not.
  assert.ok(inboxIdsOnDisk(room.members.Ana).includes(id));
  assert.ok(!inboxIdsOnDisk(room.members.Bia).includes(id));
  assert.equal(
    readdirSync(join(room.members.Bia.profile.dir, 'held')).filter((f) => f.includes(id)).length,
    1,
  );
});

/**
 * Ana's papo mcp ends (`kill`: SIGKILL; `stop`: SIGTERM, a clean close) once it has sent a say to
 * Bia, whose papo mcp is frozen so that no ack comes first. Returns the say's run and its id.
 */
async function endMidSay(t: Parameters<typeof signalServer>[0], end: 'kill' | 'stop', words: string[]) {
  const { room, ana, bia } = await linkedAgents(t);
  // Bia's papo mcp stops reading for a while: the say reaches her transport, and no ack comes.
  process.kill(bia.pid, 'SIGSTOP');
  let stopped = true;
  t.after(() => {
    if (stopped) process.kill(bia.pid, 'SIGCONT');
  });
  const running = papo(['say', '--to', 'Bia', ...words], room.members.Ana.home);
  const id = await waitFor(
    'the say handed to Ana’s member and sent',
    () => /sending ([0-9a-f]{10}) for the person/.exec(ana.stderr())?.[1] ?? '',
    { timeoutMs: 30_000 },
  );
  await (end === 'kill' ? ana.kill() : ana.stop());
  const socketLeft = existsSync(join(room.members.Ana.profile.dir, 'member.sock'));
  process.kill(bia.pid, 'SIGCONT');
  stopped = false;
  const said = await running;
  assert.equal(said.code, 0, said.stderr);
  assert.equal(said.stdout, `${en.deliveredTo('Bia', id)}\n`);
  // Bia had it from the member that ended or from the say's own: either way once.
  await waitFor('Bia stored it', () => loggedIn(room.members.Bia, id) > 0);
  assert.deepEqual(
    inboxIdsOnDisk(room.members.Bia).filter((x) => x === id),
    [id],
  );
  assert.equal(loggedIn(room.members.Bia, id), 1);
  return { room, socketLeft };
}

test('the running papo mcp killed while it holds the say: the say sends the same message itself, stored once', {
  timeout: 150_000,
}, async (t) => {
  const { room, socketLeft } = await endMidSay(t, 'kill', ['do', 'not', 'lose', 'me']);
  // No papo mcp runs now; the socket the killed one left is stale: today's path.
  assert.ok(socketLeft);
  const after = await papo(['say', '--to', 'Bia', 'on', 'my', 'own'], room.members.Ana.home);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(after.stdout, `${en.deliveredTo('Bia', saidId(after))}\n`);
  assert.equal(loggedIn(room.members.Bia, saidId(after)), 1);
});

test('the running papo mcp stopped (SIGTERM) while it holds the say: it answers nothing, and the say sends the same message itself', {
  timeout: 150_000,
}, async (t) => {
  // A clean stop: the member closes with the say unconfirmed, so the say is not its to end.
  const { socketLeft } = await endMidSay(t, 'stop', ['closing', 'under', 'me']);
  assert.ok(!socketLeft);
});
