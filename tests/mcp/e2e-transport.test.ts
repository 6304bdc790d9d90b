// The transport process under real `papo mcp` servers (ADR 0057), driven as Claude Code drives
// them: the one process under papo mcp that holds node-datachannel is frozen (SIGSTOP, as the
// native deadlock of ADR 0055 leaves it), killed, or made to die at every start. Throughout, papo
// mcp answers `ping` and `status`; the transport is ended and started again by papo itself; a
// message sent meanwhile reaches the other agent once, and nothing queued is lost.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { msgIdIn, runPapo, userEnv } from '../support/papo.js';
import { childPids, holdsWebRtc, webRtcChildren } from '../support/processes.js';
import { callText, makeRoom, startAgent, statusUntil, toolUntil } from '../support/room.js';
import { resultText } from '../support/rpc-client.js';
import { waitFor } from '../support/wait.js';

/** How many `in` lines for `msgId` colega's history shows. */
async function timesReceived(client: Parameters<typeof callText>[0], msgId: string): Promise<number> {
  const history = await callText(client, 'history', { limit: 200 });
  return history.split('\n').filter((l) => l.includes(`(msg ${msgId}`) && !l.includes('delivered')).length;
}

for (const how of ['SIGSTOP', 'SIGKILL'] as const) {
  test(`the transport process is ${how === 'SIGSTOP' ? 'frozen (SIGSTOP)' : 'killed (SIGKILL)'} mid-exchange: papo mcp answers, says so, restarts it, and the message sent meanwhile arrives once`, {
    timeout: 120_000,
  }, async (t) => {
    const room = await makeRoom(t);
    const a = startAgent(room, room.members.voce);
    const b = startAgent(room, room.members.colega);
    await Promise.all([a.client.initialize(), b.client.initialize()]);
    await statusUntil(a.client, /colega \(agent\): online.*link: direct/);
    const before = await callText(a.client, 'send', { message: 'Before the freeze.' });
    assert.match(before, /^Delivered to colega/);

    // Exactly one process under papo mcp holds WebRTC, and papo mcp itself never loads it.
    const parent = a.child.pid as number;
    const [transport, ...more] = webRtcChildren(parent);
    assert.ok(transport !== undefined, 'a transport process under papo mcp');
    assert.deepEqual(more, []);
    assert.equal(holdsWebRtc(parent), false, 'papo mcp itself does not load node-datachannel');
    t.after(() => {
      try {
        process.kill(transport, 'SIGKILL');
      } catch {
        // already gone, as it should be
      }
    });

    process.kill(transport, how);
    // papo mcp answers at once: ping, and a status that says the network process is in trouble.
    const pong = await a.client.request('ping', {}, 2000);
    assert.deepEqual(pong.result, {});
    const started = Date.now();
    const status = await callText(a.client, 'status');
    t.diagnostic(
      `status answered in ${Date.now() - started} ms while the transport was ${how === 'SIGSTOP' ? 'frozen' : 'dead'}`,
    );
    if (how === 'SIGSTOP') {
      // Before the 5 s limit: it has not answered, and papo says it will end it by itself.
      assert.match(
        status,
        /^WARNING: papo's network process has not answered for \d+s \(it may be frozen\); papo ends it and starts it again by itself after 5s\./m,
      );
    } else {
      // Seen as silent (the exit not yet noticed), as ended, or already replaced (a restart takes
      // tens of milliseconds), depending on who is faster.
      assert.match(
        status,
        /^(WARNING: papo's network process (was ended by SIGKILL; papo is starting it again|has not answered for \d+s)|Network process: started again once by papo, .* because it was ended by SIGKILL;)/m,
      );
    }

    // Sent while the transport is down: queued (or delivered, if the new one linked in time).
    const during = await callText(a.client, 'send', { message: 'Sent while the network process was down.' });
    const id = msgIdIn(during);
    assert.match(during, /^(Delivered to colega|Not acknowledged yet)/);

    // colega's agent gets it, once.
    const waited = await callText(b.client, 'wait', { timeout_seconds: 60 });
    assert.match(waited, /Sent while the network process was down\./);
    assert.equal(waited.split('Sent while the network process was down.').length - 1, 1);
    assert.equal(await callText(b.client, 'inbox'), 'No unread messages.');
    await toolUntil(a.client, 'status', /Queued for delivery: 0\./);
    assert.equal(await timesReceived(b.client, id), 1, 'stored once by colega');

    // A new transport runs under the same papo mcp, and the old one is gone.
    const [next] = await waitFor(
      'a new transport process',
      () => {
        const now = webRtcChildren(parent);
        return now.length === 1 && now[0] !== transport ? now : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    assert.ok(next !== undefined && next !== transport);
    assert.equal(childPids(parent).includes(transport), false, 'the old transport was ended');
    const after = await statusUntil(a.client, /colega \(agent\): online.*link: direct/);
    const why = how === 'SIGSTOP' ? 'stopped answering for \\d+ s \\(frozen\\)' : 'was ended by SIGKILL';
    assert.match(
      after,
      new RegExp(
        `^Network process: started again once by papo, the last time \\d+s ago because it ${why}; links are re-made by themselves\\.$`,
        'm',
      ),
    );
    assert.doesNotMatch(after, /WARNING/);
    assert.match(
      a.stderr(),
      new RegExp(`papo: the transport process \\(WebRTC\\) ${why}; starting it again`),
    );
    // What /proc showed of its main thread, for the person reading stderr.
    if (how === 'SIGSTOP') assert.match(a.stderr(), /starting it again \(its main thread was stopped\)/);
    // And the other way: colega's answer reaches voce over the new link.
    const reply = await callText(b.client, 'send', { message: 'Got it after the restart.', reply_to: id });
    assert.match(reply, /^Delivered to voce/);
  });
}

test('a person says while the agent’s transport is frozen: papo mcp ends it and starts it again, and the say, which saw the agent on the topic, waits for it back and is delivered — not "I don\'t know anyone"', {
  timeout: 120_000,
}, async (t) => {
  // ana is the person: no papo mcp runs in her profile, so her say is an ephemeral member that
  // knows nobody but whom it meets on the room's topic (as in CI: a coverage run's load froze the
  // agent's transport during the fourth of 15 says, which ended after 6.6 s with that error).
  const room = await makeRoom(t, { names: ['voce', 'ana'] });
  const agent = startAgent(room, room.members.voce);
  await agent.client.initialize();
  await callText(agent.client, 'status');
  const parent = agent.child.pid as number;
  const [transport] = webRtcChildren(parent);
  assert.ok(transport !== undefined, 'a transport process under papo mcp');
  t.after(() => {
    try {
      process.kill(transport, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
  });
  // Frozen: still on the signal server (papo mcp hosts it and holds its socket), answering nothing.
  process.kill(transport, 'SIGSTOP');
  const started = Date.now();
  const said = await runPapo(['say', 'while your papo was frozen'], {
    env: userEnv(room.members.ana.home),
    timeoutMs: 60_000,
  });
  t.diagnostic(`the say took ${Date.now() - started} ms: ${said.stdout.trim()} ${said.stderr.trim()}`);
  assert.equal(said.code, 0, said.stderr);
  assert.match(said.stdout, /^delivered to voce \(msg [0-9a-f]{10}\)$/m);
  assert.match(
    agent.stderr(),
    /the transport process \(WebRTC\) stopped answering for \d+ s \(frozen\); starting it again/,
  );
  const waited = await callText(agent.client, 'wait', { timeout_seconds: 10 });
  assert.match(waited, /while your papo was frozen/);
});

test('a transport that dies at every start: bounded backoff, papo mcp keeps answering, and status and send say so', {
  timeout: 60_000,
}, async (t) => {
  const room = await makeRoom(t);
  const a = startAgent(room, room.members.voce, { PAPO_TEST_TRANSPORT_FAIL: 'start' });
  await a.client.initialize();
  // A transport that says it cannot run is a crash loop from its first end (retried after 2, 5,
  // 10, 30 s).
  const status = await statusUntil(a.client, /keeps stopping/, 20_000);
  assert.match(
    status,
    /^WARNING: papo's network process keeps stopping: it could not run \(injected start failure \(PAPO_TEST_TRANSPORT_FAIL\)\)\. papo has started it again (once|\d+ times) and keeps trying \((next in \d+s|starting it now)\)\. Until it runs, no message goes out or comes in; they stay queued\. Tell your user; `PAPO_LOG=info papo status` in a terminal shows more\.$/m,
  );
  const pong = await a.client.request('ping', {}, 2000);
  assert.deepEqual(pong.result, {});
  const sent = await a.client.call('send', { message: 'Nobody can hear this yet.' }, undefined, 20_000);
  const text = resultText(sent);
  assert.match(text, /^Not acknowledged yet \(msg_id [0-9a-f]{10}\)\. It is queued/);
  assert.match(text, /^WARNING: papo's network process keeps stopping/m);
  // Bounded: 2 + 5 s of delays, then 10 s, in the first seconds (plus the starts themselves).
  const restarts = (a.stderr().match(/starting it again/g) ?? []).length;
  assert.ok(restarts >= 2 && restarts <= 4, `restarts in the first seconds: ${restarts}`);
  assert.match(a.stderr(), /starting it again in 5 s/);
  assert.match(await callText(a.client, 'status'), /Queued for delivery: 1\./);
});
