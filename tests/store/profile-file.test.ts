// profile.json has one reader: the synchronous peek that `papo mcp` answers `initialize` with sees
// exactly the profiles openProfile opens, with the same name, room id and about.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { peekProfile } from '../../src/client/store/profile-file.js';
import { createProfile, openProfile } from '../../src/client/store/profile-store.js';
import { deriveRoomKeys, generateSecret } from '../../src/client/wire/room-crypto.js';
import { tempDir } from '../support/files.js';

test('the peek reads what openProfile reads: name, room id, about', async (t) => {
  const home = join(tempDir(t, 'papo-peek-'), 'home');
  const secret = generateSecret();
  const { profile } = await createProfile({
    home,
    profile: 'p',
    name: 'ana',
    about: 'the api',
    secret,
    force: false,
  });
  const opened = await openProfile({ home, profile: 'p' });
  assert.deepEqual(peekProfile(profile.dir), {
    name: opened.name,
    roomId: deriveRoomKeys(opened.secret).roomId,
    about: 'the api',
  });
  await createProfile({ home, profile: 'q', name: 'bia', secret, force: false });
  assert.deepEqual(peekProfile(join(home, 'profiles', 'q')), {
    name: 'bia',
    roomId: deriveRoomKeys(secret).roomId,
  });
});

test('the peek sees no profile where openProfile would refuse one', async (t) => {
  const home = join(tempDir(t, 'papo-peek-'), 'home');
  const { profile } = await createProfile({
    home,
    profile: 'p',
    name: 'ana',
    secret: generateSecret(),
    force: false,
  });
  const file = join(profile.dir, 'profile.json');
  const secret = generateSecret();
  const refused = [
    // encodings and keys papo never writes
    { name: 'ana', secret: Buffer.from(secret).toString('base64') },
    { name: 'ana', secret: Buffer.from(secret).toString('hex').toUpperCase() },
    { name: 'ana', roomId: 'abcd1234' },
    { name: 'ana', room_secret: Buffer.from(secret).toString('hex') },
    // fields of the wrong kind
    { name: 'not a member name!', secret: Buffer.from(secret).toString('hex') },
    { name: 'ana', secret: Buffer.from(secret).toString('hex'), about: 7 },
  ];
  for (const value of refused) {
    writeFileSync(file, JSON.stringify(value));
    await assert.rejects(
      openProfile({ home, profile: 'p' }),
      { code: 'profile_corrupt' },
      JSON.stringify(value),
    );
    assert.equal(peekProfile(profile.dir), null, JSON.stringify(value));
  }
  writeFileSync(file, '{not json');
  assert.equal(peekProfile(profile.dir), null);
  assert.equal(peekProfile(join(home, 'profiles', 'none')), null);
});
