// Codex CLI's door (src/mcp/push-doors/codex-queue.ts, ADR 0118 "Amended: Codex CLI") with the
// server in-process on injected streams and an in-memory member. The Codex process is a real
// process that holds a real rollout file open (so the thread is found by reading its fd links),
// seen through a folder laid out as /proc whose `fd` links to that process's own; its `exe` is a
// fake `codex` that records its arguments and environment, and fails when told to. What papo runs
// (`queue --thread <uuid> --message <papo's frame>`, with Codex's CODEX_HOME and none of its other
// variables), one run per message, a failing queue handed over to channel events and said on
// stderr and in `status`, a push that waits for the thread's first turn, `codex exec` closed. The
// same route with the real Codex: tests/clients/codex-push.test.ts.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { Ancestor } from '../../src/mcp/push-contract.js';
import { codexDoorAt, codexSubcommand, queuedText } from '../../src/mcp/push-doors/codex-queue.js';
import { pushedText } from '../../src/mcp/texts.js';
import { channelPushes, servePush } from '../support/push-server.js';
import { resultText } from '../support/rpc-client.js';
import { waitFor } from '../support/wait.js';

const THREAD = '01a252ae-8cb3-7d41-ad84-2221fd358b50';
const SECRET = 'sk-never-handed-to-codex-queue';

/** The fake `codex`: each run appends {args, CODEX_HOME, key} to calls.jsonl; `fail` makes it exit 1. */
const FAKE_CODEX = `#!${process.execPath}
const { appendFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const dir = ${JSON.stringify('DIR')};
appendFileSync(join(dir, 'calls.jsonl'), JSON.stringify({ args: process.argv.slice(2), codexHome: process.env.CODEX_HOME, key: process.env.OPENAI_API_KEY ?? null }) + '\\n');
if (existsSync(join(dir, 'fail'))) {
  process.stderr.write('WARNING: proceeding\\nError: failed to queue session message: thread/queue/add failed (code -32603)\\n');
  process.exit(1);
}
process.stdout.write('Queued message 1 for thread.\\n');
`;

interface FakeCodex {
  dir: string;
  codexHome: string;
  procRoot: string;
  /** The process standing for Codex: opens a file when a line with its path is written to it. */
  holder: ChildProcess;
  pid: number;
  /** Creates a rollout for `thread` and makes the holder open it. */
  openRollout(thread?: string): Promise<void>;
  calls(): { args: string[]; codexHome: string; key: string | null }[];
}

async function fakeCodex(t: TestContext): Promise<FakeCodex> {
  const dir = mkdtempSync(join(tmpdir(), 'papo-codex-door-'));
  const codexHome = join(dir, 'codex-home');
  const sessions = join(codexHome, 'sessions', '2026', '12', '07');
  mkdirSync(sessions, { recursive: true });
  const exe = join(dir, 'codex');
  writeFileSync(exe, FAKE_CODEX.replace('"DIR"', JSON.stringify(dir)));
  chmodSync(exe, 0o755);
  const holder = spawn(
    process.execPath,
    [
      '-e',
      "const fs=require('node:fs');const held=[];require('node:readline').createInterface({input:process.stdin}).on('line',(p)=>{held.push(fs.openSync(p,'a'));process.stdout.write('open\\n')})",
    ],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  t.after(() => {
    holder.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const pid = holder.pid as number;
  // /proc as papo reads it: the holder's own open files, the fake's executable, Codex's environment.
  const procRoot = join(dir, 'proc');
  mkdirSync(join(procRoot, String(pid)), { recursive: true });
  symlinkSync(`/proc/${pid}/fd`, join(procRoot, String(pid), 'fd'));
  symlinkSync(exe, join(procRoot, String(pid), 'exe'));
  writeFileSync(
    join(procRoot, String(pid), 'environ'),
    `OPENAI_API_KEY=${SECRET}\0CODEX_HOME=${codexHome}\0`,
  );
  let out = '';
  holder.stdout?.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  return {
    dir,
    codexHome,
    procRoot,
    holder,
    pid,
    async openRollout(thread = THREAD) {
      const file = join(sessions, `rollout-2026-12-07T22-45-00-${thread}.jsonl`);
      writeFileSync(
        file,
        `${JSON.stringify({ type: 'session_meta', payload: { id: thread, thread_source: 'user' } })}\n`,
      );
      const opened = out.length;
      holder.stdin?.write(`${file}\n`);
      await until(() => out.length > opened, 'the holder opened the rollout');
    },
    calls() {
      const log = join(dir, 'calls.jsonl');
      if (!existsSync(log)) return [];
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    },
  };
}

function serve(
  t: TestContext,
  codex: FakeCodex,
  args: string[] = ['/opt/codex/bin/codex', '-c', 'model="o3"'],
) {
  // Codex's native executable starts papo; the npm package's node wrapper is above it.
  const ancestors: Ancestor[] = [
    { pid: codex.pid, args },
    { pid: 1, args: ['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js'] },
  ];
  return servePush(t, { HOME: codex.dir, PATH: '/usr/bin:/bin' }, ancestors, [codexDoorAt(codex.procRoot)]);
}

/** Waits for `check` (up to 5000 ms), failing with `what`. */
const until = (check: () => boolean, what: string, ms = 5000) =>
  waitFor(what, check, { timeoutMs: ms, intervalMs: 10 });

test("Codex's terminal UI: `codex queue --thread <uuid> --message <papo's frame>` with Codex's executable and CODEX_HOME, once per message; no channel event", async (t) => {
  const codex = await fakeCodex(t);
  await codex.openRollout();
  const { member, client, stderr } = serve(t, codex);
  await client.initialize();
  assert.match(
    resultText(await client.call('status')),
    /^Push: Codex's queued turns \(codex queue\): room messages arrive in this conversation on their own/m,
  );
  const msg = member.receive('colega', 'the schema moved to v2', { to: 'voce' });
  await until(() => codex.calls().length === 1, 'codex queue');
  assert.deepEqual(codex.calls(), [
    {
      args: ['queue', '--thread', THREAD, '--message', pushedText(msg, 'codex-queue')],
      codexHome: codex.codexHome,
      key: null,
    },
  ]);
  const next = member.receive('colega', 'and the enum too');
  await until(() => codex.calls().length === 2, 'the second codex queue');
  assert.deepEqual(codex.calls()[1]?.args, [
    'queue',
    '--thread',
    THREAD,
    '--message',
    pushedText(next, 'codex-queue'),
  ]);
  await client.request('ping');
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(codex.calls().length, 2, 'a message was queued twice');
  assert.deepEqual(channelPushes(client), [], 'a message also went out as a channel event');
  assert.match(
    resultText(await client.call('inbox')),
    new RegExp(`msg_id=${msg.id} .*\\] \\(also pushed into this conversation as a papo room message`),
  );
  assert.doesNotMatch(stderr(), /schema moved/, 'the body was logged');
});

test('a new thread (/new): the next push goes to the thread whose rollout Codex wrote last', async (t) => {
  const codex = await fakeCodex(t);
  await codex.openRollout();
  const { member, client } = serve(t, codex);
  await client.initialize();
  const other = '01a252af-0000-7000-8000-000000000001';
  await new Promise((r) => setTimeout(r, 20));
  await codex.openRollout(other);
  member.receive('colega', 'to the new thread');
  await until(() => codex.calls().length === 1, 'codex queue');
  assert.equal(codex.calls()[0]?.args[2], other);
});

test("before the thread's first turn (no rollout open yet), the push waits for it, then queues", async (t) => {
  const codex = await fakeCodex(t);
  const { member, client } = serve(t, codex);
  await client.initialize();
  await client.call('status');
  const msg = member.receive('colega', 'before any prompt');
  await new Promise((r) => setTimeout(r, 1500));
  assert.deepEqual(codex.calls(), [], 'queued before the thread had a rollout');
  await codex.openRollout();
  await until(() => codex.calls().length === 1, 'codex queue at the first turn', 5000);
  assert.deepEqual(codex.calls()[0]?.args, [
    'queue',
    '--thread',
    THREAD,
    '--message',
    pushedText(msg, 'codex-queue'),
  ]);
  assert.deepEqual(channelPushes(client), []);
});

test('codex queue fails: the message goes out as a channel event instead, said on stderr and in status; the next one too, at once', async (t) => {
  const codex = await fakeCodex(t);
  await codex.openRollout();
  writeFileSync(join(codex.dir, 'fail'), '');
  const { member, client, stderr } = serve(t, codex);
  await client.initialize();
  await client.call('status');
  const msg = member.receive('colega', 'nobody takes it');
  await until(() => channelPushes(client).length > 0, 'the fallback');
  assert.deepEqual(channelPushes(client), [msg.id]);
  const said =
    'codex queue exited with 1: Error: failed to queue session message: thread/queue/add failed (code -32603)';
  assert.ok(
    stderr().includes(`WARN papo::mcp push through codex-queue failed (${said}); falling back`),
    stderr(),
  );
  assert.match(
    resultText(await client.call('status')),
    new RegExp(
      `^Push: pull only: call \`wait\` when you expect a message \\(Codex's queued turns: failed \\(${said.replace(/[()]/g, '\\$&')}\\)\\)\\.$`,
      'm',
    ),
  );
  const next = member.receive('colega', 'and again');
  await until(() => channelPushes(client).length > 1, 'the second push');
  assert.deepEqual(channelPushes(client), [msg.id, next.id]);
  assert.equal(codex.calls().length, 1, 'codex queue ran again after it failed');
});

test('codex exec: the door is closed (it takes no queued turn), pull only, said in status', async (t) => {
  const codex = await fakeCodex(t);
  await codex.openRollout();
  const { member, client } = serve(t, codex, [
    '/opt/codex/bin/codex',
    'exec',
    '--json',
    '-c',
    'model="o3"',
    'go',
  ]);
  await client.initialize();
  assert.match(
    resultText(await client.call('status')),
    /^Push: pull only: call `wait` when you expect a message \(Codex's queued turns: `codex exec` takes no queued turn, only Codex's terminal UI does \(`codex`, `codex resume`\)\)\.$/m,
  );
  const msg = member.receive('colega', 'pulled');
  await client.request('ping');
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(channelPushes(client), [msg.id]);
  assert.deepEqual(codex.calls(), []);
});

test('codexSubcommand: the global options and their values skipped; a first word that is no subcommand is a prompt', () => {
  assert.equal(codexSubcommand(['codex']), undefined);
  assert.equal(
    codexSubcommand(['codex', '-c', 'model="o3"', '--enable', 'x', 'exec', '--json', 'hi']),
    'exec',
  );
  assert.equal(codexSubcommand(['codex', '--config=a=b', 'e', 'hi']), 'e');
  assert.equal(codexSubcommand(['codex', '-m', 'exec', 'resume', '--last']), 'resume');
  assert.equal(codexSubcommand(['codex', '--search', 'fix the tests']), undefined);
  assert.equal(codexSubcommand(['codex', '--', 'exec']), undefined);
});

test('queuedText: a text past Linux’s limit on one argument is cut, and says so', () => {
  const short = 'a'.repeat(1000);
  assert.equal(queuedText(short), short);
  const long = `${'\\x01'.repeat(40_000)}`;
  const cut = queuedText(long);
  assert.ok(Buffer.byteLength(cut) < 128 * 1024, String(Buffer.byteLength(cut)));
  assert.match(cut, /\[\.\.\. \d+ more characters of this message cut/);
  const wide = queuedText('é'.repeat(100_000));
  assert.ok(Buffer.byteLength(wide) < 128 * 1024);
});

test('the door is not found when no ancestor is codex; the node wrapper alone is not it', () => {
  const door = codexDoorAt('/nonexistent');
  const ctx = (args: string[][]) => ({
    env: {},
    ancestors: () => args.map((a, i) => ({ pid: 10 + i, args: a })),
  });
  assert.equal(door(ctx([['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js']])), undefined);
  assert.equal(door(ctx([['bash'], ['codexx']])), undefined);
  assert.equal(door(ctx([['/usr/local/bin/codex', 'resume', '--last']]))?.kind, 'codex-queue');
  assert.ok(!('off' in (door(ctx([['codex']])) ?? { off: 1 })));
});
