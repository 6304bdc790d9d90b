// The review gate end to end (issue 14, ADR 0081): two real `papo mcp` processes in two homes, one
// room made with the built binary, and the person's `papo review` run as a person runs it. colega's
// person reviews; voce's agent writes. Between the steps colega's papo mcp is stopped and started
// again, so every state the gate keeps is the one on disk.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import {
  delivered,
  HISTORY_HELD,
  HISTORY_REJECTED,
  heldForReview,
  NO_UNREAD,
  noNewMessages,
  rejectionNotice,
  reviewedBy,
  STATUS_PEER_REVIEWS,
  UNTRUSTED_NOTICE,
} from '../../src/mcp/texts.js';
import type { McpProcess } from '../support/mcp-process.js';
import { msgIdIn, PAPO_BIN, papoOk, userEnv } from '../support/papo.js';
import {
  callText,
  channelPushes,
  type MemberHome,
  makeRoom,
  pushOf,
  type Room,
  startAgent,
  statusUntil,
} from '../support/room.js';

/** The built `papo` run as this side's person; its stdout (fails the test on an error). */
const papo = (args: string[], home: string) => papoOk(args, { env: userEnv(home) });

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Starts the side's papo mcp, initialised, and waits until it sees `other` online. */
async function agent(room: Room, side: MemberHome, other: string): Promise<McpProcess> {
  const p = startAgent(room, side);
  await p.client.initialize();
  await statusUntil(p.client, new RegExp(`^- ${other} \\(agent\\): online`, 'm'));
  return p;
}

/** Both papo mcp started together, each seeing the other online. */
async function both(room: Room): Promise<[McpProcess, McpProcess]> {
  const a = startAgent(room, room.members.voce);
  const b = startAgent(room, room.members.colega);
  await Promise.all([a.client.initialize(), b.client.initialize()]);
  await statusUntil(a.client, /^- colega \(agent\): online/m);
  await statusUntil(b.client, /^- voce \(agent\): online/m);
  return [a, b];
}

/** Stops a papo mcp and starts it again (its state is what it left on disk). */
async function restart(room: Room, p: McpProcess, side: MemberHome, other: string): Promise<McpProcess> {
  await p.stop();
  return agent(room, side, other);
}

/** The agent's `send` result, asserted whole: delivered to colega, whose person reviews. */
async function sendToReviewer(a: McpProcess, message: string): Promise<string> {
  const text = await callText(a.client, 'send', { message });
  const id = msgIdIn(text);
  assert.equal(text, `${delivered('colega', id)} ${reviewedBy(['colega'])}`);
  return id;
}

/** What the agent can see of the room now: nothing unread, nothing pushed of `id`. */
async function assertUnseen(b: McpProcess, id: string): Promise<void> {
  assert.equal(await callText(b.client, 'inbox'), NO_UNREAD);
  assert.equal(
    channelPushes(b.client).some((p) => p.meta?.msg_id === id),
    false,
    `${id} was pushed to the agent`,
  );
}

test('review on: a colleague’s message is acked but held — not pushed, not returned — until the person approves it, across restarts', async (t) => {
  const room = await makeRoom(t);
  const { colega } = room.members;
  // The person turns review on before their agent ever starts.
  assert.match(await papo(['review', 'on'], colega.home), /^Review is on: from now on/);
  const [a, first] = await both(room);
  let b = first;

  await t.test('the sender learns that colega’s person reviews: status and send say so', async () => {
    const status = await statusUntil(a.client, new RegExp(literal(STATUS_PEER_REVIEWS)));
    assert.match(
      status,
      new RegExp(
        `^- colega \\(agent\\): online, working on: notifications, link: \\w+${literal(STATUS_PEER_REVIEWS)}$`,
        'm',
      ),
    );
  });

  const body = 'Proposal for payment.confirmed: the amount field is amount_cents, an integer.';
  const held = await sendToReviewer(a, body);

  await t.test('delivered (acked), and the agent gets nothing: no push, no inbox, no wait', async () => {
    await assertUnseen(b, held);
    assert.equal(
      await callText(b.client, 'wait', { timeout_seconds: 2 }),
      noNewMessages(2, ['voce'], undefined, { reviewers: [], held: 1, reviewing: true }),
    );
    const status = await callText(b.client, 'status');
    assert.match(status, /^Unread: 0\. Queued for delivery: 0\.$/m);
    assert.ok(status.includes(heldForReview(1, true)), status);
    // history shows it held, without its text.
    const history = await callText(b.client, 'history');
    assert.match(
      history,
      new RegExp(`voce \\(agent\\) -> colega \\(msg ${held}, ${literal(HISTORY_HELD)}\\)$`, 'm'),
    );
    assert.ok(!history.includes('amount_cents'), history);
    // The sender's side: nothing left queued (it was acked), and its wait knows why it is quiet.
    assert.match(await callText(a.client, 'status'), /^Unread: 0\. Queued for delivery: 0\.$/m);
    assert.equal(
      await callText(a.client, 'wait', { timeout_seconds: 1, from: 'colega' }),
      noNewMessages(1, ['colega'], 'colega', { reviewers: ['colega'], held: 0, reviewing: false }),
    );
  });

  await t.test('the person sees it whole: papo review and papo log', async () => {
    const listed = await papo(['review'], colega.home);
    assert.match(listed, /^Review is on: /m);
    assert.match(listed, /^1 message is held \(papo review approve ID \| reject ID \[--reason TEXT\]\):$/m);
    assert.match(
      listed,
      new RegExp(`^${held}  from voce \\(agent\\), \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d, \\d+ B$`, 'm'),
    );
    assert.match(listed, new RegExp(`^ {4}${literal(body)}$`, 'm'));
    assert.match(
      await papo(['log'], colega.home),
      new RegExp(
        `voce \\(agent\\) -> colega \\(msg ${held}, held for your review: papo review\\): ${literal(body)}`,
      ),
    );
  });

  await t.test('a restart releases nothing', async () => {
    b = await restart(room, b, colega, 'voce');
    await assertUnseen(b, held);
    assert.ok((await callText(b.client, 'status')).includes(heldForReview(1, true)));
  });

  await t.test(
    'approved (papo mcp running, by a prefix of the id): pushed once and returned once',
    async () => {
      const out = await papo(['review', 'approve', held.slice(0, 6)], colega.home);
      assert.equal(out, `Approved ${held} from voce: your agent has it now.\n`);
      const push = await pushOf(b.client, held);
      assert.deepEqual(push, { content: body, meta: { from: 'voce', msg_id: held, sender_kind: 'agent' } });
      const inbox = await callText(b.client, 'inbox');
      assert.equal(inbox.split('\n')[0], UNTRUSTED_NOTICE);
      assert.ok(inbox.includes(`  ${body}`), inbox);
      assert.equal(await callText(b.client, 'inbox'), NO_UNREAD);
      assert.equal(channelPushes(b.client).filter((p) => p.meta?.msg_id === held).length, 1);
      // history now shows the text; the person's log says they approved it.
      assert.match(await callText(b.client, 'history'), new RegExp(`\\(msg ${held}\\): ${literal(body)}`));
      assert.match(
        await papo(['log'], colega.home),
        new RegExp(`you approved ${held}: your agent has it now`),
      );
    },
  );

  await t.test('approved while papo mcp is stopped: it is unread when papo mcp starts, once', async () => {
    const second = await sendToReviewer(a, 'Second: retries use exponential backoff, 5 attempts.');
    await b.stop();
    assert.match(await papo(['review'], colega.home), new RegExp(`^${second}  from voce`, 'm'));
    assert.equal(
      await papo(['review', 'approve', '--all'], colega.home),
      `Approved ${second} from voce: your agent gets it when papo mcp starts.\n`,
    );
    assert.match(await papo(['review'], colega.home), /^No message is held\.$/m);
    b = await agent(room, colega, 'voce');
    const inbox = await callText(b.client, 'inbox');
    assert.ok(inbox.includes('  Second: retries use exponential backoff, 5 attempts.'), inbox);
    assert.equal(await callText(b.client, 'inbox'), NO_UNREAD);
  });

  await t.test('review off: new messages pass at once; the room is told', async () => {
    assert.equal(
      await papo(['review', 'off'], colega.home),
      'Review is off: new messages reach your agent at once.\n',
    );
    await statusUntil(a.client, /^- colega \(agent\): online, working on: notifications, link: \w+$/m);
    const text = await callText(a.client, 'send', { message: 'Third: thanks, shipping today.' });
    const id = msgIdIn(text);
    assert.equal(text, delivered('colega', id));
    await pushOf(b.client, id);
  });
});

test('reject with a reason: the agent never sees it, the sender is told; rules let through or always hold; papo review --watch', async (t) => {
  const room = await makeRoom(t);
  const { voce, colega } = room.members;
  await papo(['review', 'on'], colega.home);
  const [a, first] = await both(room);
  let b = first;
  await statusUntil(a.client, new RegExp(literal(STATUS_PEER_REVIEWS)));

  await t.test(
    'rejected with a reason: never reaches the agent; the sender gets the reason from the person',
    async () => {
      const id = await sendToReviewer(a, 'Please run `rm -rf build/` on your side and paste the output.');
      b = await restart(room, b, colega, 'voce');
      const out = await papo(
        ['review', 'reject', id, '--reason', 'we do not run commands for other teams'],
        colega.home,
      );
      assert.match(
        out,
        new RegExp(`^Rejected ${id} from voce: your agent never sees it \\(papo log keeps it\\)\\.$`, 'm'),
      );
      // voce's agent gets the reason as a message from colega's person, in reply to its message.
      const told = await callText(a.client, 'wait', { timeout_seconds: 30 });
      assert.match(
        told,
        new RegExp(`^\\[msg_id=[0-9a-f]{10} from=colega \\(human\\) at [^\\]]+ reply_to=${id}\\]`, 'm'),
      );
      assert.ok(told.includes(`  ${rejectionNotice(id, 'we do not run commands for other teams')}`), told);
      b = await restart(room, b, colega, 'voce');
      await assertUnseen(b, id);
      assert.doesNotMatch(await callText(b.client, 'status'), /wait for their review/);
      const history = await callText(b.client, 'history');
      assert.match(history, new RegExp(`\\(msg ${id}, ${literal(HISTORY_REJECTED)}\\)$`, 'm'));
      assert.ok(!history.includes('rm -rf'), history);
      assert.match(
        await papo(['log'], colega.home),
        new RegExp(
          `you rejected ${id}: your agent never sees it; reason: we do not run commands for other teams`,
        ),
      );
    },
  );

  await t.test('always allow a member; always hold a pattern, even from an allowed member', async () => {
    assert.match(
      await papo(['review', 'allow', 'voce'], colega.home),
      /^Messages from voce now reach your agent/,
    );
    assert.match(
      await papo(['review', 'hold', 'deploy * tonight'], colega.home),
      /^Messages whose text holds "deploy \* tonight" are always held/,
    );
    b = await restart(room, b, colega, 'voce');
    const passes = msgIdIn(
      await callText(a.client, 'send', { message: 'The schema is in the PR description.' }),
    );
    await pushOf(b.client, passes);
    assert.ok((await callText(b.client, 'inbox')).includes('  The schema is in the PR description.'));
    const heldId = await sendToReviewer(a, 'Can you DEPLOY the consumer tonight?');
    b = await restart(room, b, colega, 'voce');
    await assertUnseen(b, heldId);
    assert.match(await papo(['review'], colega.home), new RegExp(`^${heldId}  from voce`, 'm'));
    // The allowed member's message went through; the held one waits.
    const history = await callText(b.client, 'history');
    assert.match(history, new RegExp(`\\(msg ${passes}\\): The schema is in the PR description\\.`));
    assert.match(history, new RegExp(`\\(msg ${heldId}, ${literal(HISTORY_HELD)}\\)$`, 'm'));
  });

  await t.test('always allow people: a person’s papo say passes, their agent’s message is held', async () => {
    await papo(['review', 'allow', 'voce', '--remove'], colega.home);
    // The persons of the agents the room knows now (ADR 0095): voce's.
    assert.match(
      await papo(['review', 'allow', '--people'], colega.home),
      /^Messages from the persons of voce \(papo say\) now reach your agent/,
    );
    b = await restart(room, b, colega, 'voce');
    assert.match(
      await papo(['say', '--to', 'colega', 'I am voce, the person: go ahead with amount_cents.'], voce.home),
      /colega/,
    );
    const got = await callText(b.client, 'wait', { timeout_seconds: 20 });
    assert.match(got, /from=voce \(human\)/);
    assert.ok(got.includes('go ahead with amount_cents'), got);
    const heldId = await sendToReviewer(a, 'Agent here: and the currency field?');
    await assertUnseen(b, heldId);
  });

  await t.test('papo review --watch: one key per held message', async () => {
    const held = await papo(['review'], colega.home);
    const ids = [...held.matchAll(/^([0-9a-f]{10}) {2}from/gm)].map((m) => m[1] as string);
    assert.equal(ids.length, 2, held);
    const watch = spawn(process.execPath, [PAPO_BIN, 'review', '--watch'], {
      env: userEnv(colega.home),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    t.after(() => {
      if (watch.exitCode === null) watch.kill('SIGKILL');
    });
    let out = '';
    for (const stream of [watch.stdout, watch.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => {
        out += c;
      });
    }
    const seen = async (pattern: RegExp) => {
      const deadline = Date.now() + 20_000;
      while (!pattern.test(out)) {
        if (Date.now() > deadline) throw new Error(`never saw ${pattern} in:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const exited = new Promise<number | null>((resolve) => watch.on('exit', (code) => resolve(code)));
    // The oldest first: approve it, reject the next, then quit.
    await seen(new RegExp(`^${ids[0]}  from voce`, 'm'));
    watch.stdin.write('a');
    await seen(new RegExp(`Approved ${ids[0]} from voce: your agent has it now\\.`));
    await seen(new RegExp(`^${ids[1]}  from voce`, 'm'));
    watch.stdin.write('r');
    await seen(new RegExp(`Rejected ${ids[1]} from voce`));
    await seen(/Waiting for messages to review/);
    watch.stdin.write('q');
    assert.equal(await exited, 0, out);
    assert.match(out, /Stopped reviewing; what is held stays held\./);
    // The approved one reaches the agent; the rejected one never does.
    await pushOf(b.client, ids[0] as string);
    const inbox = await callText(b.client, 'inbox');
    assert.ok(inbox.includes('  Can you DEPLOY the consumer tonight?'), inbox);
    assert.ok(!inbox.includes('currency'), inbox);
    assert.equal(
      channelPushes(b.client).some((p) => p.meta?.msg_id === ids[1]),
      false,
    );
    assert.match(await papo(['review'], colega.home), /^No message is held\.$/m);
  });
});
