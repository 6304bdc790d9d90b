// papo install in a hostile checkout (issue 27, ADR 0094): links planted in the project folder,
// where opencode (by default), Qwen Code (by default), Gemini CLI and Claude Code (--scope project)
// keep papo's entry. papo install reads and writes a client's configuration without following a
// link, through a temporary file of its own (no-follow, exclusive, random name), and refuses a link
// below the project folder before anything is written, saying which file and what to do.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AgentClient } from '../support/agent-cli.js';
import type { Hooks } from '../support/files.js';
import { type InstallWorld, installWorld, realClient, tree } from '../support/install-world.js';
import { PAPO_BIN } from '../support/papo.js';

/** A docker config with an obviously fake credential: what a planted link points at. */
const FAKE_AUTH = 'ZmFrZS11c2VyOmZha2UtcGFzcy1mb3ItdGVzdHM=';
const DOCKER_CONFIG = `${JSON.stringify({ auths: { 'registry.example.test': { auth: FAKE_AUTH } } })}\n`;

function plantDockerConfig(home: string): string {
  const file = join(home, '.docker', 'config.json');
  mkdirSync(join(home, '.docker'));
  writeFileSync(file, DOCKER_CONFIG, { mode: 0o600 });
  return file;
}

/** The refusal papo install prints for `file`: which file, that nothing changed, what to do. */
function refusedFor(file: string, client: string, what = 'is a symbolic link'): RegExp {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^error: ${escaped} ${what}; papo install does not read or write an agent's configuration through a link.*` +
      `Nothing was changed\\. .*papo install --client ${client} .*--print$`,
    'm',
  );
}

/**
 * Runs papo install in `w` and checks that it was refused for `file` (with `what` it is), and that
 * nothing changed anywhere on the person's machine: no file written, no link replaced.
 */
async function assertRefused(
  w: InstallWorld,
  file: string,
  client: AgentClient,
  opts: { args?: string[]; extra?: Record<string, string>; what?: string } = {},
): Promise<void> {
  const before = tree(w.dir);
  const r = await w.install(opts.args, opts.extra);
  assert.deepEqual(tree(w.dir), before, 'papo install, or the client it ran, changed something');
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stderr, refusedFor(file, client, opts.what));
}

/** A test with the real, pinned `client` on PATH (skipped, with the reason, when it cannot be installed). */
function withRealClient(
  client: AgentClient,
  name: string,
  body: (t: Hooks, binDir: string) => Promise<void>,
) {
  const real = realClient(client);
  test(name, { skip: 'skip' in real ? real.skip : false, timeout: 180_000 }, (t) =>
    body(t, (real as { binDir: string }).binDir),
  );
}

test('opencode: opencode.json planted as a link to ~/.docker/config.json is refused; the docker credential is not copied into the checkout', async (t) => {
  const w = await installWorld(t, 'opencode');
  const docker = plantDockerConfig(w.home);
  const link = join(w.project, 'opencode.json');
  symlinkSync(docker, link);
  // Nothing changed anywhere: in particular no opencode.json in the project with the credential.
  await assertRefused(w, link, 'opencode');
});

test('opencode: 2,000 links planted at the names of papo’s old temporary files (opencode.json.papo-<pid>.tmp → ~/.bashrc) write nothing outside the project', async (t) => {
  const w = await installWorld(t, 'opencode');
  const bashrc = join(w.home, '.bashrc');
  writeFileSync(bashrc, 'echo a fake bashrc\n');
  // The checkout's own opencode.json, with a key that would run in a shell.
  const file = join(w.project, 'opencode.json');
  writeFileSync(file, `${JSON.stringify({ '$(touch /tmp/papo-test-pwned)': 'from the checkout' })}\n`);
  // The next process ids, as the report planted them (pids are handed out in turn here).
  const next = spawnSync('true').pid ?? 0;
  const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
  for (let i = 1; i <= 2000; i++) {
    const pid = next + i < pidMax ? next + i : next + i - pidMax + 300;
    symlinkSync(bashrc, join(w.project, `opencode.json.papo-${pid}.tmp`));
  }
  const home = tree(w.home);
  const r = await w.install();
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(tree(w.home), home, 'a file outside the project was written');
  assert.equal(readFileSync(bashrc, 'utf8'), 'echo a fake bashrc\n');
  // opencode.json is a regular file of the project with papo's entry; every planted link untouched.
  const after = tree(w.project);
  assert.ok(after['opencode.json']?.startsWith('644 {'), after['opencode.json']);
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).mcp.papo.command, [PAPO_BIN, 'mcp']);
  const links = Object.entries(after).filter(([name]) => name.startsWith('opencode.json.papo-'));
  assert.equal(links.length, 2000);
  assert.ok(links.every(([, v]) => v === `-> ${bashrc}`));
  assert.deepEqual(
    Object.keys(after).filter((n) => n.endsWith('.tmp') && !n.startsWith('opencode.json.papo-')),
    [],
  );
});

test('opencode: a hard link to ~/.docker/config.json, or a FIFO, at opencode.json is refused; nothing is read from it', async (t) => {
  const w = await installWorld(t, 'opencode');
  const docker = plantDockerConfig(w.home);
  const file = join(w.project, 'opencode.json');
  linkSync(docker, file);
  await assertRefused(w, file, 'opencode', { what: 'has another hard link \\(it is also another file\\)' });
  assert.equal(readFileSync(docker, 'utf8'), DOCKER_CONFIG);

  const w2 = await installWorld(t, 'opencode');
  const fifo = join(w2.project, 'opencode.json');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  await assertRefused(w2, fifo, 'opencode', { what: 'is not a regular file' });
});

test('opencode --scope user: a link at ~/.config/opencode/opencode.json is refused as well, the link and its file kept', async (t) => {
  const w = await installWorld(t, 'opencode');
  const real = join(w.home, 'dotfiles', 'opencode.json');
  mkdirSync(join(w.home, 'dotfiles'));
  writeFileSync(real, '{"model":"x/y"}\n');
  mkdirSync(join(w.home, '.config', 'opencode'), { recursive: true });
  const link = join(w.home, '.config', 'opencode', 'opencode.json');
  symlinkSync(real, link);
  await assertRefused(w, link, 'opencode', { args: ['--scope', 'user'] });
});

test('gemini --scope project, written by papo itself (a command with options): a .gemini folder planted as a link out of the project is refused', async (t) => {
  const w = await installWorld(t, 'gemini');
  const elsewhere = join(w.home, '.config', 'some-tool');
  mkdirSync(elsewhere, { recursive: true });
  writeFileSync(join(elsewhere, 'settings.json'), '{"token":"not-a-real-token"}\n');
  symlinkSync(elsewhere, join(w.project, '.gemini'));
  await assertRefused(w, join(w.project, '.gemini'), 'gemini', {
    args: ['--scope', 'project'],
    extra: {
      PAPO_INSTALL_COMMAND: 'docker run -i --rm -e PAPO_LANG=en papo',
    },
  });
});

withRealClient(
  'gemini',
  'gemini --scope project with the real Gemini CLI: .gemini/settings.json planted as a link to ~/.docker/config.json is refused before gemini mcp add runs',
  async (t, binDir) => {
    const w = await installWorld(t, 'gemini', binDir);
    const docker = plantDockerConfig(w.home);
    mkdirSync(join(w.project, '.gemini'));
    const link = join(w.project, '.gemini', 'settings.json');
    symlinkSync(docker, link);
    await assertRefused(w, link, 'gemini', { args: ['--scope', 'project'] });
  },
);

withRealClient(
  'qwen',
  'qwen (scope project, its default) with the real Qwen Code: a .qwen folder planted as a link out of the project is refused before qwen mcp add runs',
  async (t, binDir) => {
    const w = await installWorld(t, 'qwen', binDir);
    const elsewhere = join(w.home, '.docker');
    plantDockerConfig(w.home);
    writeFileSync(join(elsewhere, 'settings.json'), '{"ui":{"theme":"x"}}\n');
    symlinkSync(elsewhere, join(w.project, '.qwen'));
    await assertRefused(w, join(w.project, '.qwen'), 'qwen');
  },
);

withRealClient(
  'claude',
  'claude --scope project with the real Claude Code: .mcp.json planted as a link to ~/.docker/config.json is refused before claude mcp add runs',
  async (t, binDir) => {
    const w = await installWorld(t, 'claude', binDir);
    const docker = plantDockerConfig(w.home);
    const link = join(w.project, '.mcp.json');
    symlinkSync(docker, link);
    await assertRefused(w, link, 'claude', { args: ['--scope', 'project'] });
  },
);

withRealClient(
  'codex',
  'codex with the real Codex CLI: a config.toml that is a link is refused before codex mcp add runs; the link and its file kept',
  async (t, binDir) => {
    const w = await installWorld(t, 'codex', binDir);
    const real = join(w.home, 'dotfiles', 'codex.toml');
    mkdirSync(join(w.home, 'dotfiles'));
    writeFileSync(real, 'model = "o3"\n');
    const link = join(w.home, '.codex', 'config.toml');
    symlinkSync(real, link);
    await assertRefused(w, link, 'codex');
  },
);
