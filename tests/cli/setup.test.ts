import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/files.js';
import { cleanEnv, inviteIn, roomIdIn, runPapo } from '../support/papo.js';

test('new in one home, join with the printed invite in another: the same room id', async (t) => {
  const dir = tempDir(t);
  const a = cleanEnv({ PAPO_HOME: join(dir, 'a') });
  const b = cleanEnv({ PAPO_HOME: join(dir, 'b') });
  const made = await runPapo(['new', '--name', 'alice'], { env: a });
  assert.equal(made.code, 0, made.stderr);
  assert.equal(made.stderr, '');
  assert.match(made.stdout, /^Room [0-9a-f]{8} created\. You are "alice" \(profile default\)\.$/m);
  assert.match(made.stdout, /over a private channel/);
  assert.match(
    made.stdout,
    /^They run: {2}papo join --name <their-name> {3}and paste the invite at the prompt \(it is not shown\)$/m,
  );
  // Without --signal the room is for this machine only, and new says how to do better.
  assert.match(
    made.stdout,
    /local signal server \(ws:\/\/127\.0\.0\.1:7450\): it works on this machine only/,
  );
  assert.match(made.stdout, /papo new --force --name alice --signal wss:\/\/your-signal-server/);
  assert.match(made.stdout, /papo signal/);
  assert.match(made.stdout, /docs\/signal-server\.md/);
  assert.match(made.stdout, /papo install$/m);
  assert.match(made.stdout, /claude --dangerously-load-development-channels server:papo/);
  assert.match(made.stdout, /papo log -f$/m);

  const joined = await runPapo(['join', inviteIn(made.stdout), '--name', 'bob'], { env: b });
  assert.equal(joined.code, 0, joined.stderr);
  assert.match(joined.stdout, /^You joined room [0-9a-f]{8} as "bob" \(profile default\)\.$/m);
  assert.equal(roomIdIn(joined.stdout), roomIdIn(made.stdout));
  // A loopback invite: the joiner is told up front that it works on this machine only.
  assert.match(
    joined.stdout,
    /^This room meets on ws:\/\/127\.0\.0\.1:7450, on this machine only: a colleague on another machine needs an invite$/m,
  );
});

test('invite prints an invite that joins the same room, signal URL included', async (t) => {
  const dir = tempDir(t);
  const a = cleanEnv({ PAPO_HOME: join(dir, 'a'), PAPO_PROFILE: 'pay' });
  const b = cleanEnv({ PAPO_HOME: join(dir, 'b') });
  const made = await runPapo(['new', '--name', 'alice', '--signal', 'wss://signal.example.com/'], { env: a });
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /^Signal server: wss:\/\/signal\.example\.com$/m);
  assert.doesNotMatch(made.stdout, /this machine only/);
  assert.match(made.stdout, /papo install --profile pay$/m);

  const inv = await runPapo(['invite'], { env: a });
  assert.equal(inv.code, 0, inv.stderr);
  assert.equal(roomIdIn(inv.stdout), roomIdIn(made.stdout));
  // --no-check: signal.example.com is not a server (and the tests stay off the network).
  const joined = await runPapo(
    ['join', inviteIn(inv.stdout), '--name', 'carol', '--profile', 'team', '--no-check'],
    { env: b },
  );
  assert.equal(joined.code, 0, joined.stderr);
  assert.equal(roomIdIn(joined.stdout), roomIdIn(made.stdout));
  assert.match(joined.stdout, /^Signal server: wss:\/\/signal\.example\.com$/m);
  const stored = JSON.parse(readFileSync(join(dir, 'b', 'profiles', 'team', 'profile.json'), 'utf8'));
  assert.equal(stored.signalUrl, 'wss://signal.example.com');
  assert.equal(stored.name, 'carol');
});

test('join --signal overrides the invite; --about is stored', async (t) => {
  const dir = tempDir(t);
  const made = await runPapo(['new', '--name', 'alice'], { env: cleanEnv({ PAPO_HOME: join(dir, 'a') }) });
  const b = cleanEnv({ PAPO_HOME: join(dir, 'b') });
  const joined = await runPapo(
    [
      'join',
      inviteIn(made.stdout),
      '--name',
      'bob',
      '--about',
      'notifications',
      '--signal',
      'https://sig.example.org',
      '--no-check',
    ],
    { env: b },
  );
  assert.equal(joined.code, 0, joined.stderr);
  const stored = JSON.parse(readFileSync(join(dir, 'b', 'profiles', 'default', 'profile.json'), 'utf8'));
  assert.equal(stored.signalUrl, 'https://sig.example.org');
  assert.equal(stored.about, 'notifications');
});

test('new --force makes a new room and keeps the identity', async (t) => {
  const dir = tempDir(t);
  const env = cleanEnv({ PAPO_HOME: dir });
  const first = await runPapo(['new', '--name', 'alice'], { env });
  const key = readFileSync(join(dir, 'profiles', 'default', 'secret.key'), 'utf8');
  const second = await runPapo(['new', '--name', 'alice', '--force'], { env });
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /identity and log are kept/);
  assert.notEqual(roomIdIn(second.stdout), roomIdIn(first.stdout));
  assert.equal(readFileSync(join(dir, 'profiles', 'default', 'secret.key'), 'utf8'), key);
});

test('Brazilian Portuguese when the locale says pt', async (t) => {
  const dir = tempDir(t);
  const env = cleanEnv({ PAPO_HOME: join(dir, 'a'), LANG: 'pt_BR.UTF-8' });
  const made = await runPapo(['new', '--name', 'voce'], { env });
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /^Sala [0-9a-f]{8} criada\. Você é "voce" \(perfil default\)\.$/m);
  assert.match(made.stdout, /^Mande este convite ao seu colega por um canal privado/m);
  assert.match(
    made.stdout,
    /^Ele roda: {2}papo join --name <nome-dele> {3}e cola o convite quando pedido \(ele não aparece na tela\)$/m,
  );
  assert.match(made.stdout, /^Próximos passos:$/m);
  assert.match(made.stdout, /^Para ver a conversa dos agentes ao vivo: {2}papo log -f$/m);

  const joined = await runPapo(['join', inviteIn(made.stdout), '--name', 'colega'], {
    env: cleanEnv({ PAPO_HOME: join(dir, 'b'), LC_ALL: 'pt_BR.UTF-8' }),
  });
  assert.match(joined.stdout, /^Você entrou na sala [0-9a-f]{8} como "colega" \(perfil default\)\.$/m);

  const again = await runPapo(['new', '--name', 'voce'], { env });
  assert.equal(again.code, 1);
  assert.equal(
    again.stderr,
    "erro: o perfil 'default' já existe; use --force para substituí-lo (a sua identidade e o log são mantidos)\n",
  );
  // PAPO_LANG chooses papo's language over the system locale.
  const en = await runPapo(['new', '--name', 'voce'], { env: { ...env, PAPO_LANG: 'en' } });
  assert.match(en.stderr, /^error: profile 'default' already exists/);
});

test('--version and --help', async () => {
  const v = await runPapo(['--version'], { env: cleanEnv() });
  assert.equal(v.code, 0);
  assert.match(v.stdout, /^papo \d+\.\d+\.\d+ on Node\.js v\d+\.\d+\.\d+ \(\w+ \w+\)\n$/);
  const h = await runPapo(['--help'], { env: cleanEnv() });
  assert.equal(h.code, 0);
  for (const c of ['new', 'join', 'invite', 'install', 'log'])
    assert.match(h.stdout, new RegExp(`\\b${c}\\b`));
});

test('new without --name takes the user name (the line papo signal --public prints runs as it is), kept to the name rules; with none, it asks for --name', async (t) => {
  const dir = tempDir(t);
  const made = await runPapo(['new'], { env: cleanEnv({ PAPO_HOME: join(dir, 'a'), USER: 'ana.lima' }) });
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /^Room [0-9a-f]{8} created\. You are "ana\.lima" \(profile default\)\.$/m);
  const odd = await runPapo(['new'], { env: cleanEnv({ PAPO_HOME: join(dir, 'b'), USER: 'José Ávila' }) });
  assert.equal(odd.code, 0, odd.stderr);
  assert.match(odd.stdout, /You are "JoseAvila"/);
  const none = await runPapo(['new'], {
    env: cleanEnv({ PAPO_HOME: join(dir, 'c'), USER: '日本', LOGNAME: undefined }),
  });
  assert.equal(none.code, 1);
  assert.equal(
    none.stderr,
    'error: give your name in the room: papo new --name <name> (1-32 of A-Za-z0-9-_.)\n',
  );
});
