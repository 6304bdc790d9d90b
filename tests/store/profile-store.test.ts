import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isPapoError } from '../../src/client/errors.js';
import { acquireLock } from '../../src/client/store/file-lock.js';
import { MAX_INBOX_BYTES } from '../../src/client/store/inbox-store.js';
import {
  createProfile,
  type MemberState,
  openMemberState,
  openProfile,
  readAgentTransportRecord,
  readNames,
  readPeers,
  readQueueSummary,
  readRememberedMembers,
  removeTransportRecord,
  writeTransportRecord,
} from '../../src/client/store/profile-store.js';
import { MAX_BODY_BYTES } from '../../src/client/wire/frames.js';
import { generateSecret } from '../../src/client/wire/room-crypto.js';
import { type Hooks, snapshot, tempDir } from '../support/files.js';

function tempHome(t: Hooks): string {
  return join(tempDir(t, 'papo-home-'), 'home'); // not yet created: createProfile makes it
}

/** A fresh home holding one profile, "default", named "a" in a new room. */
async function aProfile(t: Parameters<typeof tempHome>[0]) {
  const home = tempHome(t);
  const { profile } = await createProfile({
    home,
    profile: 'default',
    name: 'a',
    secret: generateSecret(),
    force: false,
  });
  return { home, profile };
}

const mode = (p: string) => statSync(p).mode & 0o777;

/** Every file under dir with its content, to show that a refused operation changed nothing. */
test('createProfile: folders 0700, profile.json and secret.key 0600, and openProfile reads it back', async (t) => {
  const home = tempHome(t);
  const secret = generateSecret();
  const { profile, replaced } = await createProfile({
    home,
    profile: 'default',
    name: 'alice',
    about: 'payments-api',
    secret,
    signalUrl: 'wss://signal.example.com',
    force: false,
  });
  assert.equal(replaced, false);
  const dir = join(home, 'profiles', 'default');
  assert.equal(profile.dir, dir);
  for (const d of [home, join(home, 'profiles'), dir]) assert.equal(mode(d), 0o700, d);
  assert.deepEqual(readdirSync(dir).sort(), ['profile.json', 'secret.key']);
  assert.equal(mode(join(dir, 'profile.json')), 0o600);
  assert.equal(mode(join(dir, 'secret.key')), 0o600);
  const stored = JSON.parse(readFileSync(join(dir, 'profile.json'), 'utf8'));
  assert.equal(stored.secret, Buffer.from(secret).toString('hex'));

  const opened = await openProfile({ home, profile: 'default' });
  assert.equal(opened.name, 'alice');
  assert.equal(opened.about, 'payments-api');
  assert.equal(opened.signalUrl, 'wss://signal.example.com');
  assert.deepEqual(opened.secret, secret);
  assert.equal(opened.identity.nodeId, profile.identity.nodeId);
  assert.match(opened.identity.nodeId, /^[0-9a-f]{64}$/);
});

test('no signal URL stored means the local default (the field is absent)', async (t) => {
  const home = tempHome(t);
  await createProfile({ home, profile: 'p', name: 'a', secret: generateSecret(), force: false });
  const opened = await openProfile({ home, profile: 'p' });
  assert.equal(opened.signalUrl, undefined);
  assert.equal('signalUrl' in JSON.parse(readFileSync(join(opened.dir, 'profile.json'), 'utf8')), false);
});

test('an existing profile without force: profile_exists and nothing changed', async (t) => {
  const home = tempHome(t);
  await createProfile({ home, profile: 'default', name: 'alice', secret: generateSecret(), force: false });
  const before = snapshot(home);
  await assert.rejects(
    createProfile({ home, profile: 'default', name: 'bob', secret: generateSecret(), force: false }),
    (e) => isPapoError(e, 'profile_exists'),
  );
  assert.deepEqual(snapshot(home), before);
});

test('force keeps the identity and the log, clears peers, inbox and outbox', async (t) => {
  const home = tempHome(t);
  const first = await createProfile({
    home,
    profile: 'default',
    name: 'alice',
    secret: generateSecret(),
    force: false,
  });
  const state = await openMemberState(first.profile.dir);
  const envelope = (id: string, body: string) => ({
    id,
    from: 'b',
    node: 'ab'.repeat(32),
    kind: 'agent' as const,
    ts: 1,
    body,
  });
  await state.addToInbox(envelope('0123456789', 'x'));
  state.outbox = [envelope('0123456788', 'y')];
  await state.saveOutbox();
  state.peers['cd'.repeat(32)] = { name: 'b', kind: 'agent', lastSeen: 1 };
  await state.savePeers();
  const dir = first.profile.dir;
  for (const f of ['inbox/0000000000-0123456789.json', 'outbox.json', 'peers.json'])
    assert.equal(mode(join(dir, f)), 0o600);
  assert.equal(mode(join(dir, 'inbox')), 0o700);
  assert.equal(JSON.parse(readFileSync(join(dir, 'outbox.json'), 'utf8'))[0].body, 'y');
  await state.appendLog({ ev: 'delivered', id: '0123456788', by: 'b', ts: 2 });

  const newSecret = generateSecret();
  const second = await createProfile({
    home,
    profile: 'default',
    name: 'alice2',
    secret: newSecret,
    force: true,
  });
  assert.equal(second.replaced, true);
  assert.equal(second.profile.identity.nodeId, first.profile.identity.nodeId);
  assert.deepEqual(readdirSync(first.profile.dir).sort(), ['log.jsonl', 'profile.json', 'secret.key']);
  const reopened = await openMemberState(first.profile.dir);
  assert.equal(reopened.inbox.length, 0);
  assert.equal(reopened.outbox.length, 0);
  assert.equal(Object.keys(reopened.peers).length, 0);
  assert.equal((await reopened.readLogTail(10)).length, 1);
  assert.deepEqual((await openProfile({ home, profile: 'default' })).secret, newSecret);
});

test('force while a papo server holds the lock: profile_locked and nothing changed', async (t) => {
  const { home, profile } = await aProfile(t);
  const lock = await acquireLock(profile.dir);
  t.after(() => lock.release());
  const before = snapshot(home);
  await assert.rejects(
    createProfile({ home, profile: 'default', name: 'b', secret: generateSecret(), force: true }),
    (e) => isPapoError(e, 'profile_locked'),
  );
  assert.deepEqual(snapshot(home), before);
});

test('openProfile: missing and corrupt profiles', async (t) => {
  const home = tempHome(t);
  await assert.rejects(openProfile({ home, profile: 'work' }), (e) => {
    assert.ok(isPapoError(e, 'profile_missing'));
    assert.equal(e.message, "profile 'work' is not configured — run papo new or papo join");
    return true;
  });
  await assert.rejects(openProfile({ home, profile: '../x' }), (e) => isPapoError(e, 'invalid_profile_name'));
  const { profile } = await createProfile({
    home,
    profile: 'work',
    name: 'a',
    secret: generateSecret(),
    force: false,
  });
  writeFileSync(join(profile.dir, 'profile.json'), '{"name": "a", "secr');
  await assert.rejects(openProfile({ home, profile: 'work' }), (e) => {
    assert.ok(isPapoError(e, 'profile_corrupt'));
    assert.match(e.message, /profile\.json is not valid JSON/);
    return true;
  });
  writeFileSync(join(profile.dir, 'profile.json'), '{"name": "a"}');
  await assert.rejects(openProfile({ home, profile: 'work' }), (e) => isPapoError(e, 'profile_corrupt'));
});

test('member state: the shape the room node drives; inbound ids from the log and the inbox, and the log line a stop kept out written', async (t) => {
  const { profile } = await aProfile(t);
  const state: MemberState = await openMemberState(profile.dir);
  const msg = (id: string) => ({
    id,
    from: 'b',
    node: 'ab'.repeat(32),
    kind: 'agent' as const,
    ts: 1,
    body: 'x',
  });
  await state.appendLog({ ev: 'in', msg: msg('00000000a1') });
  await state.appendLog({ ev: 'out', msg: msg('00000000a2') });
  // Stored, then stopped before its log line (kill -9 between the two writes of a store).
  await state.addToInbox(msg('00000000a3'));
  await state.addToHeld(msg('00000000a4'));
  const again = await openMemberState(profile.dir);
  assert.deepEqual([...(await again.recoverInboundIds())].sort(), ['00000000a1', '00000000a3', '00000000a4']);
  // The history gets the lines it missed, once; the agent's inbox is as it was.
  const lines = [
    { ev: 'in', msg: msg('00000000a3') },
    { ev: 'in', msg: msg('00000000a4'), held: true },
  ];
  assert.deepEqual((await again.readLogTail(3)).slice(1), lines);
  await (await openMemberState(profile.dir)).recoverInboundIds();
  assert.deepEqual(await again.readLogTail(2), lines);
  assert.deepEqual(
    again.inbox.map((m) => m.id),
    ['00000000a3'],
  );
});

test('member state: a legacy inbox.json (papo 0.1) is moved into inbox/, in order', async (t) => {
  const { profile } = await aProfile(t);
  const msg = (id: string) => ({
    id,
    from: 'b',
    node: 'ab'.repeat(32),
    kind: 'agent' as const,
    ts: 1,
    body: id,
  });
  writeFileSync(join(profile.dir, 'inbox.json'), JSON.stringify([msg('00000000b1'), msg('00000000b2')]));
  const state = await openMemberState(profile.dir);
  assert.deepEqual(
    state.inbox.map((m) => m.id),
    ['00000000b1', '00000000b2'],
  );
  assert.ok(!readdirSync(profile.dir).includes('inbox.json'));
  await state.addToInbox(msg('00000000b3'));
  await state.removeFromInbox(['00000000b1']);
  const again = await openMemberState(profile.dir);
  assert.deepEqual(
    again.inbox.map((m) => m.id),
    ['00000000b2', '00000000b3'],
  );
});

test('member state: the inbox refuses a message past its cap, and stores one again once read', async (t) => {
  const { profile } = await aProfile(t);
  const state = await openMemberState(profile.dir);
  const big = (i: number) => ({
    id: i.toString(16).padStart(10, '0'),
    from: 'b',
    node: 'ab'.repeat(32),
    kind: 'agent' as const,
    ts: 1,
    body: 'x'.repeat(MAX_BODY_BYTES),
  });
  let stored = 0;
  while (stored < 1000) {
    try {
      await state.addToInbox(big(stored));
      stored++;
    } catch (err) {
      assert.ok(isPapoError(err, 'inbox_full'));
      break;
    }
  }
  const fileBytes = Buffer.byteLength(`${JSON.stringify(big(0))}\n`);
  assert.equal(stored, Math.floor(MAX_INBOX_BYTES / fileBytes));
  assert.equal(readdirSync(join(profile.dir, 'inbox')).length, stored, 'nothing written for the refused one');
  await state.removeFromInbox([big(0).id]);
  await state.addToInbox(big(stored));
});

test('member state: a corrupt inbox file is profile_corrupt naming the file', async (t) => {
  const { profile } = await aProfile(t);
  await openMemberState(profile.dir);
  writeFileSync(join(profile.dir, 'inbox', '0000000000-00000000c1.json'), '{"not": ');
  await assert.rejects(openMemberState(profile.dir), (e) => {
    assert.ok(isPapoError(e, 'profile_corrupt'));
    assert.match(e.message, /0000000000-00000000c1\.json/);
    return true;
  });
});

test('member state: corrupt inbox.json is profile_corrupt naming the file', async (t) => {
  const { profile } = await aProfile(t);
  writeFileSync(join(profile.dir, 'inbox.json'), '{"not": "a list"}');
  await assert.rejects(openMemberState(profile.dir), (e) => {
    assert.ok(isPapoError(e, 'profile_corrupt'));
    assert.match(e.message, /inbox\.json/);
    return true;
  });
});

test('a home that cannot be written: home_unwritable and nothing created', async (t) => {
  const base = tempDir(t, 'papo-home-');
  writeFileSync(join(base, 'file'), '');
  // A file where a folder must be fails for every user, root included.
  await assert.rejects(
    createProfile({
      home: join(base, 'file', 'papo'),
      profile: 'default',
      name: 'a',
      secret: generateSecret(),
      force: false,
    }),
    (e) => isPapoError(e, 'home_unwritable'),
  );
  assert.deepEqual(readdirSync(base), ['file']);
});

test('a read-only home (non-root only: root ignores permissions)', {
  skip: process.getuid?.() === 0,
}, async (t) => {
  const base = tempDir(t, 'papo-home-');
  const home = join(base, 'ro');
  mkdirSync(home, { mode: 0o500 });
  await assert.rejects(
    createProfile({ home, profile: 'default', name: 'a', secret: generateSecret(), force: false }),
    (e) => isPapoError(e, 'home_unwritable'),
  );
});

test('member state: outbox.json keeps who each message is owed to; an old outbox without it is read; a bad owed is refused', async (t) => {
  const home = tempHome(t);
  const { profile } = await createProfile({
    home,
    profile: 'default',
    name: 'voce',
    secret: generateSecret(),
    force: false,
  });
  const msg = {
    id: '3f9a1c07b2',
    from: 'voce',
    node: 'a'.repeat(64),
    kind: 'agent' as const,
    ts: 1,
    body: 'x',
  };
  const state = await openMemberState(profile.dir);
  state.outbox = [
    { ...msg, owed: ['terceiro'] },
    { ...msg, id: '3f9a1c07b3' },
  ];
  await state.saveOutbox();
  const reopened = await openMemberState(profile.dir);
  assert.deepEqual(
    reopened.outbox.map((m) => m.owed),
    [['terceiro'], undefined],
  );
  writeFileSync(join(profile.dir, 'outbox.json'), JSON.stringify([{ ...msg, owed: 'terceiro' }]));
  await assert.rejects(openMemberState(profile.dir), (e) => {
    assert.ok(isPapoError(e, 'profile_corrupt'));
    assert.match(e.message, /outbox\.json/);
    return true;
  });
});

test('member state and profile.json: a record of the wrong shape is profile_corrupt naming its file, never a TypeError later (found by the profile fuzz target)', async (t) => {
  const { home, profile } = await aProfile(t);
  const msg = { id: '3f9a1c07b2', from: 'b', node: 'ab'.repeat(32), kind: 'agent', ts: 1, body: 'x' };
  const refused = async (file: string, text: string, named = file) => {
    writeFileSync(join(profile.dir, file), text);
    await assert.rejects(openMemberState(profile.dir), (e) => {
      assert.ok(isPapoError(e, 'profile_corrupt'), String(e));
      assert.ok(e.message.includes(named), e.message);
      return true;
    });
    rmSync(join(profile.dir, file));
  };
  // A member remembered without a name: `status` sorted members by name and threw.
  await refused('peers.json', JSON.stringify({ ['ab'.repeat(32)]: { kind: 'agent', lastSeen: 1 } }));
  await refused('peers.json', JSON.stringify({ ['ab'.repeat(32)]: null }));
  // A queued message whose `to` is a number: `papo status` (owedSummary) threw; one without fields
  // would have gone out again as a frame no member accepts.
  await refused('outbox.json', JSON.stringify([{ ...msg, to: 5 }]));
  await refused('outbox.json', JSON.stringify([{}]));
  // An unread message without a body reached `wait`; a legacy inbox.json entry that is null threw a
  // TypeError, and an id such as ../../x named a file outside inbox/.
  await refused(join('inbox', '0000000000-3f9a1c07b2.json'), JSON.stringify({ id: '3f9a1c07b2' }));
  await refused('inbox.json', '[null]');
  await refused('inbox.json', JSON.stringify([{ ...msg, id: '../../x' }]));
  assert.deepEqual(readdirSync(join(profile.dir, 'inbox')), []);
  assert.equal((await openMemberState(profile.dir)).inbox.length, 0, 'the profile opens again once fixed');
  // A member name that is not one: every hello the member sent was refused by the others.
  const file = JSON.parse(readFileSync(join(profile.dir, 'profile.json'), 'utf8'));
  writeFileSync(join(profile.dir, 'profile.json'), JSON.stringify({ ...file, name: 'a b' }));
  await assert.rejects(openProfile({ home, profile: 'default' }), (e) => isPapoError(e, 'profile_corrupt'));
});

test('read without the lock: peers.json and names.json through their readers, a damaged one read as empty by a guest', async (t) => {
  const { profile } = await aProfile(t);
  assert.deepEqual(await readRememberedMembers(profile.dir), { peers: {}, names: {} });
  const node = 'cd'.repeat(32);
  const peers = { [node]: { name: 'bia', kind: 'agent', lastSeen: 5 } };
  writeFileSync(join(profile.dir, 'peers.json'), JSON.stringify(peers));
  writeFileSync(join(profile.dir, 'names.json'), JSON.stringify({ bia: node }));
  assert.deepEqual(await readRememberedMembers(profile.dir), { peers, names: { bia: node } });
  assert.deepEqual(await readPeers(profile.dir), peers);
  // A member whose fields are not what papo writes is not handed to the room node as one.
  writeFileSync(join(profile.dir, 'peers.json'), JSON.stringify({ [node]: { name: 'bia', kind: 'robot' } }));
  writeFileSync(join(profile.dir, 'names.json'), '["bia"]');
  assert.deepEqual(await readRememberedMembers(profile.dir), { peers: {}, names: {} });
  await assert.rejects(readPeers(profile.dir), (e) => isPapoError(e, 'profile_corrupt'));
  await assert.rejects(readNames(profile.dir), (e) => isPapoError(e, 'profile_corrupt'));
});

test('transport.json: read back while the papo mcp that wrote it runs, gone once removed', async (t) => {
  const { profile } = await aProfile(t);
  assert.equal(await readAgentTransportRecord(profile.dir), undefined);
  const record = { pid: process.pid, restarts: 2, at: 1_700_000_000_000, why: 'froze' };
  await writeTransportRecord(profile.dir, record);
  assert.equal(mode(join(profile.dir, 'transport.json')), 0o600);
  assert.deepEqual(await readAgentTransportRecord(profile.dir), record);
  // An earlier session's record: its papo mcp no longer runs.
  const gone = spawnSync(process.execPath, ['-e', '']).pid;
  await writeTransportRecord(profile.dir, { ...record, pid: gone });
  assert.equal(await readAgentTransportRecord(profile.dir), undefined);
  writeFileSync(join(profile.dir, 'transport.json'), '{"pid": "x"}');
  assert.equal(await readAgentTransportRecord(profile.dir), undefined);
  await writeTransportRecord(profile.dir, record);
  await removeTransportRecord(profile.dir);
  assert.equal(await readAgentTransportRecord(profile.dir), undefined);
  await removeTransportRecord(profile.dir);
});

test('the queues as papo status shows them; an outbox it cannot read counts as empty', async (t) => {
  const { profile } = await aProfile(t);
  assert.deepEqual(await readQueueSummary(profile.dir), {
    queued: 0,
    owed: [],
    unread: 0,
    held: 0,
    reviewing: false,
  });
  const state = await openMemberState(profile.dir);
  const msg = (id: string) => ({
    id,
    from: 'a',
    node: 'ab'.repeat(32),
    kind: 'agent' as const,
    ts: 1,
    body: 'x',
  });
  state.outbox = [{ ...msg('00000000b1'), owed: ['bia'] }];
  await state.saveOutbox();
  await state.addToInbox(msg('00000000b2'));
  await state.addToHeld(msg('00000000b3'));
  assert.deepEqual(await readQueueSummary(profile.dir), {
    queued: 1,
    owed: [{ name: 'bia', count: 1 }],
    unread: 1,
    held: 1,
    reviewing: false,
  });
  writeFileSync(join(profile.dir, 'outbox.json'), '{"not": "a list"}');
  assert.equal((await readQueueSummary(profile.dir)).queued, 0);
});
