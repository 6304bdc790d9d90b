// Local exposures found by the 2026-12-01 review (docs/security.md, "8."), against the built papo:
// - a symbolic link made in advance where a profile file should be (log.jsonl received every
//   message body through one): every command refuses it, naming the file, and writes nothing
//   through it; a hard link at log.jsonl is refused too. Linked folders stay allowed.
// - `papo join <invite>` put the room secret in /proc/<pid>/cmdline and the shell history: the
//   invite comes from standard input (or a prompt that does not echo it on a terminal).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { tempDir } from '../support/files.js';
import { spawnMcp } from '../support/mcp-process.js';
import { cleanEnv, inviteIn, msgIdIn, PAPO_BIN, roomIdIn, runPapo } from '../support/papo.js';
import { callText, makeRoom, startAgent, statusUntil } from '../support/room.js';
import { resultText } from '../support/rpc-client.js';

const SENTINEL = 'a file outside the profile that must not change\n';

/** A home with a profile made by `papo new`, and a file outside it for links to point at. */
async function setup(
  t: TestContext,
): Promise<{ home: string; dir: string; target: string; env: NodeJS.ProcessEnv }> {
  const root = tempDir(t, 'papo-local-');
  const home = join(root, 'home');
  const env = cleanEnv({ PAPO_HOME: home });
  const made = await runPapo(['new', '--name', 'voce'], { env });
  assert.equal(made.code, 0, made.stderr);
  const target = join(root, 'elsewhere.txt');
  writeFileSync(target, SENTINEL);
  return { home, dir: join(home, 'profiles', 'default'), target, env };
}

/** Replaces `file` of the profile by a symbolic link to `target` (the link made in advance). */
function plantLink(dir: string, file: string, target: string): void {
  rmSync(join(dir, file), { force: true });
  symlinkSync(target, join(dir, file));
}

test('a symbolic link at log.jsonl: papo log and papo mcp refuse it by name, and write nothing through it', async (t) => {
  const { home, dir, target, env } = await setup(t);
  plantLink(dir, 'log.jsonl', target);

  const log = await runPapo(['log'], { env });
  assert.equal(log.code, 1);
  assert.match(log.stderr, /^error: \S+\/log\.jsonl is a symbolic link; papo does not write or read/);
  const pt = await runPapo(['log'], { env: { ...env, LANG: 'pt_BR.UTF-8' } });
  assert.equal(pt.code, 1);
  assert.match(pt.stderr, /^erro: \S+\/log\.jsonl é um link/);

  const mcp = spawnMcp({ home, env: { LANG: 'C' } });
  t.after(() => mcp.stop());
  await mcp.client.initialize();
  for (const tool of ['status', 'inbox']) {
    const result = await mcp.client.call(tool, {}, undefined, 30_000);
    assert.equal(result.isError, true, tool);
    assert.match(resultText(result), /^papo is not available: \S+\/log\.jsonl is a symbolic link/);
  }
  const sent = await mcp.client.call('send', { message: 'a body that must not reach the target' });
  assert.equal(sent.isError, true);
  assert.equal(readFileSync(target, 'utf8'), SENTINEL);
});

test('symbolic links at profile.json, secret.key, peers.json, inbox.json, outbox.json and lock are refused by name', async (t) => {
  // The commands that read or write each file; each must fail naming it and leave the target alone.
  const cases: [string, string[][]][] = [
    ['profile.json', [['status'], ['say', 'hello'], ['invite'], ['new', '--force', '--name', 'voce']]],
    ['secret.key', [['log'], ['new', '--force', '--name', 'voce']]],
    ['lock', [['new', '--force', '--name', 'voce']]],
  ];
  for (const [file, commands] of cases) {
    const { dir, target, env } = await setup(t);
    // A target that would be accepted if read: the file's own content.
    writeFileSync(target, readFileSync(join(dir, file === 'lock' ? 'profile.json' : file)));
    const before = readFileSync(target);
    plantLink(dir, file, target);
    for (const args of commands) {
      const r = await runPapo(args, { env });
      assert.equal(r.code, 1, `${file}: papo ${args.join(' ')}: ${r.stdout}`);
      assert.match(
        r.stderr,
        // `say` prints "connecting…" first.
        new RegExp(`^error: \\S+/${file.replace('.', '\\.')} is a symbolic link`, 'm'),
        `${file}: papo ${args.join(' ')}`,
      );
      assert.deepEqual(
        readFileSync(target),
        before,
        `${file}: papo ${args.join(' ')} wrote through the link`,
      );
    }
  }
  // The member's own files are read when papo mcp opens the profile.
  for (const file of ['peers.json', 'inbox.json', 'outbox.json']) {
    const { home, dir, target } = await setup(t);
    writeFileSync(target, file === 'peers.json' ? '{}\n' : '[]\n');
    plantLink(dir, file, target);
    const mcp = spawnMcp({ home, env: { LANG: 'C' } });
    await mcp.client.initialize();
    const status = await mcp.client.call('status', {}, undefined, 30_000);
    await mcp.stop();
    assert.equal(status.isError, true, file);
    assert.match(
      resultText(status),
      new RegExp(`^papo is not available: \\S+/${file.replace('.', '\\.')} is a symbolic link`),
    );
    assert.equal(readFileSync(target, 'utf8'), file === 'peers.json' ? '{}\n' : '[]\n');
  }
  // The inbox folder (one file a message, ADR 0062) may not be a link to a folder elsewhere.
  {
    const { home, dir, target } = await setup(t);
    const elsewhere = `${target}.d`;
    mkdirSync(elsewhere);
    plantLink(dir, 'inbox', elsewhere);
    const mcp = spawnMcp({ home, env: { LANG: 'C' } });
    await mcp.client.initialize();
    const status = await mcp.client.call('status', {}, undefined, 30_000);
    await mcp.stop();
    assert.equal(status.isError, true);
    assert.match(resultText(status), /^papo is not available: \S+\/inbox is a symbolic link/);
    assert.deepEqual(readdirSync(elsewhere), []);
  }
});

test('a running member that receives messages never appends them through a link made at log.jsonl', async (t) => {
  const room = await makeRoom(t);
  const a = startAgent(room, room.members.voce, { PAPO_LOG: 'info' });
  const b = startAgent(room, room.members.colega);
  await Promise.all([a.client.initialize(), b.client.initialize()]);
  await statusUntil(a.client, /colega \(agent\): online/);
  await statusUntil(b.client, /voce \(agent\): online/);

  const dir = join(room.members.voce.home, 'profiles', 'default');
  const logPath = join(dir, 'log.jsonl');
  const target = join(room.root, 'elsewhere.txt');
  writeFileSync(target, SENTINEL);
  // The log exists once voce has logged something; a link then takes its place.
  if (existsSync(logPath)) renameSync(logPath, join(room.root, 'old-log.jsonl'));
  symlinkSync(target, logPath);
  const first = 'the first body, which must stay out of the target';
  const sent = await callText(b.client, 'send', { message: first, to: 'voce' });
  msgIdIn(sent);

  // A hard link made in advance is another name of the target: refused as well.
  rmSync(logPath);
  linkSync(target, logPath);
  const second = 'the second body, which must stay out of the target too';
  await callText(b.client, 'send', { message: second, to: 'voce' });

  // Both were stored for the agent (the inbox is a file of its own) ...
  const inbox = await callText(a.client, 'inbox');
  assert.ok(inbox.includes(first) && inbox.includes(second), inbox);
  // ... and neither reached the file the links point at.
  assert.equal(readFileSync(target, 'utf8'), SENTINEL);
  assert.match(a.stderr(), /log\.jsonl is a symbolic link/);
  assert.match(a.stderr(), /log\.jsonl has another hard link/);
});

test('linked folders are allowed: PAPO_HOME and the profile folder may be symbolic links', async (t) => {
  const root = tempDir(t, 'papo-local-');
  const realHome = join(root, 'dotfiles', 'papo');
  const realProfile = join(root, 'dotfiles', 'profile-default');
  mkdirSync(join(realHome, 'profiles'), { recursive: true, mode: 0o700 });
  mkdirSync(realProfile, { recursive: true, mode: 0o700 });
  symlinkSync(realProfile, join(realHome, 'profiles', 'default'));
  symlinkSync(realHome, join(root, 'home'));
  const env = cleanEnv({ PAPO_HOME: join(root, 'home') });
  const made = await runPapo(['new', '--name', 'voce'], { env });
  assert.equal(made.code, 0, made.stderr);
  assert.ok(existsSync(join(realProfile, 'profile.json')));
  const invite = await runPapo(['invite'], { env });
  assert.equal(invite.code, 0, invite.stderr);
  const log = await runPapo(['log'], { env });
  assert.equal(log.code, 0, log.stderr);
});

/** A room's invite, made in a home of its own. */
async function anInvite(t: TestContext): Promise<{ invite: string; roomId: string }> {
  const root = tempDir(t, 'papo-join-');
  const made = await runPapo(['new', '--name', 'voce'], { env: cleanEnv({ PAPO_HOME: join(root, 'home') }) });
  assert.equal(made.code, 0, made.stderr);
  return { invite: inviteIn(made.stdout), roomId: roomIdIn(made.stdout) };
}

test('papo join reads the invite from standard input, and no process shows it in its command line', async (t) => {
  const { invite, roomId } = await anInvite(t);
  const home = join(tempDir(t, 'papo-join-'), 'home');
  const args = [PAPO_BIN, 'join', '--name', 'colega'];
  const child = spawn(process.execPath, args, {
    env: cleanEnv({ PAPO_HOME: home }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // While it waits for the invite, its command line (what every process of the machine can read)
  // holds no invite; nor does any other process's.
  await new Promise((r) => setTimeout(r, 500));
  const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8');
  assert.ok(cmdline.includes('join') && !cmdline.includes('papo1'), cmdline);
  assert.ok(!args.some((a) => a.includes(invite)));
  // One line, and the writer keeps the pipe open: join must not wait for the end of it.
  child.stdin.write(`  ${invite}  \r\n`);
  t.after(() => child.stdin.destroy());
  const timeout = new Promise<string>((r) => setTimeout(() => r('still running'), 15_000).unref());
  assert.equal(await Promise.race([exited, timeout]), 0, stderr);
  assert.match(stdout, new RegExp(`^You joined room ${roomId} as "colega"`, 'm'));
  const profile = JSON.parse(readFileSync(join(home, 'profiles', 'default', 'profile.json'), 'utf8'));
  assert.equal(profile.name, 'colega');
});

test('papo join with no argument and nothing on standard input says so, in English and Portuguese', async (t) => {
  const home = join(tempDir(t, 'papo-join-'), 'home');
  // An empty stdin, a blank line on it, and stdin on /dev/null (no input).
  for (const input of ['', '\n', undefined]) {
    const r = await runPapo(['join', '--name', 'colega'], {
      env: cleanEnv({ PAPO_HOME: home }),
      ...(input === undefined ? {} : { input }),
      timeoutMs: 30_000,
    });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /^error: no invite was given: pass it on standard input/);
  }
  const pt = await runPapo(['join', '--name', 'colega'], {
    env: cleanEnv({ PAPO_HOME: home, LANG: 'pt_BR.UTF-8' }),
    input: '',
  });
  assert.equal(pt.code, 1);
  assert.match(pt.stderr, /^erro: nenhum convite foi dado/);
  assert.ok(!existsSync(join(home, 'profiles', 'default', 'profile.json')));
});

test('papo join on a terminal prompts for the invite without echoing it', {
  skip: !hasScript(),
}, async (t) => {
  const { invite, roomId } = await anInvite(t);
  const home = join(tempDir(t, 'papo-join-'), 'home');
  // script(1) runs the command on a new pseudo-terminal and copies what the terminal shows to stdout.
  const command = `'${process.execPath}' '${PAPO_BIN}' join --name colega`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: cleanEnv({ PAPO_HOME: home }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.on('data', (c: Buffer) => {
    screen += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 15_000;
  while (!screen.includes('Paste the invite') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(screen, /Paste the invite and press Enter \(it is not shown\): /);
  child.stdin.write(`${invite}\r`);
  assert.equal(await exited, 0, screen);
  assert.match(screen, new RegExp(`You joined room ${roomId} as "colega"`));
  assert.ok(!screen.includes(invite.slice(0, 20)), 'the terminal showed the invite');
});

function hasScript(): boolean {
  return spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
}
