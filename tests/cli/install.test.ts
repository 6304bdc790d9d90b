import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, PAPO, papo, tempDir } from './run-papo.js';

/** A stand-in `claude` on PATH that records its arguments, one per line, and exits with `code`. */
function fakeClaude(dir: string, code = 0): { env: { PATH: string }; recorded: () => string[] | null } {
  const record = join(dir, 'claude-args');
  const script = join(dir, 'claude');
  writeFileSync(
    script,
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > ${JSON.stringify(record)}\nexit ${code}\n`,
  );
  chmodSync(script, 0o755);
  return {
    env: { PATH: `${dir}:/usr/bin:/bin` },
    recorded: () => (existsSync(record) ? readFileSync(record, 'utf8').split('\n').slice(0, -1) : null),
  };
}

test("install runs claude mcp add with exactly the book's arguments", (t) => {
  const dir = tempDir(t);
  const home = join(dir, 'home');
  papo(['new', '--name', 'alice'], cleanEnv({ PAPO_HOME: home }));
  const claude = fakeClaude(dir);
  const r = papo(['install'], cleanEnv({ PAPO_HOME: home, ...claude.env }));
  assert.equal(r.status, 0, r.stderr);
  // PAPO_HOME written into the entry, so Claude Code need not be started with it.
  assert.deepEqual(claude.recorded(), [
    'mcp',
    'add',
    '-e',
    `PAPO_HOME=${home}`,
    '--scope',
    'local',
    'papo',
    '--',
    PAPO,
    'mcp',
  ]);
  assert.match(r.stdout, /registered in Claude Code \(scope local\)/);

  papo(['new', '--name', 'alice', '--profile', 'dados'], cleanEnv({ PAPO_HOME: home }));
  const p = papo(
    ['install', '--scope', 'project', '--profile', 'dados'],
    cleanEnv({ PAPO_HOME: home, ...claude.env }),
  );
  assert.equal(p.status, 0, p.stderr);
  // Scope project is a committed .mcp.json: no personal path in it, a note instead.
  assert.match(p.stdout, /PAPO_HOME is set/);
  assert.deepEqual(claude.recorded(), [
    'mcp',
    'add',
    '--scope',
    'project',
    'papo',
    '--',
    PAPO,
    'mcp',
    '--profile',
    'dados',
  ]);
  // The room secret never reaches Claude Code's configuration.
  const secret = JSON.parse(readFileSync(join(home, 'profiles', 'dados', 'profile.json'), 'utf8')).secret;
  assert.ok(!claude.recorded()?.some((a) => a.includes(secret)));
});

test('PAPO_INSTALL_COMMAND replaces the command part', (t) => {
  const dir = tempDir(t);
  const claude = fakeClaude(dir);
  const r = papo(
    ['install', '--scope', 'user'],
    cleanEnv({
      ...claude.env,
      PAPO_HOME: join(dir, 'h'),
      PAPO_INSTALL_COMMAND: 'docker run -i --rm -v papo-data:/data papo',
    }),
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(claude.recorded(), [
    'mcp',
    'add',
    '-e',
    `PAPO_HOME=${join(dir, 'h')}`,
    '--scope',
    'user',
    'papo',
    '--',
    'docker',
    'run',
    '-i',
    '--rm',
    '-v',
    'papo-data:/data',
    'papo',
    'mcp',
  ]);
});

test('without claude on PATH the command is printed to run by hand', (t) => {
  const dir = tempDir(t);
  const r = papo(['install', '--profile', 'w'], cleanEnv({ PAPO_HOME: join(dir, 'h'), PATH: dir }));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^claude is not on PATH\. Run this by hand:$/m);
  assert.ok(
    r.stdout.includes(
      `  claude mcp add -e PAPO_HOME=${join(dir, 'h')} --scope local papo -- ${PAPO} mcp --profile w\n`,
    ),
    r.stdout,
  );
  assert.match(r.stderr, /profile 'w' is not configured yet/);
});

test('a failing claude mcp add is an error', (t) => {
  const dir = tempDir(t);
  const claude = fakeClaude(dir, 1);
  const r = papo(['install'], cleanEnv({ PAPO_HOME: join(dir, 'h'), ...claude.env }));
  assert.equal(r.status, 1);
  assert.match(
    r.stderr,
    /^error: claude mcp add failed \(exit 1\)\. .*claude mcp remove papo --scope local/m,
  );
});

test('--print shows the JSON entry', (t) => {
  const dir = tempDir(t);
  const env = cleanEnv({ PAPO_HOME: join(dir, 'h') });
  const r = papo(['install', '--print'], env);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    mcpServers: { papo: { command: PAPO, args: ['mcp'], env: { PAPO_HOME: join(dir, 'h') } } },
  });
  const p = papo(['install', '--print', '--profile', 'dados'], {
    ...env,
    PAPO_INSTALL_COMMAND: "docker run -i --rm -e 'TZ=America/Sao_Paulo' papo",
  });
  assert.deepEqual(JSON.parse(p.stdout), {
    mcpServers: {
      papo: {
        command: 'docker',
        args: ['run', '-i', '--rm', '-e', 'TZ=America/Sao_Paulo', 'papo', 'mcp', '--profile', 'dados'],
        env: { PAPO_HOME: join(dir, 'h') },
      },
    },
  });
});
