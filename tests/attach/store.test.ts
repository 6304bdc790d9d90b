// The attachment stores on real files (src/client/attach/store.ts, ADR 0121): a 300 KiB file put in
// the sender's store, read as chunks, sealed, opened, written out of order with duplicates into the
// receiver's partial file, resumed from its record, verified and released 0600; and the hostile
// cases: a manifest that lies about size or hash, a file that changes while it is stored, links
// planted where the stores write, too many ranges, a release that would land outside.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { AttachCodec } from '../../src/client/attach/chunk-codec.js';
import { CHUNK_BYTES } from '../../src/client/attach/constants.js';
import { type ManifestEntry, mediaTypeOf, safeName } from '../../src/client/attach/manifest.js';
import { checkProjectFile } from '../../src/client/attach/project-path.js';
import { OutStore, PartialStore } from '../../src/client/attach/store.js';
import { isPapoError } from '../../src/client/errors.js';
import { ATTACH_IN_DIR, ATTACH_OUT_DIR, ATTACHMENTS_DIR } from '../../src/client/store/profile-files.js';
import { generateIdentity } from '../../src/client/wire/identity.js';
import { tempDir } from '../support/files.js';

const ID = '81d4e0aa6c';
const CAP = 16 * 1024 * 1024;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const mode = (path: string) => statSync(path).mode & 0o777;

function setup(t: Parameters<typeof tempDir>[0]) {
  const root = tempDir(t, 'papo-attach-store-');
  const project = join(root, 'project');
  const sender = join(root, 'sender');
  const receiver = join(root, 'receiver');
  for (const d of [project, sender, receiver]) mkdirSync(d, { mode: 0o700 });
  return { root, project, sender, receiver };
}

function entryOf(name: string, content: Uint8Array): ManifestEntry {
  return { name, size: content.length, sha256: sha256(content), type: mediaTypeOf(name) };
}

/** The offsets of a file's chunks, in an order that is not the file's: last first, then odd, then even. */
function shuffledOffsets(size: number): number[] {
  const offsets: number[] = [];
  for (let at = 0; at < size; at += CHUNK_BYTES) offsets.push(at);
  const last = offsets.pop() as number;
  return [last, ...offsets.filter((_, i) => i % 2 === 1), ...offsets.filter((_, i) => i % 2 === 0)];
}

test('a 300 KiB file goes in, out as sealed chunks out of order with duplicates, and is released whole, 0600', async (t) => {
  const { project, sender, receiver } = setup(t);
  const content = randomBytes(300 * 1024);
  writeFileSync(join(project, 'spec.json'), content, { mode: 0o755 });
  const out = new OutStore(sender);
  const stored = await out.put(await checkProjectFile(project, 'spec.json', CAP));
  assert.deepEqual(stored, { sha256: sha256(content), size: content.length });
  assert.equal(mode(join(sender, ATTACH_OUT_DIR)), 0o700);
  assert.equal(mode(out.pathOf(stored.sha256)), 0o600);
  assert.deepEqual(readdirSync(join(sender, ATTACH_OUT_DIR)), [stored.sha256]);

  const alice = generateIdentity();
  const bob = generateIdentity();
  const key = randomBytes(32);
  const topic = 'ab'.repeat(32);
  const send = new AttachCodec(key, topic, alice);
  const take = new AttachCodec(key, topic, bob);
  const manifest = [entryOf('spec.json', content)];
  const partial = await new PartialStore(receiver).open(ID, 0, manifest[0] as ManifestEntry);
  const offsets = shuffledOffsets(content.length);
  let written = 0;
  for (const offset of [...offsets, offsets[0] as number, offsets[3] as number]) {
    const bytes = await out.read(stored.sha256, offset, CHUNK_BYTES);
    const frame = take.open(
      send.seal({ kind: 'chunk', from: alice.nodeId, to: bob.nodeId, id: ID, file: 0, offset, bytes }),
    );
    assert.ok(frame.kind === 'chunk');
    const outcome = await partial.write(frame.offset, frame.bytes);
    if (outcome === 'written') written++;
    else assert.equal(outcome, 'duplicate');
  }
  assert.equal(written, offsets.length);
  assert.equal(await partial.finish(), 'complete');
  assert.equal(await new PartialStore(receiver).isComplete(ID, 0), true);

  const released = await new PartialStore(receiver).release(ID, manifest);
  const path = join(receiver, ATTACHMENTS_DIR, ID, 'spec.json');
  assert.deepEqual(released, [{ name: 'spec.json', path, size: content.length, sha256: sha256(content) }]);
  assert.equal(sha256(readFileSync(path)), sha256(content));
  assert.equal(mode(path), 0o600);
  assert.equal(mode(join(receiver, ATTACHMENTS_DIR)), 0o700);
  assert.equal(mode(join(receiver, ATTACHMENTS_DIR, ID)), 0o700);
  assert.equal(existsSync(join(receiver, ATTACH_IN_DIR, ID)), false);

  // Acked by every recipient: the sender's copy goes.
  await out.remove(stored.sha256);
  assert.equal(await out.has(stored.sha256), false);
});

test('the same content sent twice is stored once', async (t) => {
  const { project, sender } = setup(t);
  writeFileSync(join(project, 'a.json'), 'same');
  writeFileSync(join(project, 'b.json'), 'same');
  const out = new OutStore(sender);
  const a = await out.put(await checkProjectFile(project, 'a.json', CAP));
  const b = await out.put(await checkProjectFile(project, 'b.json', CAP));
  assert.equal(a.sha256, b.sha256);
  assert.deepEqual(readdirSync(join(sender, ATTACH_OUT_DIR)), [a.sha256]);
});

test('a file that grows, shrinks, is rewritten or swapped after its check is refused, and nothing is kept', async (t) => {
  const { project, sender } = setup(t);
  const out = new OutStore(sender);
  const path = join(project, 'spec.json');
  const cases: [string, () => void][] = [
    ['grows', () => appendFileSync(path, 'more')],
    ['shrinks', () => writeFileSync(path, 'x')],
    ['rewritten, same size', () => writeFileSync(path, 'B'.repeat(100_000))],
    [
      'swapped for another file',
      () => {
        writeFileSync(`${path}.new`, 'A'.repeat(100_000));
        renameSync(`${path}.new`, path);
      },
    ],
    [
      'swapped for a fifo (open must not wait for a writer)',
      () => {
        execFileSync('mkfifo', [`${path}.fifo`]);
        renameSync(`${path}.fifo`, path);
      },
    ],
    [
      'swapped for a link',
      () => {
        symlinkSync('/etc/hostname', `${path}.link`);
        renameSync(`${path}.link`, path);
      },
    ],
  ];
  for (const [what, change] of cases) {
    writeFileSync(path, 'A'.repeat(100_000));
    const checked = await checkProjectFile(project, 'spec.json', CAP);
    // Rewriting within the same millisecond would keep the time: wait for the clock to move.
    await new Promise((resolve) => setTimeout(resolve, 5));
    change();
    await assert.rejects(
      out.put(checked),
      (err: unknown) => isPapoError(err, 'attach_refused') && err.detail.problem === 'changed',
      what,
    );
    assert.deepEqual(readdirSync(join(sender, ATTACH_OUT_DIR)), [], `${what}: something was kept`);
    await import('node:fs/promises').then((fs) => fs.rm(path, { force: true }));
  }
});

test('a file written to while it is copied is refused', async (t) => {
  const { project, sender } = setup(t);
  const path = join(project, 'big.bin');
  writeFileSync(path, randomBytes(8 * 1024 * 1024));
  const checked = await checkProjectFile(project, 'big.bin', CAP);
  let writing = true;
  // A writer that keeps changing the file in place, same size, on every turn of the loop.
  const writer = (async () => {
    const fs = await import('node:fs/promises');
    const fh = await fs.open(path, 'r+');
    try {
      for (let i = 0; writing; i++) await fh.write(randomBytes(16), 0, 16, (i * 65_536) % (8 * 1024 * 1024));
    } finally {
      await fh.close();
    }
  })();
  await assert.rejects(
    new OutStore(sender).put(checked),
    (err: unknown) => isPapoError(err, 'attach_refused') && err.detail.problem === 'changed',
  );
  writing = false;
  await writer;
  assert.deepEqual(readdirSync(join(sender, ATTACH_OUT_DIR)), []);
});

test('a manifest that lies about the hash: the whole file is removed, not kept', async (t) => {
  const { receiver } = setup(t);
  const content = randomBytes(100_000);
  const lie = { ...entryOf('spec.json', content), sha256: sha256(Buffer.from('other')) };
  const partial = await new PartialStore(receiver).open(ID, 0, lie);
  for (let at = 0; at < content.length; at += CHUNK_BYTES)
    await partial.write(at, content.subarray(at, at + CHUNK_BYTES));
  assert.equal(await partial.finish(), 'corrupt');
  assert.deepEqual(readdirSync(join(receiver, ATTACH_IN_DIR, ID)), []);
  await assert.rejects(new PartialStore(receiver).release(ID, [lie]), (err: unknown) =>
    isPapoError(err, 'unknown_message'),
  );
  assert.equal(existsSync(join(receiver, ATTACHMENTS_DIR)), false);
});

test('a manifest that lies about the size: bytes past it are refused, and a short file never completes', async (t) => {
  const { receiver } = setup(t);
  const content = randomBytes(1000);
  const small = { ...entryOf('a.bin', content), size: 500 };
  const partial = await new PartialStore(receiver).open(ID, 0, small);
  await assert.rejects(partial.write(0, content), RangeError);
  await assert.rejects(partial.write(499, content.subarray(0, 2)), RangeError);
  assert.equal(await partial.write(0, content.subarray(0, 500)), 'written');
  assert.equal(await partial.finish(), 'corrupt');
  const big = { ...entryOf('b.bin', content), size: 2000 };
  const more = await new PartialStore(receiver).open(ID, 1, big);
  await more.write(0, content);
  assert.equal(await more.finish(), 'incomplete');
  assert.deepEqual(more.ranges.missing(2000), [[1000, 2000]]);
  await more.close();
});

test('a transfer resumes from its record, and a record of another file or a damaged one starts over', async (t) => {
  const { receiver } = setup(t);
  const content = randomBytes(5 * CHUNK_BYTES + 10);
  const entry = entryOf('spec.json', content);
  const store = new PartialStore(receiver);
  const first = await store.open(ID, 0, entry);
  await first.write(0, content.subarray(0, CHUNK_BYTES));
  await first.write(2 * CHUNK_BYTES, content.subarray(2 * CHUNK_BYTES, 3 * CHUNK_BYTES));
  await first.close();
  const record = join(receiver, ATTACH_IN_DIR, ID, '0.ranges');
  assert.equal(mode(record), 0o600);
  assert.equal(mode(join(receiver, ATTACH_IN_DIR, ID, '0.part')), 0o600);
  assert.equal(mode(join(receiver, ATTACH_IN_DIR, ID)), 0o700);

  // papo mcp restarted: the same file picks up where it stopped.
  const again = await store.open(ID, 0, entry);
  assert.deepEqual(again.ranges.missing(content.length), [
    [CHUNK_BYTES, 2 * CHUNK_BYTES],
    [3 * CHUNK_BYTES, content.length],
  ]);
  for (const [a, b] of again.ranges.missing(content.length)) await again.write(a, content.subarray(a, b));
  assert.equal(await again.finish(), 'complete');

  // A record that claims more than the part file holds is clipped to it.
  const other = entryOf('other.bin', content);
  const clipped = await store.open(ID, 1, other);
  await clipped.write(0, content.subarray(0, 100));
  await clipped.close();
  writeFileSync(
    join(receiver, ATTACH_IN_DIR, ID, '1.ranges'),
    JSON.stringify({ size: other.size, sha256: other.sha256, ranges: [[0, content.length]] }),
  );
  const reopened = await store.open(ID, 1, other);
  assert.deepEqual(reopened.ranges.ranges, [[0, 100]]);
  // Closed, as papo closes each one: Node 26 ends the process for a FileHandle left to the GC.
  await reopened.close();

  // A record for another file (the message was sent again with other content) starts over.
  const changed = { ...other, sha256: sha256(Buffer.from('x')) };
  const fresh = await store.open(ID, 1, changed);
  assert.deepEqual(fresh.ranges.ranges, []);
  assert.equal(statSync(fresh.partPath).size, 0);
  await fresh.close();
  // A damaged record too.
  writeFileSync(join(receiver, ATTACH_IN_DIR, ID, '1.ranges'), '{not json');
  const damaged = await store.open(ID, 1, changed);
  assert.deepEqual(damaged.ranges.ranges, []);
  await damaged.close();
});

test('a sender that spreads chunks apart gets nowhere past the bound of ranges', async (t) => {
  const { receiver } = setup(t);
  const content = randomBytes(64 * 1024);
  const partial = await new PartialStore(receiver, { maxRanges: 4 }).open(ID, 0, entryOf('a.bin', content));
  for (let i = 0; i < 4; i++)
    assert.equal(await partial.write(i * 1000, content.subarray(i * 1000, i * 1000 + 10)), 'written');
  assert.equal(await partial.write(10_000, content.subarray(10_000, 10_010)), 'too_many_ranges');
  assert.equal(partial.ranges.ranges.length, 4);
  // Filling in order still works.
  assert.equal(await partial.write(10, content.subarray(10, 1000)), 'written');
  for (const [a, b] of partial.ranges.missing(content.length)) await partial.write(a, content.subarray(a, b));
  assert.equal(await partial.finish(), 'complete');
});

test('a link planted where the stores write is refused, and nothing is written through it', async (t) => {
  const { root, project, sender, receiver } = setup(t);
  const victim = join(root, 'victim');
  mkdirSync(victim);
  writeFileSync(join(victim, 'keep.txt'), 'keep');
  const content = Buffer.from('{"a":1}');
  writeFileSync(join(project, 'spec.json'), content);
  const entry = entryOf('spec.json', content);

  // The sender's folder, and a stored file's place.
  symlinkSync(victim, join(sender, ATTACH_OUT_DIR));
  await assert.rejects(
    new OutStore(sender).put(await checkProjectFile(project, 'spec.json', CAP)),
    (err: unknown) => isPapoError(err, 'profile_link'),
  );
  // The receiver's folder, its message folder, its part file (symbolic and hard).
  symlinkSync(victim, join(receiver, ATTACH_IN_DIR));
  await assert.rejects(new PartialStore(receiver).open(ID, 0, entry), (err: unknown) =>
    isPapoError(err, 'profile_link'),
  );
  await import('node:fs/promises').then((fs) => fs.unlink(join(receiver, ATTACH_IN_DIR)));
  mkdirSync(join(receiver, ATTACH_IN_DIR), { mode: 0o700 });
  symlinkSync(victim, join(receiver, ATTACH_IN_DIR, ID));
  await assert.rejects(new PartialStore(receiver).open(ID, 0, entry), (err: unknown) =>
    isPapoError(err, 'profile_link'),
  );
  await import('node:fs/promises').then((fs) => fs.unlink(join(receiver, ATTACH_IN_DIR, ID)));
  mkdirSync(join(receiver, ATTACH_IN_DIR, ID), { mode: 0o700 });
  symlinkSync(join(victim, 'keep.txt'), join(receiver, ATTACH_IN_DIR, ID, '0.part'));
  await assert.rejects(new PartialStore(receiver).open(ID, 0, entry), (err: unknown) =>
    isPapoError(err, 'profile_link'),
  );
  await import('node:fs/promises').then((fs) => fs.unlink(join(receiver, ATTACH_IN_DIR, ID, '0.part')));
  linkSync(join(victim, 'keep.txt'), join(receiver, ATTACH_IN_DIR, ID, '0.part'));
  await assert.rejects(new PartialStore(receiver).open(ID, 0, entry), (err: unknown) =>
    isPapoError(err, 'profile_link'),
  );
  await import('node:fs/promises').then((fs) => fs.unlink(join(receiver, ATTACH_IN_DIR, ID, '0.part')));

  // The released folder and a released file's place.
  const partial = await new PartialStore(receiver).open(ID, 0, entry);
  await partial.write(0, content);
  assert.equal(await partial.finish(), 'complete');
  symlinkSync(victim, join(receiver, ATTACHMENTS_DIR));
  await assert.rejects(new PartialStore(receiver).release(ID, [entry]), (err: unknown) =>
    isPapoError(err, 'profile_link'),
  );
  await import('node:fs/promises').then((fs) => fs.unlink(join(receiver, ATTACHMENTS_DIR)));
  mkdirSync(join(receiver, ATTACHMENTS_DIR, ID), { recursive: true, mode: 0o700 });
  symlinkSync(join(victim, 'keep.txt'), join(receiver, ATTACHMENTS_DIR, ID, 'spec.json'));
  await assert.rejects(new PartialStore(receiver).release(ID, [entry]), (err: unknown) =>
    isPapoError(err, 'profile_link'),
  );

  assert.equal(readFileSync(join(victim, 'keep.txt'), 'utf8'), 'keep');
  assert.deepEqual(readdirSync(victim), ['keep.txt']);
});

test('release writes under attachments/<msg id>/ only, with names made safe, never executable', async (t) => {
  const { receiver } = setup(t);
  const a = Buffer.from('#!/bin/sh\necho hi\n');
  // Names as a manifest read back from disk could hold them (the parse refuses them on the wire).
  const manifest = [entryOf('../../escape.sh', a), entryOf('CON.txt', a), entryOf('ok.sh', a)];
  const store = new PartialStore(receiver);
  for (const [i, entry] of manifest.entries()) {
    const partial = await store.open(ID, i, entry);
    await partial.write(0, a);
    assert.equal(await partial.finish(), 'complete');
  }
  const released = await store.release(ID, manifest);
  assert.deepEqual(
    released.map((r) => r.name),
    manifest.map((e) => safeName(e.name, e.sha256)),
  );
  assert.deepEqual(readdirSync(join(receiver, ATTACHMENTS_DIR, ID)).sort(), [
    '_CON.txt',
    'escape.sh',
    'ok.sh',
  ]);
  for (const r of released) {
    assert.ok(r.path.startsWith(join(receiver, ATTACHMENTS_DIR, ID)));
    assert.equal(mode(r.path), 0o600);
  }
  assert.deepEqual(readdirSync(receiver).sort(), [ATTACHMENTS_DIR, ATTACH_IN_DIR]);
  assert.deepEqual(readdirSync(join(receiver, ATTACH_IN_DIR)), []);
  // A message id that is not one is misuse, never a path.
  await assert.rejects(store.release('../x', manifest), RangeError);
  await assert.rejects(store.open('..', 0, manifest[0] as ManifestEntry), RangeError);
});

test('a release cut short by a crash is finished by the next one; a stranger at a target is refused', async (t) => {
  const { receiver } = setup(t);
  const a = randomBytes(1000);
  const b = randomBytes(2000);
  const manifest = [entryOf('a.bin', a), entryOf('b.bin', b)];
  const store = new PartialStore(receiver);
  for (const [i, content] of [a, b].entries()) {
    const partial = await store.open(ID, i, manifest[i] as ManifestEntry);
    await partial.write(0, content);
    assert.equal(await partial.finish(), 'complete');
  }
  // The first file moved, then the process died.
  mkdirSync(join(receiver, ATTACHMENTS_DIR, ID), { recursive: true, mode: 0o700 });
  renameSync(join(receiver, ATTACH_IN_DIR, ID, '0.file'), join(receiver, ATTACHMENTS_DIR, ID, 'a.bin'));
  const released = await store.release(ID, manifest);
  assert.deepEqual(
    released.map((r) => sha256(readFileSync(r.path))),
    [sha256(a), sha256(b)],
  );
  // Another message whose target holds something else: nothing moves.
  const other = '0123456789';
  const partial = await store.open(other, 0, manifest[0] as ManifestEntry);
  await partial.write(0, a);
  assert.equal(await partial.finish(), 'complete');
  mkdirSync(join(receiver, ATTACHMENTS_DIR, other), { mode: 0o700 });
  writeFileSync(join(receiver, ATTACHMENTS_DIR, other, 'a.bin'), 'something else');
  await assert.rejects(store.release(other, [manifest[0] as ManifestEntry]), (err: unknown) =>
    isPapoError(err, 'io'),
  );
  assert.equal(await store.isComplete(other, 0), true);
});

test('a rejected message leaves nothing behind', async (t) => {
  const { receiver } = setup(t);
  const content = randomBytes(1000);
  const partial = await new PartialStore(receiver).open(ID, 0, entryOf('a.bin', content));
  await partial.write(0, content.subarray(0, 10));
  await partial.close();
  await new PartialStore(receiver).discard(ID);
  assert.deepEqual(readdirSync(join(receiver, ATTACH_IN_DIR)), []);
});

test('the sender reads back any range, short at the end, and refuses a range larger than a chunk', async (t) => {
  const { project, sender } = setup(t);
  const content = randomBytes(100_000);
  writeFileSync(join(project, 'x.bin'), content);
  const out = new OutStore(sender);
  const { sha256: hash } = await out.put(await checkProjectFile(project, 'x.bin', CAP));
  assert.ok((await out.read(hash, 99_000, CHUNK_BYTES)).equals(content.subarray(99_000)));
  assert.equal((await out.read(hash, 100_000, 10)).length, 0);
  await assert.rejects(out.read(hash, 0, CHUNK_BYTES + 1), RangeError);
  assert.throws(() => out.pathOf('../../etc/passwd'), RangeError);
});

test('each link is named as what it is: symbolic, hard, or not a regular file', async (t) => {
  const { root, receiver, sender } = setup(t);
  const victim = join(root, 'victim');
  writeFileSync(victim, 'keep');
  const entry = entryOf('a.bin', Buffer.from('abc'));
  const link = (kind: string) => (err: unknown) =>
    isPapoError(err, 'profile_link') && err.detail.link === kind;
  // A folder papo makes that is a link, or a file.
  symlinkSync(root, join(receiver, ATTACH_IN_DIR));
  await assert.rejects(new PartialStore(receiver).open(ID, 0, entry), link('symbolic'));
  await unlink(join(receiver, ATTACH_IN_DIR));
  writeFileSync(join(receiver, ATTACH_IN_DIR), 'a file');
  await assert.rejects(new PartialStore(receiver).open(ID, 0, entry), link('not_regular'));
  await unlink(join(receiver, ATTACH_IN_DIR));
  // A part file that is a hard link, or a folder.
  mkdirSync(join(receiver, ATTACH_IN_DIR, ID), { recursive: true, mode: 0o700 });
  linkSync(victim, join(receiver, ATTACH_IN_DIR, ID, '0.part'));
  await assert.rejects(new PartialStore(receiver).open(ID, 0, entry), link('hard'));
  await unlink(join(receiver, ATTACH_IN_DIR, ID, '0.part'));
  // A range record that is a link: refused, not read through.
  symlinkSync(victim, join(receiver, ATTACH_IN_DIR, ID, '0.ranges'));
  await assert.rejects(new PartialStore(receiver).open(ID, 0, entry), link('symbolic'));
  await unlink(join(receiver, ATTACH_IN_DIR, ID, '0.ranges'));
  // The sender's stored file: a link there is refused by has() and read(), a second name by read().
  const out = new OutStore(sender);
  mkdirSync(out.dir, { mode: 0o700 });
  const hash = sha256(Buffer.from('keep'));
  symlinkSync(victim, out.pathOf(hash));
  await assert.rejects(out.has(hash), link('symbolic'));
  await assert.rejects(out.read(hash, 0, 4), link('symbolic'));
  await unlink(out.pathOf(hash));
  linkSync(victim, out.pathOf(hash));
  await assert.rejects(out.read(hash, 0, 4), link('hard'));
  assert.equal(readFileSync(victim, 'utf8'), 'keep');
});

test('misuse of the stores is a RangeError or a TypeError, and removing twice is fine', async (t) => {
  const { project, sender, receiver } = setup(t);
  writeFileSync(join(project, 'x.bin'), 'abc');
  const out = new OutStore(sender);
  const { sha256: hash } = await out.put(await checkProjectFile(project, 'x.bin', CAP));
  for (const [offset, length] of [
    [-1, 1],
    [1.5, 1],
    [0, 0],
    [0, 1.5],
  ] as const)
    await assert.rejects(out.read(hash, offset, length), RangeError, `${offset} ${length}`);
  assert.equal((await out.read(hash, 0, 1)).toString(), 'a');
  await out.remove(hash);
  await out.remove(hash);
  const store = new PartialStore(receiver);
  const entry = entryOf('a.bin', Buffer.from('abc'));
  for (const index of [-1, 1.5]) await assert.rejects(store.open(ID, index, entry), RangeError);
  const partial = await store.open(ID, 0, entry);
  for (const [offset, bytes] of [
    [-1, Buffer.from('a')],
    [1.5, Buffer.from('a')],
    [0, Buffer.alloc(0)],
  ] as const)
    await assert.rejects(partial.write(offset, bytes), RangeError);
  await partial.close();
  await partial.close();
  await assert.rejects(partial.write(0, Buffer.from('a')), TypeError);
  await store.discard(ID);
  await store.discard(ID);
  // Two names one once case is folded: a manifest read back from disk cannot make release write one over the other.
  await assert.rejects(
    store.release(ID, [entryOf('A.txt', Buffer.from('a')), entryOf('a.TXT', Buffer.from('b'))]),
    RangeError,
  );
});

test('a record of another size starts over, and a part file without a record is emptied', async (t) => {
  const { receiver } = setup(t);
  const content = randomBytes(3000);
  const entry = entryOf('a.bin', content);
  const store = new PartialStore(receiver);
  const first = await store.open(ID, 0, entry);
  await first.write(0, content.subarray(0, 1000));
  await first.close();
  const resized = await store.open(ID, 0, { ...entry, size: 2999 });
  assert.deepEqual(resized.ranges.ranges, []);
  assert.equal(statSync(resized.partPath).size, 0);
  await resized.write(0, content.subarray(0, 10));
  await resized.close();
  await unlink(resized.recordPath);
  const again = await store.open(ID, 0, entry);
  assert.deepEqual(again.ranges.ranges, []);
  assert.equal(statSync(again.partPath).size, 0);
  await again.close();
});

test('release makes a file 0600 whatever its mode, and refuses a second name or a stranger at its place', async (t) => {
  const { receiver } = setup(t);
  const a = Buffer.from('echo hi\n');
  const manifest = [entryOf('run.sh', a)];
  const store = new PartialStore(receiver);
  const partial = await store.open(ID, 0, manifest[0] as ManifestEntry);
  await partial.write(0, a);
  assert.equal(await partial.finish(), 'complete');
  const done = join(receiver, ATTACH_IN_DIR, ID, '0.file');
  // A second name for the whole file: not released (it would be another file's content too).
  linkSync(done, join(receiver, 'elsewhere'));
  await assert.rejects(store.release(ID, manifest), (err: unknown) => isPapoError(err, 'unknown_message'));
  await unlink(join(receiver, 'elsewhere'));
  chmodSync(done, 0o755);
  const [released] = await store.release(ID, manifest);
  assert.equal(mode((released as { path: string }).path), 0o600);
  // Released already, then the target changed: not taken as released.
  writeFileSync((released as { path: string }).path, 'changed');
  await assert.rejects(store.release(ID, manifest), (err: unknown) => isPapoError(err, 'unknown_message'));
});

test('a file swapped for an identical copy, or only touched, after its check is refused', async (t) => {
  const { project, sender } = setup(t);
  const out = new OutStore(sender);
  const path = join(project, 'spec.json');
  writeFileSync(path, 'same');
  const checked = await checkProjectFile(project, 'spec.json', CAP);
  const { mtime } = statSync(path);
  writeFileSync(`${path}.copy`, 'same');
  utimesSync(`${path}.copy`, mtime, mtime);
  renameSync(`${path}.copy`, path);
  await assert.rejects(
    out.put(checked),
    (err: unknown) => isPapoError(err, 'attach_refused') && err.detail.problem === 'changed',
  );
  const again = await checkProjectFile(project, 'spec.json', CAP);
  utimesSync(path, new Date(2020, 0, 1), new Date(2020, 0, 1));
  await assert.rejects(
    out.put(again),
    (err: unknown) => isPapoError(err, 'attach_refused') && err.detail.problem === 'changed',
  );
  // Gone since the check.
  await unlink(path);
  await assert.rejects(
    out.put(again),
    (err: unknown) => isPapoError(err, 'attach_refused') && err.detail.problem === 'not_found',
  );
});

test('a fifo planted where a kept file should be is refused, never waited on', async (t) => {
  const { sender, receiver } = setup(t);
  const out = new OutStore(sender);
  mkdirSync(out.dir, { mode: 0o700 });
  const hash = sha256(Buffer.from('x'));
  execFileSync('mkfifo', [out.pathOf(hash)]);
  const notRegular = (err: unknown) => isPapoError(err, 'profile_link') && err.detail.link === 'not_regular';
  await assert.rejects(out.read(hash, 0, 1), notRegular);
  const entry = entryOf('a.bin', Buffer.from('abc'));
  mkdirSync(join(receiver, ATTACH_IN_DIR, ID), { recursive: true, mode: 0o700 });
  execFileSync('mkfifo', [join(receiver, ATTACH_IN_DIR, ID, '0.part')]);
  await assert.rejects(new PartialStore(receiver).open(ID, 0, entry), notRegular);
  assert.throws(() => out.pathOf(`../${hash}`), RangeError);
  assert.throws(() => out.pathOf(`${hash}/x`), RangeError);
});

test('a record of the same file whose ranges are not ranges starts over', async (t) => {
  const { receiver } = setup(t);
  const content = randomBytes(3000);
  const entry = entryOf('a.bin', content);
  const store = new PartialStore(receiver);
  const first = await store.open(ID, 0, entry);
  await first.write(0, content.subarray(0, 1000));
  await first.close();
  writeFileSync(
    first.recordPath,
    JSON.stringify({ size: entry.size, sha256: entry.sha256, ranges: [[5, 1]] }),
  );
  const again = await store.open(ID, 0, entry);
  assert.deepEqual(again.ranges.ranges, []);
  await again.close();
});
