import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Low } from 'lowdb';
import { isPapoError } from '../../src/client/errors.js';
import { DurableJsonFile, writeFileDurable } from '../../src/client/store/durable-file.js';
import { tempDir } from '../support/files.js';

test('lowdb over DurableJsonFile: replaces the file, mode 0600, no temporary file left', async (t) => {
  const dir = tempDir(t, 'papo-durable-');
  const path = join(dir, 'inbox.json');
  const db = new Low<string[]>(new DurableJsonFile<string[]>(path), []);
  await db.read();
  assert.equal(db.data.length, 0);
  db.data.push('a');
  await db.write();
  db.data.push('b');
  await db.write();
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), ['a', 'b']);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), ['inbox.json']);

  const again = new Low<string[]>(new DurableJsonFile<string[]>(path), []);
  await again.read();
  assert.deepEqual(again.data, ['a', 'b']);
});

test('overlapping writes land in call order: the last state wins', async (t) => {
  const dir = tempDir(t, 'papo-durable-');
  const path = join(dir, 'outbox.json');
  const db = new Low<number[]>(new DurableJsonFile<number[]>(path), []);
  const writes: Promise<void>[] = [];
  for (let i = 0; i < 20; i++) {
    db.data.push(i);
    writes.push(db.write());
  }
  await Promise.all(writes);
  assert.equal((JSON.parse(readFileSync(path, 'utf8')) as number[]).length, 20);
  assert.deepEqual(readdirSync(dir), ['outbox.json']);
});

test('an existing file with a looser mode becomes 0600 when replaced', async (t) => {
  const dir = tempDir(t, 'papo-durable-');
  const path = join(dir, 'peers.json');
  writeFileSync(path, '{}', { mode: 0o644 });
  await writeFileDurable(path, '{"x":1}');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(readFileSync(path, 'utf8'), '{"x":1}');
});

test('read: null when absent, profile_corrupt naming the file when not JSON', async (t) => {
  const dir = tempDir(t, 'papo-durable-');
  const path = join(dir, 'inbox.json');
  assert.equal(await new DurableJsonFile(path).read(), null);
  writeFileSync(path, '[{"id":');
  await assert.rejects(new DurableJsonFile(path).read(), (e) => {
    assert.ok(isPapoError(e, 'profile_corrupt'));
    assert.match(e.message, /inbox\.json is not valid JSON/);
    return true;
  });
});

test('a failed write leaves the old content and no temporary file', async (t) => {
  const dir = tempDir(t, 'papo-durable-');
  const path = join(dir, 'target.json');
  writeFileSync(path, '"old"');
  // The rename fails for real: the target is replaced by a non-empty folder.
  rmSync(path);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(path, 'inside'), { recursive: true });
  await assert.rejects(writeFileDurable(path, '"new"'));
  assert.deepEqual(readdirSync(dir), ['target.json']);
});
