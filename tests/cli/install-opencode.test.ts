// papo install --client opencode edits opencode's configuration file (no opencode needed: a stand-in
// executable on PATH, since papo install writes only when the client is there). The real opencode
// reading what it wrote: tests/clients/opencode.test.ts.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/files.js';
import { cleanEnv, PAPO_BIN, type PapoRun, runPapo } from '../support/papo.js';

const NAMES = ['papo_send', 'papo_wait', 'papo_inbox', 'papo_history', 'papo_status'];

function stand(dir: string): { PATH: string; HOME: string } {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'opencode'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'opencode'), 0o755);
  return { PATH: `${bin}:/usr/bin:/bin`, HOME: join(dir, 'home') };
}

/** papo install --client opencode in `cwd` (the project), opencode's stand-in on PATH. */
function install(
  dir: string,
  cwd: string,
  args: string[],
  extra: Record<string, string> = {},
): Promise<PapoRun> {
  return runPapo(['install', '--client', 'opencode', ...args], {
    cwd,
    env: cleanEnv({ ...stand(dir), XDG_CONFIG_HOME: undefined, ...extra }),
    timeoutMs: 30_000,
  });
}

test('scope user: a new ~/.config/opencode/opencode.json with papo’s entry, mode 0600; secrets as {env:NAME}', async (t) => {
  const dir = tempDir(t);
  const home = join(dir, 'papo-home');
  const r = await install(dir, dir, ['--scope', 'user'], {
    PAPO_HOME: home,
    PAPO_SIGNAL_TOKEN: 'wss://s.example=secret-value',
  });
  assert.equal(r.code, 0, r.stderr);
  const file = join(dir, 'home', '.config', 'opencode', 'opencode.json');
  assert.match(r.stdout, new RegExp(`^papo is registered in opencode \\(scope user\\), in ${file}\\.$`, 'm'));
  assert.match(r.stdout, /papo_send, papo_wait, papo_inbox, papo_history, papo_status/);
  assert.match(r.stdout, /1210 s/);
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes('secret-value'), 'the secret was written');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(text), {
    $schema: 'https://opencode.ai/config.json',
    mcp: {
      papo: {
        type: 'local',
        command: [PAPO_BIN, 'mcp'],
        environment: { PAPO_HOME: home, PAPO_SIGNAL_TOKEN: '{env:PAPO_SIGNAL_TOKEN}' },
        enabled: true,
        timeout: 1_210_000,
      },
    },
    permission: Object.fromEntries(NAMES.map((n) => [n, 'allow'])),
  });
});

test('scope project (the default): other keys kept, papo’s entry replaced on a re-run, permission after the others; no PAPO_HOME in the file', async (t) => {
  const dir = tempDir(t);
  const project = join(dir, 'proj');
  mkdirSync(project);
  const file = join(project, 'opencode.json');
  const before = {
    $schema: 'https://opencode.ai/config.json',
    model: 'x/y',
    mcp: { other: { type: 'local', command: ['other'] }, papo: { type: 'local', command: ['old'] } },
    permission: 'ask',
  };
  writeFileSync(file, JSON.stringify(before), { mode: 0o644 });
  chmodSync(file, 0o644);
  const env = { PAPO_HOME: join(dir, 'h') };
  const args = ['--profile', 'dados'];
  const r = await install(dir, project, args, env);
  assert.equal(r.code, 0, r.stderr);
  const first = readFileSync(file, 'utf8');
  const second = await install(dir, project, args, env);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(readFileSync(file, 'utf8'), first, 'a re-run changed the file');
  const after = JSON.parse(first);
  assert.equal(after.model, 'x/y');
  assert.deepEqual(after.mcp.other, before.mcp.other);
  assert.deepEqual(after.mcp.papo, {
    type: 'local',
    command: [PAPO_BIN, 'mcp', '--profile', 'dados'],
    enabled: true,
    timeout: 1_210_000,
  });
  // "ask" is opencode's shorthand for {"*": "ask"}; the last matching rule wins, papo's come last.
  assert.deepEqual(Object.entries(after.permission), [['*', 'ask'], ...NAMES.map((n) => [n, 'allow'])]);
  assert.equal(statSync(file).mode & 0o777, 0o644, 'the mode was not kept');
  assert.match(second.stdout, /PAPO_HOME is set .* opencode must start papo with the same PAPO_HOME/);
});

test('a JSONC file with comments is left alone, with an error saying what to do; --print shows the entry and the file', async (t) => {
  const dir = tempDir(t);
  const config = join(dir, 'home', '.config', 'opencode');
  mkdirSync(config, { recursive: true });
  const file = join(config, 'opencode.jsonc');
  const text = '{\n  // mine\n  "model": "x/y"\n}\n';
  writeFileSync(file, text);
  const r = await install(dir, dir, ['--scope', 'user']);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /opencode\.jsonc is not plain JSON \(comments\?\), and papo install does not rewrite it/,
  );
  assert.equal(readFileSync(file, 'utf8'), text);
  const p = await install(dir, dir, ['--scope', 'user', '--print']);
  assert.equal(p.code, 0, p.stderr);
  assert.ok(p.stdout.startsWith(`Add to ${file}:\n{\n  "mcp": {\n    "papo": {`), p.stdout);
  assert.equal(readFileSync(file, 'utf8'), text);
});
