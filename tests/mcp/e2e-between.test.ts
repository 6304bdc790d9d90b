// The moments between (issue 40, ADR 0115): a colleague whose papo stops answering — frozen with
// SIGSTOP, as its link looks after a network move: open, and silent — is not shown as fine. While
// its link carries a message and brings nothing back, `status` says the link is not answering, not
// "direct"; once the link closes, a room of two says the colleague is on the signal server with no
// link, never "online, link: through another member" (there is no other member); `wait` says why
// nothing comes. The signal server is this test's own, with its ping slowed, so that the frozen
// member stays on its topic for the whole test, as it does for its first 20-40 s on a real one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSignalServer } from '../../src/signal-server/server.js';
import { webRtcChildren } from '../support/processes.js';
import { callText, makeRoom, startAgent, statusUntil } from '../support/room.js';

test('a colleague that stops answering: its link "not answering", then "on the signal server, no link yet" — never "direct" or "through another member" in a room of two; wait says why', {
  timeout: 180_000,
}, async (t) => {
  const room = await makeRoom(t);
  const port = Number(new URL(room.signalUrl).port);
  const server = await startSignalServer({
    host: '127.0.0.1',
    port,
    env: {},
    config: { pingIntervalMs: 600_000 },
  });
  t.after(() => server.close());
  const voce = startAgent(room, room.members.voce);
  const colega = startAgent(room, room.members.colega);
  await Promise.all([voce.client.initialize(), colega.client.initialize()]);
  await statusUntil(voce.client, /colega \(agent\): online, .*link: direct$/m, 60_000);
  await statusUntil(colega.client, /voce \(agent\): online, .*link: direct$/m, 60_000);

  // colega's papo mcp and its transport process, frozen.
  const parent = colega.child.pid as number;
  const frozen = [parent, ...webRtcChildren(parent)];
  assert.equal(frozen.length, 2, 'papo mcp and its transport process');
  for (const pid of frozen) process.kill(pid, 'SIGSTOP');
  t.after(() => {
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
  });

  const sent = await callText(voce.client, 'send', { message: 'Still there?' });
  assert.match(sent, /^Not acknowledged yet/);
  const quiet = await statusUntil(
    voce.client,
    /colega \(agent\): online, .*link: not answering for \d+s/,
    30_000,
  );
  assert.match(
    quiet,
    /^- colega \(agent\): online, working on: [^\n]*, link: not answering for \d+s \(direct until then\)$/m,
  );

  // The link closes by itself (ICE and SCTP give up); colega is still on the signal server.
  const closed = await statusUntil(
    voce.client,
    /colega \(agent\): on the signal server, no link yet/,
    90_000,
  );
  assert.match(closed, /^- colega \(agent\): on the signal server, no link yet, working on: [^\n]*$/m);
  assert.doesNotMatch(closed, /through another member/);
  // wait: why nothing comes — papo links (the first 12 s), or no path works (after).
  const waited = await callText(voce.client, 'wait', { timeout_seconds: 1 });
  assert.match(
    waited,
    /colega is on the signal server but not linked yet; papo is linking now\.|WARNING: colega is on the signal server .* but no network path between the machines works/,
  );
});
