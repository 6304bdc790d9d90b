// `papo say` and `papo status` run as a user would (the built binary, temporary PAPO_HOMEs) against
// a running member, and when nobody is online or nobody was ever known.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { waitLinked } from '../support/members.js';
import { memberEnv, runPapo } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import type { ChildRun } from '../support/run-child.js';
import { waitFor } from '../support/wait.js';
import { inboxEvents, openAgent, readProfileJson, signalServer } from './helpers.js';

/** Runs the papo binary without blocking this process's event loop (members live in it). */
function papo(args: string[], home: string, timeoutMs = 60_000): Promise<ChildRun> {
  return runPapo(args, {
    env: { ...memberEnv(), PAPO_HOME: home },
    timeoutMs,
  });
}

test('papo say and papo status against a running member', { timeout: 90_000 }, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const bia = await openAgent(t, room.members.Bia, memberEnv(), 'the exporter');
  const got = inboxEvents(bia);
  // Bia is on the signal server's topic, as a colleague whose agent has been open a while is: a say
  // that comes first finds the topic empty and answers at once (CI saw it once on Node 22).
  await waitFor('Bia joined', () => bia.probe.signalState().joined);

  // Ana's own agent is not running: say finds Bia on the topic all the same.
  const said = await papo(['say', 'hello', 'from', 'the', 'terminal'], room.members.Ana.home);
  assert.equal(said.code, 0, said.stderr);
  assert.match(said.stdout, /^delivered to Bia \(msg [0-9a-f]{10}\)$/m);
  assert.equal(got.length, 1);
  assert.equal(got[0]?.body, 'hello from the terminal');
  assert.equal(got[0]?.kind, 'human');
  assert.equal(got[0]?.from, 'Ana');
  // An ephemeral identity is never remembered as a member.
  assert.deepEqual(
    bia.member.members().map((m) => m.name),
    [],
  );

  const status = await papo(['status', '--timeout', '10'], room.members.Ana.home);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /you are "Ana" in room/);
  assert.match(status.stdout, /^ {2}Bia \[[0-9a-f]{10}\] online — the exporter \(direct\)$/m);
});

test('papo status beside its own running agent shows the path to every member online: asked, the agent’s link to the other one; looking itself, its own links to both', {
  timeout: 120_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const ana = await openAgent(t, room.members.Ana, memberEnv(), 'the importer');
  const bia = await openAgent(t, room.members.Bia, memberEnv(), 'the exporter');
  await waitLinked(ana, bia);
  // Asked over member.sock (ADR 0103): the list is the agent's, which has no link to itself.
  const asked = await papo(['status', '--timeout', '10'], room.members.Ana.home);
  assert.equal(asked.code, 0, asked.stderr);
  assert.match(asked.stdout, /^ {2}Ana \[[0-9a-f]{10}\] online — your agent$/m);
  assert.match(asked.stdout, /^ {2}Bia \[[0-9a-f]{10}\] online — the exporter \((direct|relay)\)$/m);
  // Its socket gone (the agent still runs, unreachable): papo status looks itself, as before.
  rmSync(join(room.members.Ana.profile.dir, 'member.sock'));
  // Five runs: the hello of a member the agent forwards can arrive before this run's own link to
  // that member is up, and the list must wait for it.
  for (let i = 0; i < 5; i++) {
    const status = await papo(['status', '--timeout', '10'], room.members.Ana.home);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^ {2}Ana \[[0-9a-f]{10}\] online — your agent \((direct|relay)\)$/m);
    assert.match(status.stdout, /^ {2}Bia \[[0-9a-f]{10}\] online — the exporter \((direct|relay)\)$/m);
  }
});

test('papo say when nobody was ever known, and when the known members are offline', {
  timeout: 120_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });

  const first = await papo(['say', 'anyone?'], room.members.Ana.home);
  assert.equal(first.code, 1);
  assert.match(first.stderr, /I don't know anyone in this room yet/);
  assert.equal(first.stdout, '');
  const firstStatus = await papo(['status', '--timeout', '3'], room.members.Ana.home);
  assert.equal(firstStatus.code, 1);
  assert.match(firstStatus.stderr, /I don't know anyone in this room yet/);

  // Ana's agent meets Bia once (peers.json), then both go away.
  const ana = await openAgent(t, room.members.Ana);
  const bia = await openAgent(t, room.members.Bia);
  await waitLinked(ana, bia);
  await waitFor('Ana remembers Bia', () =>
    Object.values(readProfileJson<Record<string, { name: string }>>(room.members.Ana, 'peers.json', {})).some(
      (p) => p.name === 'Bia',
    ),
  );
  await bia.member.close();
  await ana.member.close();

  const status = await papo(['status', '--timeout', '3'], room.members.Ana.home);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /^ {2}Bia \[[0-9a-f]{10}\] offline/m);

  const said = await papo(['say', 'still', 'there?'], room.members.Ana.home);
  assert.equal(said.code, 1);
  assert.match(said.stderr, /nobody in the room is online right now; the message was not sent/);
  assert.equal(said.stdout, '');
});

test('papo status and papo say say why the network fails: a token refused, an unreachable server, PAPO_RELAY', {
  timeout: 120_000,
}, async (t) => {
  // A signal server that requires a token the member does not have.
  const server = await signalServer(t, { env: { PAPO_SIGNAL_TOKEN: 'test-only-token' } });
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const refused = await runPapo(['status', '--timeout', '3'], {
    env: { ...memberEnv(), PAPO_HOME: room.members.Ana.home, PAPO_RELAY: 'https://relay.example.test' },
    timeoutMs: 60_000,
  });
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /^warning: the signal server ws:\/\/127\.0\.0\.1:\d+ refused the connection: it requires a token \(set PAPO_SIGNAL_TOKEN=ws:\/\/127\.0\.0\.1:\d+=<token>\)$/m,
  );
  assert.match(
    refused.stderr,
    /^note: PAPO_RELAY is set, but this papo does not use it: set TURN servers with PAPO_ICE_SERVERS/m,
  );
  assert.match(refused.stderr, /I don't know anyone in this room yet/);
  // The same room, its server gone: unreachable, with the socket's reason (the URL is not on
  // loopback, so no local server is started in its place).
  const port = server.port;
  await server.close();
  const gone = await runPapo(['say', 'anyone?'], {
    env: { ...memberEnv(), PAPO_HOME: room.members.Ana.home, PAPO_SIGNAL: `ws://localhost.invalid:${port}` },
    timeoutMs: 60_000,
  });
  assert.equal(gone.code, 1);
  assert.match(
    gone.stderr,
    /^warning: could not reach the signal server at ws:\/\/localhost\.invalid:\d+ \(.+\); is it running, and reachable from this network\?$/m,
  );
});
