// The local signal server changes hands (docs/architecture.md, "The local signal server"): a room
// on a loopback ws:// URL meets on a server hosted by whichever process of this machine took the
// port first — often a person's short `papo say`, when it starts before the agent's papo mcp has
// the port. When that process exits, the agent takes the port over; its transport must be on the
// topic again at once, not after its signal client's backoff (1-1.5 s): a say run in that gap met
// an empty topic and ended with "I don't know anyone in this room yet" (issue 40, item 7: the
// relayed-say regression, which is this race on whichever path the link takes).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSignalServer } from '../../src/signal-server/server.js';
import { runPapo, userEnv } from '../support/papo.js';
import { makeRoom, startAgent } from '../support/room.js';

test('the process hosting the local signal server exits: papo mcp takes the port over and is on the topic again at once, so a say run right away is delivered', {
  timeout: 120_000,
}, async (t) => {
  // ana is the person: her profile is in the room, and no papo mcp ever runs in it.
  const room = await makeRoom(t, { names: ['voce', 'ana'] });
  const port = Number(new URL(room.signalUrl).port);
  const env = userEnv(room.members.ana.home);
  // This process holds the port, as a say that started first does.
  const host = await startSignalServer({ host: '127.0.0.1', port, env: {} });
  let hosting = true;
  t.after(() => (hosting ? host.close() : undefined));
  await startAgent(room, room.members.voce).client.initialize();
  // Said until delivered: then the agent is on the host's topic.
  const say = (text: string) => runPapo(['say', text], { env, timeoutMs: 60_000 });
  let before = await say('before');
  for (let i = 0; i < 20 && !/^delivered to voce\b/.test(before.stdout); i++) {
    await new Promise((r) => setTimeout(r, 250));
    before = await say('before');
  }
  assert.match(before.stdout, /^delivered to voce\b/, before.stdout + before.stderr);
  // The host exits, and the next say starts at once.
  await host.close();
  hosting = false;
  const after = await say('after');
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.match(after.stdout, /^delivered to voce\b/);
});
