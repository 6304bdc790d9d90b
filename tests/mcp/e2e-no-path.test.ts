// A room whose members meet on the signal server but cannot link says why (issue 26, item 3): two
// real papo mcp that knew each other, started again with PAPO_ICE_POLICY=relay and no TURN handed
// out (relay-only without TURN gathers no candidate, so no link forms), on a real signal server on
// loopback. Within the bound (NO_PATH_AFTER_MS and a little), the agent's `status` and `send` and
// the person's `papo status` say the colleague is on the signal server but no path works, and why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_PATH_AFTER_MS } from '../../src/client/net/health.js';
import { runPapo, userEnv } from '../support/papo.js';
import { callText, makeRoom, startAgent, statusUntil } from '../support/room.js';

const RELAY_ONLY = { PAPO_ICE_POLICY: 'relay' };
/** The bound, and what a status call and a heartbeat of the transport take on a loaded machine. */
const WITHIN_MS = NO_PATH_AFTER_MS + 8000;

test('members on the signal server with no path (relay-only, no TURN): status, send and papo status say so and why, and never offer papo forget', {
  timeout: 180_000,
}, async (t) => {
  const room = await makeRoom(t);
  // First they meet, so each knows the other by name (and a queued message waits for colega).
  const a0 = startAgent(room, room.members.voce);
  const b0 = startAgent(room, room.members.colega);
  await Promise.all([a0.client.initialize(), b0.client.initialize()]);
  await statusUntil(a0.client, /colega \(agent\): online/, 60_000);
  await statusUntil(b0.client, /voce \(agent\): online/, 60_000);
  await Promise.all([a0.stop(), b0.stop()]);

  const a = startAgent(room, room.members.voce, RELAY_ONLY);
  const b = startAgent(room, room.members.colega, RELAY_ONLY);
  await Promise.all([a.client.initialize(), b.client.initialize()]);
  const started = Date.now();
  const said =
    /colega is on the signal server .* like you \(so not gone from the room\), but no network path between the machines works.*PAPO_ICE_POLICY=relay allows relayed paths only, and no TURN relay is configured/;
  const status = await statusUntil(a.client, said, WITHIN_MS);
  t.diagnostic(`status said it after ${Date.now() - started} ms`);
  // On the topic, not gone: never "offline" (ADR 0115).
  assert.match(status, /colega \(agent\): on the signal server, no link yet/);
  assert.match(status, /Do not suggest `papo forget`/);

  const sent = await callText(a.client, 'send', { message: 'the schema changed: see PR 12' });
  assert.match(sent, /No peer is online right now/);
  assert.match(sent, said);
  const again = await callText(a.client, 'status');
  assert.match(again, /Queued for delivery: 1/);

  const cli = await runPapo(['status', '--timeout', String(Math.ceil(WITHIN_MS / 1000))], {
    env: userEnv(room.members.voce.home, { ...RELAY_ONLY, LANG: 'C' }),
    timeoutMs: WITHIN_MS + 30_000,
  });
  const out = `${cli.stdout}\n${cli.stderr}`;
  t.diagnostic(out);
  assert.match(
    out,
    /warning: .*colega.* on the signal server .* \(not gone from the room\), but no network path between your machines works.*PAPO_ICE_POLICY=relay allows relayed paths only and no TURN relay is configured/,
  );
  // The message waits for colega, who is on the signal server: forget is not offered.
  assert.match(out, /Waiting for: colega \(1\)\./);
  assert.doesNotMatch(out, /papo forget/);

  // papo doctor in a terminal without the agent's PAPO_ICE_POLICY: its own probes find nothing
  // wrong (a loopback room), but the agent's papo mcp sees no path, and doctor agrees with papo
  // status (issue 40): it fails, with the same line.
  const doc = await runPapo(['doctor'], {
    env: userEnv(room.members.voce.home, { LANG: 'C' }),
    timeoutMs: 60_000,
  });
  t.diagnostic(doc.stdout);
  assert.equal(doc.code, 1, doc.stdout + doc.stderr);
  assert.match(
    doc.stdout,
    /^\[FAIL\] +room now +warning: colega is on the signal server .* \(not gone from the room\), but no network path between your machines works.*PAPO_ICE_POLICY=relay allows relayed paths only/m,
  );
  assert.match(doc.stdout, /fix: that is your agent's papo mcp's own view, as papo status shows it/);
  assert.match(doc.stdout, /^\[ok\] +path /m, "doctor's own probe from this terminal finds a path");
});
