// papo doctor and the agent CLIs: for each of the five (the pinned real clients of
// scripts/agent-cli.mjs), papo not registered is a warning with the fix, and after `papo install
// --client X` doctor reads papo's entry from the client's own files. A file of its own: five
// installs of real clients take a minute or two on a loaded machine.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort } from '../../src/cli/free-port.js';
import { type AgentClient, agentCli } from '../support/agent-cli.js';
import { tempDir } from '../support/files.js';
import { runPapo } from '../support/papo.js';
import { BASE_PATH, check, doctorJson, env, profile } from './doctor-helpers.js';

/** How each client names itself, and the scope doctor reads after papo install's default. */
const CLIENT_VIEW: Record<AgentClient, { label: string; scope: RegExp }> = {
  claude: {
    label: 'Claude Code',
    scope: /^papo is registered \(scope local \(.*\.claude\.json\): .*main\.js mcp/,
  },
  codex: { label: 'Codex CLI', scope: /^papo is registered \(scope user \(.*config\.toml\): .*main\.js mcp/ },
  gemini: {
    label: 'Gemini CLI',
    scope: /^papo is registered \(scope user \(.*\.gemini\/settings\.json\): .*main\.js mcp/,
  },
  opencode: {
    label: 'opencode',
    scope: /^papo is registered \(scope project \(.*opencode\.json\): .*main\.js mcp/,
  },
  qwen: {
    label: 'Qwen Code',
    scope: /^papo is registered \(scope project \(.*\.qwen\/settings\.json\): .*main\.js mcp/,
  },
};

for (const id of ['claude', 'codex', 'gemini', 'opencode', 'qwen'] as const) {
  test(`${id} on PATH: papo not registered is a warning with the fix; after papo install --client ${id} (the real client), ok, read from its files`, {
    timeout: 120_000,
  }, async (t) => {
    const cli = agentCli(id);
    if ('skip' in cli) {
      t.skip(cli.skip);
      return;
    }
    const dir = tempDir(t);
    const project = join(dir, 'project');
    const userHome = join(dir, 'user');
    execFileSync('mkdir', ['-p', project, userHome, join(userHome, '.codex')]);
    const port = await freePort();
    const home = await profile(t, `ws://127.0.0.1:${port}`);
    const e = env(home, {
      PATH: `${cli.binDir}:${BASE_PATH}`,
      HOME: userHome,
      XDG_CONFIG_HOME: join(userHome, '.config'),
      CODEX_HOME: join(userHome, '.codex'),
      PAPO_ICE_SERVERS: '[]',
    });
    const before = await doctorJson(e, project);
    const c = check(before.report, 'client');
    assert.equal(c.label, CLIENT_VIEW[id].label);
    assert.equal(c.status, 'warn');
    assert.equal(c.text, 'papo is not registered for this project');
    assert.equal(c.fix, `papo install --client ${id}`);

    const installed = await runPapo(['install', '--client', id], {
      env: e,
      cwd: project,
    });
    assert.equal(installed.code, 0, installed.stderr);
    const after = await doctorJson(e, project);
    const r = check(after.report, 'client');
    assert.equal(r.status, 'ok', JSON.stringify(r));
    assert.equal(r.data?.registered, true);
    assert.match(r.text, CLIENT_VIEW[id].scope);
    t.diagnostic(`${id} ${cli.version}: ${r.text}`);
  });
}

test('Claude Code with papo’s plugin (papo install --plugin, the real claude): doctor reads the plugin and the project’s profile', {
  timeout: 120_000,
}, async (t) => {
  const cli = agentCli('claude');
  if ('skip' in cli) {
    t.skip(cli.skip);
    return;
  }
  const dir = tempDir(t);
  const project = join(dir, 'project');
  const userHome = join(dir, 'user');
  execFileSync('mkdir', ['-p', project, userHome]);
  const home = await profile(t, `ws://127.0.0.1:${await freePort()}`);
  const e = env(home, {
    PATH: `${cli.binDir}:${BASE_PATH}`,
    HOME: userHome,
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    DISABLE_AUTOUPDATER: '1',
  });
  const installed = await runPapo(['install', '--plugin'], { env: e, cwd: project });
  assert.equal(installed.code, 0, installed.stderr);
  const r = check((await doctorJson(e, project)).report, 'client');
  assert.equal(r.status, 'ok', JSON.stringify(r));
  assert.equal(r.data?.registered, true);
  assert.equal(
    r.text,
    `papo is registered (plugin papo@papo (${join(userHome, '.claude', 'settings.json')}): papo mcp, profile default)`,
  );
});
