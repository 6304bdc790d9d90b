// The sender's path check (src/client/attach/project-path.ts, ADR 0121): a regular file inside the
// project passes; a link, a folder, a fifo, a socket, a path outside the project (also through a
// linked folder) and a file over the cap are refused, each with its own problem, nothing opened.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { attachMessage, checkProjectFile } from '../../src/client/attach/project-path.js';
import { type AttachProblem, isPapoError } from '../../src/client/errors.js';
import { tempDir } from '../support/files.js';

const CAP = 1024 * 1024;

async function refused(
  project: string,
  given: string,
  problem: AttachProblem['problem'],
  cap = CAP,
): Promise<void> {
  await assert.rejects(
    checkProjectFile(project, given, cap),
    (err: unknown) =>
      isPapoError(err, 'attach_refused') && err.detail.problem === problem && err.detail.path === given,
    `${given}: not refused as ${problem}`,
  );
}

function layout(t: Parameters<typeof tempDir>[0]) {
  const root = tempDir(t, 'papo-attach-path-');
  const project = join(root, 'project');
  const outside = join(root, 'outside');
  mkdirSync(join(project, 'docs'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(project, 'docs', 'spec.json'), '{"a":1}');
  writeFileSync(join(outside, 'secret.txt'), 'not for the room');
  return { root, project, outside };
}

test('a file inside the project passes, relative or absolute, with what the check saw', async (t) => {
  const { project } = layout(t);
  const rel = await checkProjectFile(project, 'docs/spec.json', CAP);
  assert.equal(rel.name, 'spec.json');
  assert.equal(rel.size, 7);
  assert.equal(rel.given, 'docs/spec.json');
  const abs = await checkProjectFile(project, join(project, 'docs', 'spec.json'), CAP);
  assert.equal(abs.ino, rel.ino);
  // A path that wanders but stays inside.
  assert.equal((await checkProjectFile(project, 'docs/../docs/./spec.json', CAP)).ino, rel.ino);
});

test('a path outside the project is refused, also through ../ and through a linked folder', async (t) => {
  const { project, outside } = layout(t);
  await refused(project, '../outside/secret.txt', 'outside');
  await refused(project, join(outside, 'secret.txt'), 'outside');
  symlinkSync(outside, join(project, 'elsewhere'));
  await refused(project, 'elsewhere/secret.txt', 'outside');
  await refused(project, '/etc/hostname', 'outside');
});

test('a link to a file is refused, even to one inside the project', async (t) => {
  const { project, outside } = layout(t);
  symlinkSync(join(outside, 'secret.txt'), join(project, 'innocent.json'));
  symlinkSync(join(project, 'docs', 'spec.json'), join(project, 'same.json'));
  await refused(project, 'innocent.json', 'link');
  await refused(project, 'same.json', 'link');
});

test('a folder, a fifo, a socket and a device are refused', async (t) => {
  const { project } = layout(t);
  await refused(project, 'docs', 'folder');
  await refused(project, '.', 'folder');
  execFileSync('mkfifo', [join(project, 'pipe')]);
  await refused(project, 'pipe', 'not_file');
  const server = createServer();
  const sock = join(project, 's.sock');
  await new Promise<void>((resolve) => server.listen(sock, resolve));
  t.after(() => server.close());
  await refused(project, 's.sock', 'not_file');
  // A device: /dev/null is outside the project, so the check that it is no file comes first.
  await refused(project, '/dev/null', 'not_file');
});

test('a file over the cap is refused with its size and the cap', async (t) => {
  const { project } = layout(t);
  writeFileSync(join(project, 'big.bin'), Buffer.alloc(2048));
  await assert.rejects(checkProjectFile(project, 'big.bin', 2047), (err: unknown) => {
    assert.ok(isPapoError(err, 'attach_refused'));
    assert.deepEqual(err.detail, { problem: 'too_large', path: 'big.bin', size: 2048, limit: 2047 });
    assert.match(err.message, /2048 bytes, more than the 2047/);
    return true;
  });
  assert.equal((await checkProjectFile(project, 'big.bin', 2048)).size, 2048);
});

test('a missing file, an empty path and a NUL are refused as not found', async (t) => {
  const { project } = layout(t);
  await refused(project, 'nope.json', 'not_found');
  await refused(project, 'docs/spec.json/x', 'not_found');
  await refused(project, '', 'not_found');
  await assert.rejects(
    checkProjectFile(project, 'docs/spec.json\0.txt', CAP),
    (err: unknown) => isPapoError(err, 'attach_refused') && err.detail.problem === 'not_found',
  );
});

test('each refusal says its own words, with the path as given', () => {
  const problems = ['not_found', 'link', 'folder', 'not_file', 'outside', 'unreadable', 'changed'] as const;
  const texts = problems.map((problem) => attachMessage({ problem, path: 'docs/x.json' }));
  texts.push(attachMessage({ problem: 'too_large', path: 'docs/x.json', size: 2, limit: 1 }));
  assert.equal(new Set(texts).size, texts.length);
  for (const text of texts) assert.ok(text.startsWith('docs/x.json'), text);
  assert.match(texts[1] as string, /symbolic link/);
  assert.match(texts[4] as string, /outside the project/);
});

test('a name that begins with two dots is inside the project', async (t) => {
  const { project } = layout(t);
  writeFileSync(join(project, '..notes.json'), '{}');
  assert.equal((await checkProjectFile(project, '..notes.json', CAP)).name, '..notes.json');
});
