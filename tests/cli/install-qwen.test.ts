// papo install --client qwen runs `qwen mcp add`; without qwen on PATH it prints that command to run
// by hand, and --print the settings.json part. The real qwen mcp add and Qwen Code reading what it
// wrote: tests/clients/qwen.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, PAPO, tempDir } from './run-papo.js';

function install(cwd: string, args: string[], extra: Record<string, string>) {
  return spawnSync(process.execPath, [PAPO, 'install', '--client', 'qwen', ...args], {
    cwd,
    env: cleanEnv({ PATH: '/usr/bin:/bin', HOME: join(cwd, 'home'), ...extra }),
    encoding: 'utf8',
    timeout: 30_000,
  });
}

test('without qwen on PATH: the qwen mcp add command, papo’s arguments after --, trust and timeout; no secret value', (t) => {
  const dir = tempDir(t);
  const home = join(dir, 'h');
  const r = install(dir, ['--scope', 'user', '--profile', 'w'], {
    PAPO_HOME: home,
    PAPO_SIGNAL_TOKEN: 'wss://s.example=secret-value',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^qwen is not on PATH\. Run this by hand:$/m);
  assert.ok(
    r.stdout.includes(
      `  qwen mcp add --scope user -e PAPO_HOME=${home} --timeout 1210000 --trust papo ${PAPO} -- mcp --profile w\n`,
    ),
    r.stdout,
  );
  assert.ok(!r.stdout.includes('secret-value'));
});

test('--print: the settings.json part and its file; scope project writes no PAPO_HOME', (t) => {
  const dir = tempDir(t);
  const r = install(dir, ['--print'], { PAPO_HOME: join(dir, 'h') });
  assert.equal(r.status, 0, r.stderr);
  const [first, ...rest] = r.stdout.split('\n');
  assert.equal(first, `Add to ${join(dir, '.qwen', 'settings.json')}:`);
  assert.deepEqual(JSON.parse(rest.join('\n')), {
    mcpServers: { papo: { command: PAPO, args: ['mcp'], timeout: 1_210_000, trust: true } },
  });
});
