// End to end, across sessions: a message sent while the other agent is down waits in the outbox
// and is delivered when it starts; unread messages are pushed at the start of a session and never
// twice in one; one server per profile (a second gets the lock error from every tool while the
// first keeps working); SIGTERM and stdin EOF end the server with the profile free for the next.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { networkWarnings, PROFILE_LOCKED } from '../../src/mcp/texts.js';
import type { McpProcess } from '../support/mcp-process.js';
import { msgIdIn } from '../support/papo.js';
import { webRtcChildren } from '../support/processes.js';
import {
  callText,
  channelPushes,
  type MemberHome,
  makeRoom,
  pushOf,
  type Room,
  startAgent,
  statusUntil,
  toolUntil,
} from '../support/room.js';
import { resultText } from '../support/rpc-client.js';
import { waitFor } from '../support/wait.js';

/** The profile can be taken: the lock file is gone, or its holder is dead (a stale lock is taken over). */
function assertLockReleased(side: MemberHome, exitedPid: number): void {
  const path = join(side.home, 'profiles', 'default', 'lock');
  if (!existsSync(path)) return;
  const holder = JSON.parse(readFileSync(path, 'utf8')) as { pid: number };
  assert.equal(holder.pid, exitedPid, 'a lock left behind can only be the exited server’s (stale)');
}

/** A fresh server on the profile opens its member: status answers without the lock error. */
async function assertProfileFree(room: Room, side: MemberHome): Promise<McpProcess> {
  const next = startAgent(room, side);
  await next.client.initialize();
  const status = await callText(next.client, 'status');
  assert.match(status, new RegExp(`^You are "${side.name}" in room`, 'm'));
  return next;
}

test('offline then online, pushes across sessions, one server per profile, exit with the lock released', async (t) => {
  const room = await makeRoom(t);
  const a = startAgent(room, room.members.voce);
  await a.client.initialize();

  let queued = '';
  await t.test(
    'send while colega is down: queued, nobody online, and the room is on this machine only',
    async () => {
      const text = await callText(a.client, 'send', { message: 'Sent while you were away.' });
      queued = msgIdIn(text);
      // Nobody was ever seen in a room that meets on loopback: the agent is told why that may be.
      assert.equal(
        text,
        [
          `Not acknowledged yet (msg_id ${queued}). It is queued and will be delivered automatically when a peer is reachable. No peer is online right now.`,
          networkWarnings({
            signalUrl: room.signalUrl,
            loopback: true,
            knowsMembers: false,
            signal: { joined: true },
            transport: { state: 'running', restarts: 0, failing: false, stallSeconds: 5 },
          })[0],
        ].join('\n'),
      );
      assert.match(text, /^WARNING: this room meets on ws:\/\/127\.0\.0\.1:\d+, on this machine only/m);
      assert.match(await callText(a.client, 'status'), /^Unread: 0\. Queued for delivery: 1\.$/m);
    },
  );

  let b = startAgent(room, room.members.colega);
  await t.test('colega starts: the queued message is pushed to it and voce’s outbox clears', async () => {
    await b.client.initialize();
    assert.deepEqual(await pushOf(b.client, queued), {
      content: 'Sent while you were away.',
      meta: { from: 'voce', msg_id: queued, sender_kind: 'agent' },
    });
    await statusUntil(a.client, /^Unread: 0\. Queued for delivery: 0\.$/m);
    // The outbox empties in memory a moment before the "delivered" line is on disk.
    await toolUntil(a.client, 'history', new RegExp(`\\] delivered ${queued} to colega$`, 'm'));
  });

  await t.test('stdin EOF: colega exits with status 0 and its profile is free', async () => {
    const pid = b.child.pid as number;
    b.child.stdin.end();
    assert.deepEqual(await b.exited, { code: 0, signal: null });
    assertLockReleased(room.members.colega, pid);
    b = await assertProfileFree(room, room.members.colega);
  });

  let later = '';
  await t.test('a new session pushes the unread message at start, and each message once', async () => {
    // `b` is the session assertProfileFree opened: initialized, so the pump swept the inbox.
    await pushOf(b.client, queued);
    await statusUntil(a.client, /colega \(agent\): online/);
    later = msgIdIn(await callText(a.client, 'send', { message: 'And one more, live.' }));
    await pushOf(b.client, later);
    assert.match(await callText(b.client, 'status'), /^Unread: 2\./m);
    const ids = channelPushes(b.client).map((p) => p.meta.msg_id);
    assert.deepEqual(ids.sort(), [queued, later].sort());
    // The pushes marked nothing read: inbox returns both, oldest first.
    const inbox = await callText(b.client, 'inbox');
    assert.ok(inbox.indexOf(`msg_id=${queued}`) < inbox.indexOf(`msg_id=${later}`), inbox);
    assert.ok(inbox.includes(`msg_id=${queued}`));
  });

  await t.test(
    'a second server on the same profile: every tool says so; the first keeps working',
    async () => {
      const second = startAgent(room, room.members.colega);
      await second.client.initialize();
      const calls: [string, Record<string, unknown>][] = [
        ['send', { message: 'hello' }],
        ['wait', { timeout_seconds: 1 }],
        ['inbox', {}],
        ['history', {}],
        ['status', {}],
      ];
      for (const [name, args] of calls) {
        const result = await second.client.call(name, args);
        assert.equal(result.isError, true, name);
        assert.ok(resultText(result).includes(PROFILE_LOCKED), `${name}: ${resultText(result)}`);
      }
      // The transport it forked early (ADR 0091) never got the room, and is gone: it joined nothing.
      await waitFor(
        'the early transport of the second to end',
        () => webRtcChildren(second.pid).length === 0,
      );
      assert.equal(webRtcChildren(a.pid).length, 1, 'the first keeps its one transport process');
      await second.stop();
      const id = msgIdIn(await callText(a.client, 'send', { message: 'Still there?' }));
      assert.equal((await pushOf(b.client, id)).content, 'Still there?');
      assert.match(await callText(b.client, 'status'), /^- voce \(agent\): online/m);
    },
  );

  await t.test('SIGTERM: exit status 0 and the profile is free at once', async () => {
    const pid = b.child.pid as number;
    b.child.kill('SIGTERM');
    assert.deepEqual(await b.exited, { code: 0, signal: null });
    assertLockReleased(room.members.colega, pid);
    b = await assertProfileFree(room, room.members.colega);
  });

  await t.test('the server that hosted the signal server exits; the other takes the port over', async () => {
    const pid = a.child.pid as number;
    a.child.kill('SIGTERM');
    assert.deepEqual(await a.exited, { code: 0, signal: null });
    assertLockReleased(room.members.voce, pid);
    const again = startAgent(room, room.members.voce);
    await again.client.initialize();
    await statusUntil(again.client, /colega \(agent\): online/);
    const id = msgIdIn(await callText(again.client, 'send', { message: 'Back again.' }));
    assert.equal((await pushOf(b.client, id)).meta.from, 'voce');
  });
});
