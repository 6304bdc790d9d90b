// A process whose room members close exits by itself (production defaults, node-datachannel's
// cleanup included): a member must never keep `papo say` or a test runner alive.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeRoom } from '../support/room.js';
import { runChild } from '../support/run-child.js';
import { signalServer } from './helpers.js';

const fixture = fileURLToPath(new URL('./fixtures/members-close-and-exit.js', import.meta.url));

test('a process that closes its room members exits by itself', { timeout: 60_000 }, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  // Once it says "closed" it must be gone soon; 15 s is past node-datachannel's 10 s cleanup timeout.
  const { code, stdout, stderr, killed } = await runChild(
    process.execPath,
    [fixture, room.members.Ana.home, room.members.Bia.home],
    {
      timeoutMs: 45_000,
      exitAfter: { marker: 'closed\n', withinMs: 15_000 },
    },
  );
  assert.deepEqual(
    { code, closed: stdout.includes('closed\n'), exitedAlone: !killed, err: stderr },
    {
      code: 0,
      closed: true,
      exitedAlone: true,
      err: '',
    },
  );
});
