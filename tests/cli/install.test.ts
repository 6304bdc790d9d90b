import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/files.js';
import { cleanEnv, PAPO_BIN, runPapo } from '../support/papo.js';

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

test("install runs claude mcp add with exactly the book's arguments", async (t) => {
  const dir = tempDir(t);
  const home = join(dir, 'home');
  await runPapo(['new', '--name', 'alice'], { env: cleanEnv({ PAPO_HOME: home }) });
  const claude = fakeClaude(dir);
  const r = await runPapo(['install'], { env: cleanEnv({ PAPO_HOME: home, ...claude.env }) });
  assert.equal(r.code, 0, r.stderr);
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
    PAPO_BIN,
    'mcp',
  ]);
  assert.match(r.stdout, /registered in Claude Code \(scope local\)/);

  await runPapo(['new', '--name', 'alice', '--profile', 'dados'], { env: cleanEnv({ PAPO_HOME: home }) });
  const p = await runPapo(['install', '--scope', 'project', '--profile', 'dados'], {
    env: cleanEnv({ PAPO_HOME: home, ...claude.env }),
  });
  assert.equal(p.code, 0, p.stderr);
  // Scope project is a committed .mcp.json: no personal path in it, a note instead.
  assert.match(p.stdout, /PAPO_HOME is set/);
  assert.deepEqual(claude.recorded(), [
    'mcp',
    'add',
    '--scope',
    'project',
    'papo',
    '--',
    PAPO_BIN,
    'mcp',
    '--profile',
    'dados',
  ]);
  // The room secret never reaches Claude Code's configuration.
  const secret = JSON.parse(readFileSync(join(home, 'profiles', 'dados', 'profile.json'), 'utf8')).secret;
  assert.ok(!claude.recorded()?.some((a) => a.includes(secret)));
});

test('PAPO_INSTALL_COMMAND replaces the command part', async (t) => {
  const dir = tempDir(t);
  const claude = fakeClaude(dir);
  const r = await runPapo(['install', '--scope', 'user'], {
    env: cleanEnv({
      ...claude.env,
      PAPO_HOME: join(dir, 'h'),
      PAPO_INSTALL_COMMAND: 'docker run -i --rm -v papo-data:/data papo',
    }),
  });
  assert.equal(r.code, 0, r.stderr);
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

test('without claude on PATH the command is printed to run by hand', async (t) => {
  const dir = tempDir(t);
  const r = await runPapo(['install', '--profile', 'w'], {
    env: cleanEnv({ PAPO_HOME: join(dir, 'h'), PATH: dir }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^claude is not on PATH\. Run this by hand:$/m);
  assert.ok(
    r.stdout.includes(
      `  claude mcp add -e PAPO_HOME=${join(dir, 'h')} --scope local papo -- ${PAPO_BIN} mcp --profile w\n`,
    ),
    r.stdout,
  );
  assert.match(r.stderr, /profile 'w' is not configured yet/);
});

test('a failing claude mcp add is an error', async (t) => {
  const dir = tempDir(t);
  const claude = fakeClaude(dir, 1);
  const r = await runPapo(['install'], { env: cleanEnv({ PAPO_HOME: join(dir, 'h'), ...claude.env }) });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^error: claude mcp add failed \(exit 1\)\. .*claude mcp remove papo --scope local/m,
  );
});

test('--print shows the JSON entry', async (t) => {
  const dir = tempDir(t);
  const env = cleanEnv({ PAPO_HOME: join(dir, 'h') });
  const r = await runPapo(['install', '--print'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    mcpServers: { papo: { command: PAPO_BIN, args: ['mcp'], env: { PAPO_HOME: join(dir, 'h') } } },
  });
  const p = await runPapo(['install', '--print', '--profile', 'dados'], {
    env: {
      ...env,
      PAPO_INSTALL_COMMAND: "docker run -i --rm -e 'TZ=America/Sao_Paulo' papo",
    },
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
