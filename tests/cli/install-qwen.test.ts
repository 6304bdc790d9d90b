// papo install --client qwen runs `qwen mcp add`; without qwen on PATH it prints that command to run
// by hand, and --print the settings.json part. The real qwen mcp add and Qwen Code reading what it
// wrote: tests/clients/qwen.test.ts. A stand-in qwen (a shell script) answers `qwen mcp approve` as
// a Qwen Code without approvals (0.15) would, or fails it.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

test('without qwen on PATH, scope project: qwen mcp add, then qwen mcp approve papo (Qwen Code 0.24 starts a project’s server only once approved)', async (t) => {
  const dir = tempDir(t);
  const r = await install(dir, [], { PAPO_HOME: join(dir, 'h') });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(
    r.stdout.includes(
      `  qwen mcp add --scope project --timeout 1210000 --trust papo ${PAPO_BIN} -- mcp\n  qwen mcp approve papo\n`,
    ),
    r.stdout,
  );
});

test('--print: the settings.json part and its file; scope project writes no PAPO_HOME and says to approve papo', async (t) => {
  const dir = tempDir(t);
  const r = await install(dir, ['--print'], { PAPO_HOME: join(dir, 'h') });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.equal(lines[0], `Add to ${join(dir, '.qwen', 'settings.json')}:`);
  assert.deepEqual(JSON.parse(lines.slice(1, -1).join('\n')), {
    mcpServers: { papo: { command: PAPO_BIN, args: ['mcp'], timeout: 1_210_000, trust: true } },
  });
  assert.match(lines.at(-1) ?? '', /^Then, in this folder: qwen mcp approve papo \(/);
  // Scope user: nothing to approve (Qwen Code asks only for a project's servers).
  const user = await install(dir, ['--print', '--scope', 'user'], { PAPO_HOME: join(dir, 'h') });
  assert.ok(!user.stdout.includes('approve'), user.stdout);
});

/** A folder with a stand-in `qwen`: `mcp add` succeeds; `mcp approve` prints `stderr` and exits `code`. */
function standIn(dir: string, code: number, stderr: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'qwen'),
    `#!/bin/sh\necho "$*" >> "${join(dir, 'calls')}"\nif [ "$2" = approve ]; then echo '${stderr}' >&2; exit ${code}; fi\nexit 0\n`,
    { mode: 0o755 },
  );
  return bin;
}

test('a Qwen Code without approvals (0.15: "Unknown arguments: approve") needs none: install says nothing of it', async (t) => {
  const dir = tempDir(t);
  const bin = standIn(dir, 1, 'Unknown arguments: approve, papo');
  const r = await install(dir, [], { PATH: `${bin}:/usr/bin:/bin`, PAPO_HOME: join(dir, 'h') });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^papo is registered in Qwen Code \(scope project\)/m);
  assert.ok(!r.stdout.includes('approve'), r.stdout);
  assert.match(readFileSync(join(dir, 'calls'), 'utf8'), /^mcp add --scope project .*\nmcp approve papo\n$/);
});

test('a failing qwen mcp approve is an error that says to approve papo by hand', async (t) => {
  const dir = tempDir(t);
  const bin = standIn(dir, 3, 'cannot write mcpApprovals.json');
  const r = await install(dir, [], { PATH: `${bin}:/usr/bin:/bin`, PAPO_HOME: join(dir, 'h') });
  assert.equal(r.code, 1, r.stdout);
  assert.match(
    r.stderr,
    /qwen mcp approve papo failed \(exit 3\).*run "qwen mcp approve papo" in this folder/,
  );
  // Scope user: Qwen Code asks no approval there, so none is asked for.
  const user = await install(dir, ['--scope', 'user'], {
    PATH: `${bin}:/usr/bin:/bin`,
    PAPO_HOME: join(dir, 'h'),
  });
  assert.equal(user.code, 0, user.stderr);
  const calls = readFileSync(join(dir, 'calls'), 'utf8').trimEnd().split('\n');
  assert.match(calls.at(-1) ?? '', /^mcp add --scope user /, calls.join('\n'));
});
