// No profile file is read or written through a link (ADR 0061), module by module; the built
// binary's side is tests/attacks/local-files.test.ts.
import assert from 'node:assert/strict';
import { linkSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isPapoError } from '../../src/client/errors.js';
import { readJsonFile, writeFileDurable } from '../../src/client/store/durable-file.js';
import { acquireLock } from '../../src/client/store/file-lock.js';
import { LogFile, readInboundIds, readLogFrom, readLogTail } from '../../src/client/store/log-file.js';
import { OPEN_CREATE_NEW, openNoFollowSync } from '../../src/client/store/no-follow.js';
import { peekProfile } from '../../src/client/store/profile-file.js';
import type { Envelope } from '../../src/client/wire/messages.js';
import { tempDir } from '../support/files.js';

const OUTSIDE = 'outside the profile\n';

/** A profile folder and a file outside it, removed after the test. */
function setup(t: { after: (fn: () => void) => void }): { dir: string; target: string } {
  const root = tempDir(t, 'papo-nofollow-');
  const target = join(root, 'elsewhere.txt');
  writeFileSync(target, OUTSIDE);
  return { dir: root, target };
}

const isLinkError = (file: string) => (err: unknown) =>
  isPapoError(err, 'profile_link') && err.message.includes(`${file} is a symbolic link`);

const msg: Envelope = {
  id: '0123456789',
  from: 'colega',
  node: 'n',
  kind: 'agent',
  ts: 1,
  body: 'secret body',
};

test('writeFileDurable refuses a symbolic link at its target, writes nothing and leaves no temporary file', async (t) => {
  const { dir, target } = setup(t);
  const path = join(dir, 'peers.json');
  symlinkSync(target, path);
  await assert.rejects(writeFileDurable(path, '{"x":1}\n'), isLinkError('peers.json'));
  assert.equal(readFileSync(target, 'utf8'), OUTSIDE);
  assert.deepEqual(readdirSync(dir).sort(), ['elsewhere.txt', 'peers.json']);
});

test('readJsonFile does not read through a symbolic link; a dangling one is refused too', async (t) => {
  const { dir, target } = setup(t);
  writeFileSync(target, '{"name":"x"}');
  symlinkSync(target, join(dir, 'profile.json'));
  await assert.rejects(readJsonFile(join(dir, 'profile.json')), isLinkError('profile.json'));
  symlinkSync(join(dir, 'missing'), join(dir, 'inbox.json'));
  await assert.rejects(readJsonFile(join(dir, 'inbox.json')), isLinkError('inbox.json'));
  assert.equal(await readJsonFile(join(dir, 'outbox.json')), null);
});

test('a new file is never created through a link (O_CREAT|O_EXCL|O_NOFOLLOW)', (t) => {
  const { dir, target } = setup(t);
  symlinkSync(target, join(dir, '.inbox.json.1.tmp'));
  assert.throws(() => openNoFollowSync(join(dir, '.inbox.json.1.tmp'), OPEN_CREATE_NEW), { code: 'EEXIST' });
  assert.equal(readFileSync(target, 'utf8'), OUTSIDE);
});

test('log.jsonl: no append through a symbolic or a hard link, no read through a symbolic link', async (t) => {
  const { dir, target } = setup(t);
  const path = join(dir, 'log.jsonl');
  symlinkSync(target, path);
  await assert.rejects(new LogFile(path).append({ ev: 'in', msg }), isLinkError('log.jsonl'));
  await assert.rejects(readLogTail(path, 10), isLinkError('log.jsonl'));
  await assert.rejects(readLogFrom(path, 0), isLinkError('log.jsonl'));
  await assert.rejects(readInboundIds(path), isLinkError('log.jsonl'));
  rmSync(path);
  linkSync(target, path);
  await assert.rejects(
    new LogFile(path).append({ ev: 'in', msg }),
    (err: unknown) =>
      isPapoError(err, 'profile_link') && /log\.jsonl has another hard link/.test(err.message),
  );
  assert.equal(readFileSync(target, 'utf8'), OUTSIDE);
  // A real file is still appended to and read.
  rmSync(path);
  await new LogFile(path).append({ ev: 'in', msg });
  assert.deepEqual([...(await readInboundIds(path))], [msg.id]);
  assert.equal((await readLogTail(path, 5)).length, 1);
});

test('the lock is not taken through a symbolic link', async (t) => {
  const { dir, target } = setup(t);
  symlinkSync(target, join(dir, 'lock'));
  await assert.rejects(acquireLock(dir), isLinkError('lock'));
  assert.equal(readFileSync(target, 'utf8'), OUTSIDE);
});

test('the server instructions do not read profile.json through a link', (t) => {
  const { dir, target } = setup(t);
  writeFileSync(target, JSON.stringify({ name: 'voce', secret: 'ab'.repeat(32) }));
  symlinkSync(target, join(dir, 'profile.json'));
  assert.equal(peekProfile(dir), null);
  rmSync(join(dir, 'profile.json'));
  writeFileSync(join(dir, 'profile.json'), readFileSync(target));
  assert.equal(peekProfile(dir)?.name, 'voce');
});
