// The inbox folder on its own (ADR 0062), on a real temporary folder: its caps at their exact
// edges, the names of its files, what it reads back and what it refuses. tests/store/
// profile-store.test.ts drives it through the member state; these are the fast tests mutation
// testing runs against each change of inbox-store.ts (ADR 0080).
import assert from 'node:assert/strict';
import fs, {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isPapoError } from '../../src/client/errors.js';
import {
  countUnread,
  InboxStore,
  MAX_INBOX_BYTES,
  MAX_INBOX_MESSAGES,
  readStoredMessages,
} from '../../src/client/store/inbox-store.js';
import { INBOX_DIR, LEGACY_INBOX_FILE } from '../../src/client/store/profile-files.js';
import type { Envelope } from '../../src/client/wire/messages.js';

function profileDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'papo-inbox-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function msg(n: number, body = 'x'): Envelope {
  return {
    id: n.toString(16).padStart(10, '0'),
    from: 'b',
    node: 'ab'.repeat(32),
    kind: 'agent',
    ts: 1,
    body,
  };
}

/** Bytes of a message's file. */
const fileBytes = (m: Envelope) => Buffer.byteLength(`${JSON.stringify(m)}\n`);

/** A message whose file is exactly `bytes` long. */
function msgOfBytes(n: number, bytes: number): Envelope {
  return msg(n, 'x'.repeat(bytes - fileBytes(msg(n, ''))));
}

test('entries are read in the order of their numbers, whatever order the folder lists them in', async (t) => {
  const dir = profileDir(t);
  const inbox = join(dir, INBOX_DIR);
  mkdirSync(inbox, { recursive: true });
  const order = [7, 2, 9, 0, 5, 3, 8, 1, 6, 4];
  for (const n of order)
    writeFileSync(join(inbox, `${String(n).padStart(10, '0')}-${msg(n).id}.json`), JSON.stringify(msg(n)));
  const store = await InboxStore.open(dir);
  assert.deepEqual(
    store.messages.map((m) => m.id),
    order
      .slice()
      .sort((a, b) => a - b)
      .map((n) => msg(n).id),
  );
});

/**
 * Runs `fn` with node:fs's readdirSync replaced by `listing` (given the real one), for what this
 * machine's listing cannot show: libuv sorts a folder's names on Unix (scandir with strcmp, so
 * even tmpfs, which lists unsorted, comes back sorted), not on Windows, where FAT and exFAT list
 * in creation order; and another process removing an entry between the listing and the read.
 */
async function withListing<T>(
  listing: (real: typeof fs.readdirSync, dir: string) => string[],
  fn: () => Promise<T> | T,
): Promise<T> {
  const real = fs.readdirSync;
  (fs as { readdirSync: unknown }).readdirSync = (dir: string) => listing(real, dir);
  syncBuiltinESMExports();
  try {
    return await fn();
  } finally {
    (fs as { readdirSync: unknown }).readdirSync = real;
    syncBuiltinESMExports();
  }
}

test('entries are read in number order where the folder lists them unsorted (Windows on FAT)', async (t) => {
  const dir = profileDir(t);
  const inbox = join(dir, INBOX_DIR);
  mkdirSync(inbox, { recursive: true });
  for (const n of [1, 2, 3])
    writeFileSync(join(inbox, `${String(n).padStart(10, '0')}-${msg(n).id}.json`), JSON.stringify(msg(n)));
  const listed = (real: typeof fs.readdirSync, d: string) => (real(d) as string[]).slice().reverse();
  const store = await withListing(listed, () => InboxStore.open(dir));
  assert.deepEqual(
    store.messages.map((m) => m.id),
    [msg(1).id, msg(2).id, msg(3).id],
  );
  assert.deepEqual(
    (await withListing(listed, () => readStoredMessages(inbox))).map((m) => m.id),
    [msg(1).id, msg(2).id, msg(3).id],
  );
  // The next file is numbered after the highest, not after the last listed.
  await store.add(msg(4));
  assert.ok(readdirSync(inbox).includes(`0000000004-${msg(4).id}.json`));
});

test('an entry removed between the listing and its read (the agent read it meanwhile) is skipped', async (t) => {
  const dir = profileDir(t);
  const inbox = join(dir, INBOX_DIR);
  mkdirSync(inbox, { recursive: true });
  for (const n of [1, 2, 3])
    writeFileSync(join(inbox, `${String(n).padStart(10, '0')}-${msg(n).id}.json`), JSON.stringify(msg(n)));
  // papo status or review reads without the profile lock (readStoredMessages): the papo mcp that
  // holds it may unlink an entry right after the folder was listed.
  const racing = (real: typeof fs.readdirSync, d: string) => {
    const names = real(d) as string[];
    rmSync(join(d, `0000000002-${msg(2).id}.json`));
    return names;
  };
  const read = await withListing(racing, () => readStoredMessages(inbox));
  assert.deepEqual(
    read.map((m) => m.id),
    [msg(1).id, msg(3).id],
  );
  assert.deepEqual(readStoredMessages(join(dir, 'nowhere')), []);
});

test('files are numbered in arrival order, the numbering goes on after a reopen, and reading unlinks', async (t) => {
  const dir = profileDir(t);
  const store = await InboxStore.open(dir);
  assert.equal(store.dir, join(dir, INBOX_DIR));
  assert.equal(statSync(store.dir).mode & 0o777, 0o700);
  await store.add(msg(1));
  await store.add(msg(2));
  assert.deepEqual(readdirSync(store.dir), ['0000000000-0000000001.json', '0000000001-0000000002.json']);
  assert.equal(store.count, 2);
  assert.equal(store.bytes, fileBytes(msg(1)) + fileBytes(msg(2)));
  const again = await InboxStore.open(dir);
  assert.deepEqual(again.messages, [msg(1), msg(2)]);
  assert.equal(again.bytes, store.bytes);
  await again.remove(['0000000001']);
  await again.add(msg(3));
  assert.deepEqual(readdirSync(again.dir), ['0000000001-0000000002.json', '0000000002-0000000003.json']);
  assert.equal(again.count, 2);
  assert.equal(again.bytes, fileBytes(msg(2)) + fileBytes(msg(3)));
  assert.equal(countUnread(dir), 2);
  // Removing what is not there, or a file someone else removed, is no error.
  rmSync(join(again.dir, '0000000001-0000000002.json'));
  await again.remove(['0000000002', 'ffffffffff']);
  assert.deepEqual(
    again.messages.map((m) => m.id),
    ['0000000003'],
  );
  assert.equal(again.bytes, fileBytes(msg(3)));
  await again.remove([]);
  assert.equal(again.count, 1);
});

test('a file it cannot remove is an error, not a message silently kept or lost', async (t) => {
  const dir = profileDir(t);
  const store = await InboxStore.open(dir);
  await store.add(msg(1));
  // A folder in the file's place: unlink fails with EISDIR (or EPERM), not ENOENT.
  rmSync(join(store.dir, '0000000000-0000000001.json'));
  mkdirSync(join(store.dir, '0000000000-0000000001.json'));
  await assert.rejects(store.remove(['0000000001']), (e: NodeJS.ErrnoException) => e.code !== 'ENOENT');
});

test('the byte cap: a message that brings the inbox to exactly 8 MiB is stored, one byte more is refused', async (t) => {
  const dir = profileDir(t);
  const store = await InboxStore.open(dir);
  const chunk = 1024 * 1024;
  for (let i = 0; i < 7; i++) await store.add(msgOfBytes(i, chunk));
  assert.equal(store.bytes, 7 * chunk);
  await assert.rejects(store.add(msgOfBytes(7, chunk + 1)), (e) => {
    assert.ok(isPapoError(e, 'inbox_full'));
    assert.equal(e.message, `the inbox holds 7 unread messages (${7 * chunk} bytes)`);
    return true;
  });
  assert.equal(readdirSync(store.dir).length, 7, 'nothing written for the refused one');
  await store.add(msgOfBytes(7, MAX_INBOX_BYTES - 7 * chunk));
  assert.equal(store.bytes, MAX_INBOX_BYTES);
  await assert.rejects(store.add(msgOfBytes(8, 200)), (e) => isPapoError(e, 'inbox_full'));
});

test('the count cap: the 1000th message is stored, the 1001st refused', async (t) => {
  const dir = profileDir(t);
  const inbox = join(dir, INBOX_DIR);
  mkdirSync(inbox, { recursive: true });
  // 999 files written directly (1000 durable writes would take long), then the store's own.
  for (let i = 0; i < MAX_INBOX_MESSAGES - 1; i++)
    writeFileSync(
      join(inbox, `${String(i).padStart(10, '0')}-${msg(i).id}.json`),
      `${JSON.stringify(msg(i))}\n`,
    );
  const store = await InboxStore.open(dir);
  assert.equal(store.count, MAX_INBOX_MESSAGES - 1);
  await store.add(msg(5000));
  assert.equal(store.count, MAX_INBOX_MESSAGES);
  assert.deepEqual(readdirSync(inbox).sort().at(-1), `0000000999-${msg(5000).id}.json`);
  await assert.rejects(store.add(msg(5001)), (e) => {
    assert.ok(isPapoError(e, 'inbox_full'));
    assert.match(e.message, /^the inbox holds 1000 unread messages \(\d+ bytes\)$/);
    return true;
  });
});

test('only files named like inbox entries are read and counted', async (t) => {
  const dir = profileDir(t);
  const inbox = join(dir, INBOX_DIR);
  mkdirSync(inbox, { recursive: true });
  writeFileSync(join(inbox, `0000000003-${msg(3).id}.json`), JSON.stringify(msg(3)));
  writeFileSync(join(inbox, `0000000001-${msg(1).id}.json`), JSON.stringify(msg(1)));
  for (const name of [
    'notes.txt',
    `x0000000002-${msg(2).id}.json`,
    `0000000002-${msg(2).id}.json.tmp`,
    `000000002-${msg(2).id}.json`,
    `0000000002-${msg(2).id.toUpperCase()}A.json`,
    '0000000002-0123.json',
  ])
    writeFileSync(join(inbox, name), '{ not json');
  const store = await InboxStore.open(dir);
  assert.deepEqual(
    store.messages.map((m) => m.id),
    [msg(1).id, msg(3).id],
  );
  assert.equal(countUnread(dir), 2);
  // The next file is numbered after the last one read.
  await store.add(msg(4));
  assert.ok(readdirSync(inbox).includes(`0000000004-${msg(4).id}.json`));
  assert.equal(countUnread(join(dir, 'nowhere')), 0);
});

test('a legacy inbox.json is moved in once, in order, without adding twice what a crash left moved', async (t) => {
  const dir = profileDir(t);
  const inbox = join(dir, INBOX_DIR);
  mkdirSync(inbox, { recursive: true });
  // A crash mid-move: the first message is already in the folder.
  writeFileSync(join(inbox, `0000000000-${msg(1).id}.json`), JSON.stringify(msg(1)));
  writeFileSync(join(dir, LEGACY_INBOX_FILE), JSON.stringify([msg(1), msg(2), msg(3)]));
  const store = await InboxStore.open(dir);
  assert.deepEqual(
    store.messages.map((m) => m.id),
    [msg(1).id, msg(2).id, msg(3).id],
  );
  assert.deepEqual(readdirSync(inbox), [
    `0000000000-${msg(1).id}.json`,
    `0000000001-${msg(2).id}.json`,
    `0000000002-${msg(3).id}.json`,
  ]);
  assert.ok(!readdirSync(dir).includes(LEGACY_INBOX_FILE));
  assert.equal(
    store.bytes,
    Buffer.byteLength(JSON.stringify(msg(1))) + fileBytes(msg(2)) + fileBytes(msg(3)),
  );
  await store.add(msg(4));
  assert.ok(readdirSync(inbox).includes(`0000000003-${msg(4).id}.json`));
});

test('what is not an inbox is refused as a corrupt profile, naming the file', async (t) => {
  const cases: [string, string, RegExp][] = [
    [LEGACY_INBOX_FILE, '{"not":"a list"}', /inbox\.json does not hold what papo expects$/],
    [`${INBOX_DIR}/0000000000-0000000001.json`, '{"not": ', /0000000000-0000000001\.json is not valid JSON$/],
    [
      `${INBOX_DIR}/0000000000-0000000001.json`,
      '{"id": 5}',
      /0000000000-0000000001\.json does not hold what papo expects$/,
    ],
    [
      `${INBOX_DIR}/0000000000-0000000001.json`,
      'null',
      /0000000000-0000000001\.json does not hold what papo expects$/,
    ],
    [
      `${INBOX_DIR}/0000000000-0000000001.json`,
      '"text"',
      /0000000000-0000000001\.json does not hold what papo expects$/,
    ],
  ];
  for (const [file, text, message] of cases) {
    const dir = profileDir(t);
    mkdirSync(join(dir, INBOX_DIR), { recursive: true });
    writeFileSync(join(dir, file), text);
    await assert.rejects(InboxStore.open(dir), (e) => {
      assert.ok(isPapoError(e, 'profile_corrupt'), String(e));
      assert.match(e.message, message);
      if (/valid JSON/.test(e.message)) assert.ok(e.cause instanceof SyntaxError);
      return true;
    });
  }
});

test('an inbox folder that is a symbolic link is refused: messages would be written where it points', async (t) => {
  const dir = profileDir(t);
  const elsewhere = profileDir(t);
  symlinkSync(elsewhere, join(dir, INBOX_DIR));
  await assert.rejects(
    InboxStore.open(dir),
    (e) => isPapoError(e, 'profile_link') && / is a symbolic link; /.test(e.message),
  );
  assert.deepEqual(readdirSync(elsewhere), []);
});

test('another folder kept the same way (held/) never takes in the legacy inbox.json', async (t) => {
  const dir = profileDir(t);
  writeFileSync(join(dir, LEGACY_INBOX_FILE), JSON.stringify([msg(1)]));
  const held = await InboxStore.open(dir, 'held');
  assert.equal(held.dir, join(dir, 'held'));
  assert.deepEqual(held.messages, []);
  assert.ok(readdirSync(dir).includes(LEGACY_INBOX_FILE), 'left for the inbox to move');
  const inbox = await InboxStore.open(dir);
  assert.deepEqual(inbox.messages, [msg(1)]);
});

test('read without the lock, a corrupt entry is an error, not an empty folder', async (t) => {
  const dir = profileDir(t);
  const inbox = join(dir, INBOX_DIR);
  mkdirSync(inbox, { recursive: true });
  writeFileSync(join(inbox, `0000000000-${msg(1).id}.json`), JSON.stringify(msg(1)));
  writeFileSync(join(inbox, `0000000001-${msg(2).id}.json`), '{ not json');
  assert.throws(
    () => readStoredMessages(inbox),
    (e) =>
      isPapoError(e, 'profile_corrupt') && /0000000001-0000000002\.json is not valid JSON$/.test(e.message),
  );
});

test('a legacy inbox.json with one entry that is not a message is refused whole', async (t) => {
  const dir = profileDir(t);
  writeFileSync(join(dir, LEGACY_INBOX_FILE), JSON.stringify([msg(1), { id: 5 }, msg(3)]));
  await assert.rejects(
    InboxStore.open(dir),
    (e) =>
      isPapoError(e, 'profile_corrupt') && /inbox\.json does not hold what papo expects$/.test(e.message),
  );
  assert.ok(readdirSync(dir).includes(LEGACY_INBOX_FILE), 'kept as it was');
});

test('the folder is synced after a removal, and only then: with the folder gone, only a real removal fails', async (t) => {
  const dir = profileDir(t);
  const store = await InboxStore.open(dir);
  await store.add(msg(1));
  // Someone removed the folder under a running member. Reading ids it does not hold touches
  // nothing on disk, so it is no error; removing a message syncs the folder, which is not there.
  rmSync(store.dir, { recursive: true });
  await store.remove(['ffffffffff']);
  await store.remove([]);
  assert.equal(store.count, 1);
  await assert.rejects(store.remove([msg(1).id]), (e: NodeJS.ErrnoException) => e.code === 'ENOENT');
  assert.equal(store.count, 0);
});
