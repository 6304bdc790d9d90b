// member.sock checks a say's time as the wire does (ADR 0119): a line whose `ts` is past
// JavaScript's Date range, negative, or further ahead of the member's clock than the skew is
// answered "not a say" and never signed or sent; a say at the CLI's time goes out. With the built
// papo binary: a real `papo mcp` on a real signal server, and the socket spoken to as papo say does.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { newMessageId } from '../../src/client/wire/frames.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { readProfileLog, signalServer, startMcp } from './helpers.js';

/** One request line to member.sock and the one line it answers, parsed. */
function ask(path: string, line: object): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let got = '';
    const socket = connect(path, () => socket.write(`${JSON.stringify(line)}\n`));
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      got += d;
      const end = got.indexOf('\n');
      if (end >= 0) {
        socket.destroy();
        resolve(JSON.parse(got.slice(0, end)) as Record<string, unknown>);
      }
    });
    socket.on('error', reject);
    setTimeout(() => reject(new Error(`no answer: ${got}`)), 60_000).unref();
  });
}

test('member.sock refuses a say dated past Date’s range or too far ahead, and takes one at the CLI’s time', {
  timeout: 120_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana'], signalUrl: server.url, make: 'store' });
  await startMcp(t, room.members.Ana.home);
  const sock = join(room.members.Ana.profile.dir, 'member.sock');
  await waitFor('member.sock', () => existsSync(sock), 30_000);

  const bad = [9e15, Number.MAX_SAFE_INTEGER, -1, Date.now() + 11 * 60_000].map((ts) => ({
    id: newMessageId(),
    ts,
    body: `dated ${ts}`,
  }));
  for (const say of bad) assert.deepEqual(await ask(sock, { say }), { error: 'not a say' }, `ts ${say.ts}`);

  const good = { id: newMessageId(), ts: Date.now(), body: 'dated now' };
  const answer = await ask(sock, { say: good });
  assert.ok('outcome' in answer, JSON.stringify(answer));

  // Only the good one reached the agent's own log (its person's say, as its own agent has it).
  const said = readProfileLog(room.members.Ana).flatMap((e) =>
    e.ev === 'in' || e.ev === 'out' ? [e.msg.id] : [],
  );
  for (const say of bad) assert.ok(!said.includes(say.id), `${say.ts} was said`);
  assert.ok(said.includes(good.id), `the good say is not in the log: ${JSON.stringify(said)}`);
});
