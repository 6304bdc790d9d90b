// papo install --client qwen runs `qwen mcp add`; without qwen on PATH it prints that command to run
// by hand, and --print the settings.json part. The real qwen mcp add and Qwen Code reading what it
// wrote: tests/clients/qwen.test.ts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/files.js';
import { cleanEnv, PAPO_BIN, runPapo } from '../support/papo.js';

function install(cwd: string, args: string[], extra: Record<string, string>) {
  return runPapo(['install', '--client', 'qwen', ...args], {
    cwd,
    env: cleanEnv({ PATH: '/usr/bin:/bin', HOME: join(cwd, 'home'), ...extra }),
    timeoutMs: 30_000,
  });
}

test('without qwen on PATH: the qwen mcp add command, papo’s arguments after --, trust and timeout; no secret value', async (t) => {
  const dir = tempDir(t);
  const home = join(dir, 'h');
  const r = await install(dir, ['--scope', 'user', '--profile', 'w'], {
    PAPO_HOME: home,
    PAPO_SIGNAL_TOKEN: 'wss://s.example=secret-value',
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^qwen is not on PATH\. Run this by hand:$/m);
  assert.ok(
    r.stdout.includes(
      `  qwen mcp add --scope user -e PAPO_HOME=${home} --timeout 1210000 --trust papo ${PAPO_BIN} -- mcp --profile w\n`,
    ),
    r.stdout,
  );
  assert.ok(!r.stdout.includes('secret-value'));
});

test('--print: the settings.json part and its file; scope project writes no PAPO_HOME', async (t) => {
  const dir = tempDir(t);
  const r = await install(dir, ['--print'], { PAPO_HOME: join(dir, 'h') });
  assert.equal(r.code, 0, r.stderr);
  const [first, ...rest] = r.stdout.split('\n');
  assert.equal(first, `Add to ${join(dir, '.qwen', 'settings.json')}:`);
  assert.deepEqual(JSON.parse(rest.join('\n')), {
    mcpServers: { papo: { command: PAPO_BIN, args: ['mcp'], timeout: 1_210_000, trust: true } },
  });
});
