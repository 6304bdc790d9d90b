// A process whose room members close exits by itself (production defaults, node-datachannel's
// cleanup included): a member must never keep `papo say` or a test runner alive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeRoom, signalServer } from './helpers.js';

const fixture = fileURLToPath(new URL('./fixtures/members-close-and-exit.js', import.meta.url));

test('a process that closes its room members exits by itself', { timeout: 60_000 }, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, ['Ana', 'Bia'], server.url);
  const child = spawn(process.execPath, [fixture, room.members.Ana.home, room.members.Bia.home], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let killed = false;
  let hang: NodeJS.Timeout | undefined;
  child.stdout.on('data', (d) => {
    out += d;
    // Once it says "closed" it must be gone soon; 15 s is past node-datachannel’s 10 s cleanup timeout.
    if (out.includes('closed\n') && hang === undefined) {
      hang = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, 15_000);
    }
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const guard = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, 45_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(guard);
  clearTimeout(hang);
  assert.deepEqual(
    { code, closed: out.includes('closed\n'), exitedAlone: !killed, err },
    {
      code: 0,
      closed: true,
      exitedAlone: true,
      err: '',
    },
  );
});
