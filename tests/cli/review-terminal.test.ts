// papo review on a real terminal (tmux): --watch in raw mode takes one key per decision, without
// Enter; and the CLI's own texts in pt-BR. No papo mcp runs, so the command takes the profile's
// lock and applies the decisions itself (the running case is tests/mcp/review.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openMemberState } from '../../src/client/store/profile-store.js';
import { readHeld } from '../../src/client/store/review.js';
import { makeTempDir } from '../support/files.js';
import { heldMessage, profileWithHeld } from '../support/held.js';
import { cleanEnv, PAPO_BIN, runPapo } from '../support/papo.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/** A profile whose papo mcp held two messages. */
function withTwoHeld(t: Parameters<typeof profileWithHeld>[0]) {
  return profileWithHeld(t, [
    heldMessage('aaaaaaaaa1', 'first: \u001b[31mred\u001b[0m'),
    heldMessage('aaaaaaaaa2', 'second'),
  ]);
}

test('papo review --watch on a terminal: a and r decide without Enter; escapes stay inert', {
  skip: !hasTmux && 'tmux is not installed',
}, async (t) => {
  const { home, dir } = await withTwoHeld(t);
  // The server is ended before its socket's folder goes: with the folder gone first (after hooks
  // run in the order they were added), kill-server finds no socket and the server stays.
  const folder = makeTempDir('papo-tmux-');
  const socket = join(folder, 'tmux.sock');
  const tmux = (...args: string[]) => spawnSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
  t.after(() => {
    tmux('kill-server');
    rmSync(folder, { recursive: true, force: true });
  });
  const env = Object.entries(cleanEnv({ PAPO_HOME: home })).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  assert.equal(
    tmux(
      'new-session',
      '-d',
      '-x',
      '160',
      '-y',
      '40',
      ...env,
      process.execPath,
      PAPO_BIN,
      'review',
      '--watch',
    ).status,
    0,
  );
  // The pane stays after papo exits, so its last words and exit status can be read.
  tmux('set-option', '-t', '0', 'remain-on-exit', 'on');
  const screen = () => tmux('capture-pane', '-p', '-J').stdout;
  const until = async (pattern: RegExp) => {
    const deadline = Date.now() + 15_000;
    while (!pattern.test(screen())) {
      if (Date.now() > deadline) throw new Error(`never saw ${pattern} on:\n${screen()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await until(/aaaaaaaaa1 {2}from colega \(agent\)/);
  // The escape sequence is shown, not run.
  assert.match(screen(), /first: \\x1b\[31mred\\x1b\[0m/);
  // An arrow (ESC [ A, whose A once counted as approve) is no key: nothing is decided.
  tmux('send-keys', '-t', '0', 'Up');
  tmux('send-keys', '-t', '0', 'Down');
  await new Promise((r) => setTimeout(r, 500));
  assert.doesNotMatch(screen(), /Approved|Rejected/);
  tmux('send-keys', '-t', '0', '-l', 'a');
  await until(/Approved aaaaaaaaa1 from colega: your agent gets it when papo mcp starts\./);
  await until(/aaaaaaaaa2 {2}from colega/);
  tmux('send-keys', '-t', '0', '-l', 'r');
  await until(/Rejected aaaaaaaaa2 from colega/);
  await until(/Waiting for messages to review/);
  tmux('send-keys', '-t', '0', '-l', 'q');
  await until(/Stopped reviewing; what is held stays held\./);
  // The command ends by itself: its terminal closes (tmux keeps the dead pane). Its exit status is
  // not read: tmux 3.3a does not always learn it when the terminal closes first.
  const deadline = Date.now() + 15_000;
  while (tmux('display-message', '-p', '-t', '0', '#{pane_dead}').stdout.trim() !== '1') {
    assert.ok(Date.now() < deadline, `papo review --watch did not exit:\n${screen()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(readHeld(dir), []);
  const state = await openMemberState(dir);
  assert.deepEqual(
    state.inbox.map((m) => m.id),
    ['aaaaaaaaa1'],
  );
});

test('papo review in pt-BR, and its refusals: nothing decided on a bad id', async (t) => {
  const { home, dir } = await withTwoHeld(t);
  const pt = cleanEnv({ PAPO_HOME: home, LANG: 'pt_BR.UTF-8' });
  const listed = await runPapo(['review'], { env: pt });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^A revisão está ligada: /m);
  assert.match(
    listed.stdout,
    /^2 mensagens retidas \(papo review approve ID \| reject ID \[--reason TEXTO\]\):$/m,
  );
  const en = cleanEnv({ PAPO_HOME: home });
  const unknown = await runPapo(['review', 'approve', 'aaaaaaaaa1', 'bbbb'], { env: en });
  assert.equal(unknown.code, 1);
  assert.equal(
    unknown.stderr,
    'error: no held message "bbbb" (papo review lists them); nothing was decided\n',
  );
  const ambiguous = await runPapo(['review', 'reject', 'aaaa'], { env: en });
  assert.equal(ambiguous.code, 1);
  assert.match(
    ambiguous.stderr,
    /"aaaa" could be aaaaaaaaa1 or aaaaaaaaa2: give more characters; nothing was decided/,
  );
  assert.equal(readHeld(dir).length, 2);
  const badPattern = await runPapo(['review', 'hold', '*'], { env: en });
  assert.equal(badPattern.code, 1);
  assert.equal(badPattern.stderr, 'error: "*" has no text to look for (* stands for any text)\n');
  const off = await runPapo(['review', 'off'], { env: pt });
  assert.equal(
    off.stdout,
    'Revisão desligada: as novas mensagens chegam ao seu agente na hora. 2 mensagens continuam retidas: aprove ou rejeite (papo review).\n',
  );
  assert.equal(readHeld(dir).length, 2);
  const status = await runPapo(['review', 'approve', '--all'], { env: en });
  assert.equal(status.code, 0);
  assert.match(
    status.stdout,
    /^Approved aaaaaaaaa1 from colega: your agent gets it when papo mcp starts\.$/m,
  );
  assert.match(status.stdout, /^Approved aaaaaaaaa2 from colega/m);
});
