// Pushed messages and `wait`/`inbox` (ADR 0066), between two real `papo mcp` processes over stdio.
// papo cannot tell whether its pushes reach the model, so until this session holds evidence that
// they do, a pushed message is still returned by `wait`/`inbox` (with channels off nothing is
// lost), its header marked as pushed. The evidence: a `send` whose `reply_to` names a message that
// arrived live, was pushed, and whose id no tool result showed. From then on a pushed message is
// read at once: `wait`/`inbox` do not hand it again, `history` still shows it. A `wait` in flight
// takes what it waits for instead of a push. A restart, and the startup sweep, prove nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALREADY_PUSHED } from '../../src/mcp/texts.js';
import { msgIdIn } from '../support/papo.js';
import {
  callText,
  channelPushes,
  makeRoom,
  pushOf,
  startAgent,
  statusUntil,
  toolUntil,
} from '../support/room.js';
import type { RpcClient } from '../support/rpc-client.js';

/** The header of `id` in a wait/inbox result, with the pushed mark or without it. */
function header(id: string, pushed: boolean): RegExp {
  const mark = pushed ? ALREADY_PUSHED.replace(/[()<>]/g, '\\$&') : '';
  return new RegExp(`^\\[msg_id=${id} from=colega \\(agent\\) at [^\\]]+\\]${mark}$`, 'm');
}

/** A `wait` sent without awaiting it; resolves once the server is inside it (its first progress). */
async function waitInFlight(client: RpcClient, token: string): Promise<{ result: Promise<string> }> {
  const pending = callText(client, 'wait', { timeout_seconds: 20 }, { progressToken: token });
  await client.waitFor(
    (m) => m.method === 'notifications/progress' && m.params?.progressToken === token,
    10_000,
    'the wait in flight',
  );
  return { result: pending };
}

test('pushes and wait/inbox: returned until proven, not again after, a wait in flight, a restart', async (t) => {
  const room = await makeRoom(t);
  const env = { PAPO_TEST_PROGRESS_MS: '100' };
  let a = startAgent(room, room.members.voce, env);
  const b = startAgent(room, room.members.colega);
  await a.client.initialize();
  await b.client.initialize();
  await statusUntil(a.client, /colega \(agent\): online/);
  await statusUntil(b.client, /voce \(agent\): online/);
  /** colega writes to voce; resolves with the id once voce's server pushed it. */
  const say = async (body: string): Promise<string> => {
    const id = msgIdIn(await callText(b.client, 'send', { message: body, to: 'voce' }));
    await pushOf(a.client, id);
    return id;
  };

  let m1 = '';
  await t.test('unproven: a pushed message is still returned by inbox and by wait, marked', async () => {
    m1 = await say('One: which port does the webhook use?');
    assert.match(await callText(a.client, 'inbox'), header(m1, true));
    const m2 = await say('Two: and the path?');
    assert.match(await callText(a.client, 'wait', { timeout_seconds: 5 }), header(m2, true));
    assert.equal(await callText(a.client, 'inbox'), 'No unread messages.');
  });

  await t.test('no evidence: a reply to an id that inbox or history showed', async () => {
    // m1 came back from `inbox`: the model may know it from there.
    await callText(a.client, 'send', { message: 'Port 8443.', reply_to: m1 });
    const m3 = await say('Three: TLS?');
    assert.match(await callText(a.client, 'history'), new RegExp(`\\(msg ${m3}\\)`));
    await callText(a.client, 'send', { message: 'Yes, TLS.', reply_to: m3 });
    const m4 = await say('Four: retries?');
    assert.match(await callText(a.client, 'inbox'), header(m4, true));
  });

  await t.test('a wait in flight takes the message: no push, returned once, unmarked', async () => {
    const { result } = await waitInFlight(a.client, 'w1');
    const m5 = msgIdIn(await callText(b.client, 'send', { message: 'Five: during the wait.', to: 'voce' }));
    assert.match(await result, header(m5, false));
    await a.client.request('ping');
    assert.ok(!channelPushes(a.client).some((p) => p.meta.msg_id === m5), 'm5 was not pushed');
  });

  let m7 = '';
  await t.test(
    'evidence: a reply to an id only a push showed; the pushed ones still unread are read',
    async () => {
      const m6 = await say('Six: who owns the URL?');
      m7 = await say('Seven: and the secret?');
      assert.match(await callText(a.client, 'status'), /^Unread: 2\./m);
      await callText(a.client, 'send', { message: 'We own it.', reply_to: m6 });
      // m6 by reply_to, m7 because it was pushed and pushes are now known to reach the model.
      assert.match(await callText(a.client, 'status'), /^Unread: 0\./m);
    },
  );

  await t.test(
    'proven: a new pushed message is not handed again by inbox or wait; history has it',
    async () => {
      const m8 = await say('Eight: after the evidence.');
      await statusUntil(a.client, /^Unread: 0\./m);
      assert.equal(await callText(a.client, 'inbox'), 'No unread messages.');
      assert.match(await callText(a.client, 'wait', { timeout_seconds: 1 }), /^No new messages after 1s\./);
      const history = await callText(a.client, 'history');
      assert.match(history, new RegExp(`\\(msg ${m8}\\): Eight: after the evidence\\.$`, 'm'));
      assert.match(history, new RegExp(`\\(msg ${m7}\\): Seven`));
    },
  );

  await t.test(
    'proven, a wait in flight: it still returns the message that arrives (never lost)',
    async () => {
      const { result } = await waitInFlight(a.client, 'w2');
      const m9 = msgIdIn(await callText(b.client, 'send', { message: 'Nine: during a wait.', to: 'voce' }));
      assert.match(await result, header(m9, false));
      await a.client.request('ping');
      assert.ok(!channelPushes(a.client).some((p) => p.meta.msg_id === m9), 'm9 was not pushed');
    },
  );

  await t.test('a restart starts unproven, and the startup sweep is no evidence', async () => {
    await a.stop();
    const m10 = msgIdIn(
      await callText(b.client, 'send', { message: 'Ten: while you were away.', to: 'voce' }),
    );
    a = startAgent(room, room.members.voce, env);
    await a.client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {} });
    // Stored before the pump starts: the sweep pushes it, it never arrives live in this session.
    await toolUntil(a.client, 'status', /^Unread: 1\./m);
    a.client.notify('notifications/initialized');
    await pushOf(a.client, m10);
    await callText(a.client, 'send', { message: 'Back now.', reply_to: m10 });
    const m11 = await say('Eleven: after the restart.');
    assert.match(await callText(a.client, 'inbox'), header(m11, true));
  });
});
