import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isPapoError } from '../../src/client/errors.js';
import { acquireLock } from '../../src/client/store/file-lock.js';
import { tempDir } from '../support/files.js';

const lockModule = new URL('../../src/client/store/file-lock.js', import.meta.url).href;

/**
 * A real process that tries to take the lock, prints "got" or "locked", and holds it until its
 * stdin closes (or it is killed).
 */
function locker(
  t: { after: (fn: () => void) => void },
  dir: string,
): { child: ChildProcess; result: Promise<string> } {
  const code = `
    import { acquireLock } from ${JSON.stringify(lockModule)};
    try {
      const lock = await acquireLock(${JSON.stringify(dir)});
      process.stdout.write('got\\n');
      process.stdin.resume();
      process.stdin.on('end', async () => { await lock.release(); process.exit(0); });
    } catch (e) {
      process.stdout.write((e.code ?? String(e)) + '\\n');
      process.exit(0);
    }`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const result = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', () => resolve(out.trim()));
    child.on('error', reject);
  });
  return { child, result };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

test('one holder: a second acquire in this process and in another process is refused', async (t) => {
  const dir = tempDir(t, 'papo-lock-');
  const lock = await acquireLock(dir);
  t.after(() => lock.release());
  await assert.rejects(acquireLock(dir), (e) => {
    assert.ok(isPapoError(e, 'profile_locked'));
    assert.equal(e.message, 'another papo server is already running with this profile');
    return true;
  });
  const other = locker(t, dir);
  assert.equal(await other.result, 'profile_locked');
  await lock.release();
  assert.equal(existsSync(join(dir, 'lock')), false);
  const again = await acquireLock(dir);
  await again.release();
});

test('a lock held by another process blocks; after that process is killed with kill -9 the next owner takes it', async (t) => {
  const dir = tempDir(t, 'papo-lock-');
  const holder = locker(t, dir);
  assert.equal(await holder.result, 'got');
  await assert.rejects(acquireLock(dir), (e) => isPapoError(e, 'profile_locked'));
  holder.child.kill('SIGKILL');
  await exited(holder.child);
  assert.ok(existsSync(join(dir, 'lock')), 'kill -9 leaves the lock file behind');
  const lock = await acquireLock(dir);
  t.after(() => lock.release());
  assert.equal(JSON.parse(readFileSync(join(dir, 'lock'), 'utf8')).pid, process.pid);
});

test('several processes racing for one stale lock: exactly one wins', async (t) => {
  const dir = tempDir(t, 'papo-lock-');
  // A stale lock of this host: the pid of a process that has exited.
  const dead = spawn(process.execPath, ['-e', '']);
  await exited(dead);
  writeFileSync(join(dir, 'lock'), JSON.stringify({ pid: dead.pid, host: hostname(), token: 'stale' }));
  const racers = Array.from({ length: 4 }, () => locker(t, dir));
  const results = await Promise.all(racers.map((r) => r.result));
  assert.equal(results.filter((r) => r === 'got').length, 1, results.join(','));
  assert.equal(results.filter((r) => r === 'profile_locked').length, 3, results.join(','));
  for (const r of racers) r.child.stdin?.end();
  await Promise.all(racers.map((r) => exited(r.child)));
  assert.equal(existsSync(join(dir, 'lock')), false);
});

test('a lock of another host is live while refreshed and stale once older than staleMs', async (t) => {
  const dir = tempDir(t, 'papo-lock-');
  const path = join(dir, 'lock');
  writeFileSync(path, JSON.stringify({ pid: 1, host: 'some-container', token: 't' }));
  await assert.rejects(acquireLock(dir, { staleMs: 60_000 }), (e) => isPapoError(e, 'profile_locked'));
  const { utimesSync } = await import('node:fs');
  const old = new Date(Date.now() - 120_000);
  utimesSync(path, old, old);
  const lock = await acquireLock(dir, { staleMs: 60_000 });
  await lock.release();
});

test('garbage in the lock file counts as stale', async (t) => {
  const dir = tempDir(t, 'papo-lock-');
  writeFileSync(join(dir, 'lock'), 'not json');
  const lock = await acquireLock(dir);
  await lock.release();
});
