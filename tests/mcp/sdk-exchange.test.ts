// The end-to-end exchange driven by a client no one here wrote: the official MCP TypeScript SDK's
// Client over its StdioClientTransport, one per agent, each spawning the built `papo mcp` in its
// own home and project folder. initialize, tools/list, send, the channel push (through the SDK's
// fallback notification handler: it has no schema for claude/channel), reply with reply_to,
// history.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Notification } from '@modelcontextprotocol/sdk/types.js';
import { PAPO_BIN, userEnv } from '../support/papo.js';
import { type MemberHome, makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';

interface SdkAgent {
  client: Client;
  pushes: Notification['params'][];
  /** Resolves with the push of `msgId` (received already or to come). */
  pushOf(msgId: string): Promise<NonNullable<Notification['params']>>;
  text(name: string, args?: Record<string, unknown>): Promise<string>;
}

async function connect(side: MemberHome, onClose: (fn: () => Promise<void>) => void): Promise<SdkAgent> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PAPO_BIN, 'mcp'],
    env: userEnv(side.home) as Record<string, string>,
    cwd: side.project,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sdk-e2e', version: '0' });
  const pushes: Notification['params'][] = [];
  const listeners: (() => void)[] = [];
  client.fallbackNotificationHandler = async (n) => {
    if (n.method !== 'notifications/claude/channel') return;
    pushes.push(n.params);
    for (const l of [...listeners]) l();
  };
  onClose(() => client.close());
  await client.connect(transport);
  const find = (id: string) =>
    pushes.find((p) => (p?.meta as { msg_id?: string } | undefined)?.msg_id === id);
  return {
    client,
    pushes,
    pushOf: (id) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no push of ${id}`)), 20_000);
        const check = () => {
          const p = find(id);
          if (p === undefined) return;
          clearTimeout(timer);
          listeners.splice(listeners.indexOf(check), 1);
          resolve(p);
        };
        listeners.push(check);
        check();
      }),
    async text(name, args = {}) {
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 });
      const content = result.content as { type: string; text: string }[];
      assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(content)}`);
      return content.map((c) => c.text).join('\n');
    },
  };
}

/** How the links settle: `status` every 200 ms, for 30 s at the most. */
const SETTLE = { timeoutMs: 30_000, intervalMs: 200 };

test('the official SDK client drives the exchange: send, push, reply with reply_to, history', async (t) => {
  const room = await makeRoom(t);
  // The clients (and the servers they spawned) are closed before makeRoom's hook removes the homes.
  const closers: (() => Promise<void>)[] = [];
  try {
    const a = await connect(room.members.voce, (fn) => closers.push(fn));
    const b = await connect(room.members.colega, (fn) => closers.push(fn));

    assert.equal(a.client.getServerVersion()?.name, 'papo');
    assert.deepEqual(a.client.getServerCapabilities()?.experimental, { 'claude/channel': {} });
    assert.match(a.client.getInstructions() ?? '', new RegExp(`"voce", a member of room ${room.roomId}`));
    const { tools } = await b.client.listTools();
    assert.deepEqual(
      tools.map((x) => x.name),
      ['send', 'wait', 'inbox', 'history', 'status'],
    );

    await waitFor(
      'colega online',
      async () => /colega \(agent\): online/.test(await a.text('status')),
      SETTLE,
    );
    await waitFor('voce online', async () => /voce \(agent\): online/.test(await b.text('status')), SETTLE);

    const proposal = 'payments-api here: we will POST payment.confirmed to your webhook. Your URL?';
    const sent = await a.text('send', { message: proposal });
    const id = /^Delivered to colega \(msg_id ([0-9a-f]{10})\)\./.exec(sent)?.[1];
    assert.ok(id, sent);
    assert.deepEqual(await b.pushOf(id), {
      content: proposal,
      meta: { from: 'voce', msg_id: id, sender_kind: 'agent' },
    });

    const answer = 'POST /internal/webhooks/payments; send "type" and a uuid "event_id".';
    const replied = await b.text('send', { message: answer, reply_to: id });
    const replyId = /^Delivered to voce \(msg_id ([0-9a-f]{10})\)\./.exec(replied)?.[1];
    assert.ok(replyId, replied);
    assert.deepEqual(await a.pushOf(replyId), {
      content: answer,
      meta: { from: 'colega', msg_id: replyId, sender_kind: 'agent', reply_to: id },
    });
    // The reply marked the proposal read on colega's side.
    assert.match(await b.text('status'), /^Unread: 0\./m);

    const history = await a.text('history', { limit: 10 });
    assert.match(
      history,
      new RegExp(`\\] voce -> room \\(msg ${id}\\): ${proposal.replace(/[.?]/g, '\\$&')}$`, 'm'),
    );
    assert.match(history, new RegExp(`\\] delivered ${id} to colega$`, 'm'));
    assert.match(
      history,
      new RegExp(`\\] colega \\(agent\\) -> voce \\(msg ${replyId}, reply to ${id}\\): POST `, 'm'),
    );
  } finally {
    await Promise.all(closers.map((close) => close()));
  }
});
