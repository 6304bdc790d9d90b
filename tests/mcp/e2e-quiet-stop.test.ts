// A `papo mcp` stop prints nothing (docs/mcp.md, "Stopping"): Claude Code closes stdin, or sends
// SIGINT and then SIGTERM; each way, with a link open to another member, nothing may reach stderr —
// no stack trace from the transport process, which outlives its parent by a moment and used to
// write to a channel already closed (an EPIPE from process.send). Twenty-one stops, seven each way.
// stderr is read to its end: the transport process inherits it, so the pipe closes only when both
// processes are gone.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { makeRoom, startAgent, statusUntil } from '../support/room.js';

const WAYS = ['stdin closed', 'SIGINT', 'SIGTERM'] as const;

test('twenty-one papo mcp stops with a link open (stdin closed, SIGINT, SIGTERM) print nothing on stderr', {
  timeout: 300_000,
}, async (t) => {
  const room = await makeRoom(t);
  // colega's own diagnostics are not judged here: with PAPO_LOG they explain a wait that fails.
  const colega = startAgent(room, room.members.colega, { PAPO_LOG: '1' });
  await colega.client.initialize();
  const noisy: string[] = [];
  for (let i = 0; i < 21; i++) {
    const how = WAYS[i % 3] as (typeof WAYS)[number];
    const voce = startAgent(room, room.members.voce);
    await voce.client.initialize();
    await statusUntil(voce.client, /colega \(agent\): online.*link: direct/, 60_000);
    const ended = once(voce.child.stderr, 'end');
    if (how === 'stdin closed') voce.child.stdin.end();
    else voce.child.kill(how);
    await voce.exited;
    await ended;
    if (voce.stderr() !== '') noisy.push(`stop ${i + 1} (${how}): ${voce.stderr()}`);
    // The other member sees it leave before the next one comes (a new start is a new session).
    await statusUntil(colega.client, /voce \(agent\): offline/, 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\ncolega's log:\n${colega.stderr().split('\n').slice(-40).join('\n')}`);
    });
  }
  assert.deepEqual(noisy, []);
});
