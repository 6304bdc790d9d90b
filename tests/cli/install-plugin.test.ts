// papo install --plugin (ADR 0101), with a stand-in `claude` that records what it was asked: the
// marketplace of this papo's package added and the plugin installed for the user, in that order,
// and the project's profile written into the project's .claude/settings.local.json, merged with
// what the person had there. The real Claude Code runs the same in tests/claude-code/plugin.test.ts.
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/files.js';
import { cleanEnv, ROOT, runPapo } from '../support/papo.js';

const MARKETPLACE = ROOT.replace(/\/$/, '');

/** A stand-in `claude` on PATH appending each call's arguments, one call a line, and exiting `code`. */
function fakeClaude(dir: string, code = 0): { PATH: string; calls: () => string[] } {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const record = join(dir, 'claude-calls');
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\necho "$*" >> ${JSON.stringify(record)}\nexit ${code}\n`);
  chmodSync(join(bin, 'claude'), 0o755);
  return {
    PATH: `${bin}:/usr/bin:/bin`,
    calls: () => (existsSync(record) ? readFileSync(record, 'utf8').split('\n').slice(0, -1) : []),
  };
}

test('papo install --plugin installs the plugin from this papo’s marketplace and sets the project’s profile, keeping the person’s settings', async (t) => {
  const dir = tempDir(t);
  const home = join(dir, 'papo-home');
  const project = join(dir, 'payments-api');
  mkdirSync(join(project, '.claude'), { recursive: true });
  const settings = join(project, '.claude', 'settings.local.json');
  writeFileSync(settings, JSON.stringify({ permissions: { allow: ['Bash(npm test)'] }, env: { FOO: '1' } }));
  chmodSync(settings, 0o644);
  const claude = fakeClaude(dir);
  const r = await runPapo(['install', '--plugin', '--profile', 'payments'], {
    cwd: project,
    env: cleanEnv({ PAPO_HOME: home, PATH: claude.PATH }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(claude.calls(), [
    `plugin marketplace add ${MARKETPLACE}`,
    'plugin install papo@papo --scope user',
  ]);
  assert.deepEqual(JSON.parse(readFileSync(settings, 'utf8')), {
    permissions: { allow: ['Bash(npm test)'] },
    env: { FOO: '1', PAPO_PROFILE: 'payments', PAPO_HOME: home },
  });
  assert.equal(statSync(settings).mode & 0o777, 0o644, 'the file keeps its mode');
  assert.equal(
    r.stdout,
    [
      `The papo plugin (papo@papo) is installed in Claude Code for your user, from the marketplace in ${MARKETPLACE}: Claude Code starts papo mcp itself in every project.`,
      `This project talks in the room of profile payments: PAPO_PROFILE is set in ${settings} (your Claude Code settings for this project, not to be committed; Claude Code passes them to papo). For another project, run papo install --plugin --profile <its profile> there.`,
      'note: the plugin runs papo from PATH, and there is no papo on PATH: install papo (npm install -g, see the README) before you open Claude Code.',
      "Open Claude Code with:  claude   (2.1.332 or later: your colleague's messages arrive on their own, no flag; older: claude --dangerously-load-development-channels plugin:papo@papo)",
      '',
    ].join('\n'),
  );

  // A second project, no settings yet: made 0600 in a folder papo makes; the default profile named.
  const ledger = join(dir, 'ledger');
  mkdirSync(ledger);
  const again = await runPapo(['install', '--plugin'], {
    cwd: ledger,
    env: cleanEnv({ PAPO_HOME: home, PATH: claude.PATH }),
  });
  assert.equal(again.code, 0, again.stderr);
  const made = join(ledger, '.claude', 'settings.local.json');
  assert.deepEqual(JSON.parse(readFileSync(made, 'utf8')), {
    env: { PAPO_PROFILE: 'default', PAPO_HOME: home },
  });
  assert.equal(statSync(made).mode & 0o777, 0o600);
});

test('papo install --plugin --print shows the two claude commands and the settings, and changes nothing', async (t) => {
  const dir = tempDir(t);
  const claude = fakeClaude(dir);
  const r = await runPapo(['install', '--plugin', '--print', '--profile', 'ledger'], {
    cwd: dir,
    env: cleanEnv({ PATH: claude.PATH }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      `claude plugin marketplace add ${MARKETPLACE}`,
      'claude plugin install papo@papo --scope user',
      '',
      `Add to ${join(dir, '.claude', 'settings.local.json')}:`,
      JSON.stringify({ env: { PAPO_PROFILE: 'ledger' } }, null, 2),
      '',
    ].join('\n'),
  );
  assert.deepEqual(claude.calls(), []);
  assert.ok(!existsSync(join(dir, '.claude')));
});

test('papo install --plugin refuses a linked .claude folder before Claude Code is changed', async (t) => {
  const dir = tempDir(t);
  const project = join(dir, 'checkout');
  const elsewhere = join(dir, 'elsewhere');
  mkdirSync(project);
  mkdirSync(elsewhere);
  symlinkSync(elsewhere, join(project, '.claude'));
  const claude = fakeClaude(dir);
  const r = await runPapo(['install', '--plugin'], { cwd: project, env: cleanEnv({ PATH: claude.PATH }) });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /\.claude is a symbolic link; papo install does not read or write/);
  assert.deepEqual(claude.calls(), [], 'Claude Code was not touched');
  assert.ok(!existsSync(join(elsewhere, 'settings.local.json')));
});

test('a failing claude plugin command is an error that says how to do it by hand', async (t) => {
  const dir = tempDir(t);
  const claude = fakeClaude(dir, 1);
  const r = await runPapo(['install', '--plugin'], { cwd: dir, env: cleanEnv({ PATH: claude.PATH }) });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^error: claude plugin marketplace add failed \(exit 1\)\. .*papo install --plugin --print$/m,
  );
  assert.ok(!existsSync(join(dir, '.claude')), 'no profile written for a plugin that is not there');
});

test('--plugin is Claude Code’s, for the user: with another client or a --scope it is refused; claude mcp add offers it', async (t) => {
  const dir = tempDir(t);
  const r = await runPapo(['install', '--plugin', '--client', 'codex'], {
    cwd: dir,
    env: cleanEnv({ PATH: '/usr/bin:/bin' }),
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--plugin is for Claude Code only; Codex CLI is registered without it/);
  const scoped = await runPapo(['install', '--plugin', '--scope', 'project'], {
    cwd: dir,
    env: cleanEnv({ PATH: '/usr/bin:/bin' }),
  });
  assert.equal(scoped.code, 1);
  assert.match(
    scoped.stderr,
    /--plugin installs the plugin for your user \(every project\).*leave out --scope/,
  );
  const claude = fakeClaude(dir);
  const add = await runPapo(['install'], { cwd: dir, env: cleanEnv({ PATH: claude.PATH, PAPO_HOME: dir }) });
  assert.equal(add.code, 0, add.stderr);
  assert.match(
    add.stdout,
    /\nOr let Claude Code start papo from its plugin instead: {2}papo install --plugin\n$/,
  );
});

test('papo install --plugin where claude mcp add registered papo says to remove that registration', async (t) => {
  const dir = tempDir(t);
  const project = join(dir, 'payments-api');
  const home = join(dir, 'user');
  mkdirSync(project);
  mkdirSync(home);
  // What claude mcp add --scope local writes into ~/.claude.json.
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({ projects: { [project]: { mcpServers: { papo: { command: 'papo', args: ['mcp'] } } } } }),
  );
  const claude = fakeClaude(dir);
  const r = await runPapo(['install', '--plugin'], {
    cwd: project,
    env: cleanEnv({ PATH: claude.PATH, HOME: home }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /\nnote: papo is also registered with claude mcp add \(scope local\), so Claude Code would start papo twice for this project: remove that one with {2}claude mcp remove papo --scope local\nOpen Claude Code with: {2}claude {3}\(2\.1\.332 or later: your colleague's messages arrive on their own, no flag; older: claude --dangerously-load-development-channels plugin:papo@papo\)\n$/,
  );
});
