// papo install --client gemini with the built papo and the real, pinned Gemini CLI (its own
// `gemini mcp add` writes the settings), in a temporary HOME. tests/clients/gemini.test.ts shows
// that Gemini CLI then runs papo with what was written.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type AgentCli, agentCli } from '../support/agent-cli.js';
import { tempDir } from '../support/files.js';
import { cleanEnv, PAPO_BIN, runPapo } from '../support/papo.js';

const cli = agentCli('gemini');
const skip = 'skip' in cli ? cli.skip : false;

/** A person with a profile, a project folder and Gemini CLI (or not) on PATH. */
async function person(t: { after: (fn: () => void) => void }, withGemini = true) {
  const dir = tempDir(t, 'papo-gemini-');
  const home = join(dir, 'home');
  const papoHome = join(dir, 'papo-home');
  const project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(project);
  await runPapo(['new', '--name', 'alice'], { env: cleanEnv({ PAPO_HOME: papoHome }) });
  const path = withGemini ? `${(cli as AgentCli).binDir}:${process.env.PATH}` : '/usr/bin:/bin';
  const env = (extra: Record<string, string> = {}) =>
    cleanEnv({ HOME: home, PAPO_HOME: papoHome, PATH: path, GEMINI_CLI_HOME: undefined, ...extra });
  const install = (args: string[], extra: Record<string, string> = {}) => {
    return runPapo(['install', '--client', 'gemini', ...args], { cwd: project, env: env(extra) });
  };
  const userFile = join(home, '.gemini', 'settings.json');
  return { dir, home, papoHome, project, env, install, userFile };
}

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

test('gemini mcp add writes papo’s entry (trust, timeout, secrets by reference), keeps the rest, and is idempotent', {
  skip,
  timeout: 120_000,
}, async (t) => {
  const p = await person(t);
  mkdirSync(join(p.home, '.gemini'));
  const before = {
    ui: { theme: 'GitHub' },
    mcpServers: { other: { command: 'other-server', args: ['--x'] } },
  };
  writeFileSync(p.userFile, JSON.stringify(before), { mode: 0o640 });
  const secret = 'ws://127.0.0.1:7450=not-a-real-token';
  const r = await p.install([], { PAPO_SIGNAL_TOKEN: secret });
  assert.equal(r.code, 0, r.stderr);
  const entry = {
    command: PAPO_BIN,
    args: ['mcp'],
    env: { PAPO_HOME: p.papoHome, PAPO_SIGNAL_TOKEN: '$PAPO_SIGNAL_TOKEN' },
    timeout: 1_210_000,
    trust: true,
  };
  assert.deepEqual(read(p.userFile), { ...before, mcpServers: { ...before.mcpServers, papo: entry } });
  assert.ok(!readFileSync(p.userFile, 'utf8').includes('not-a-real-token'));
  assert.equal(statSync(p.userFile).mode & 0o777, 0o640);
  const lines = r.stdout.split('\n');
  assert.equal(lines[0], `papo is registered in Gemini CLI (scope user, ${p.userFile}).`);
  assert.match(r.stdout, /^ {2}"trust": true — .*papo's entry only, no other server or tool/m);
  assert.match(r.stdout, /^ {2}"timeout": 1210000 — /m);
  assert.match(r.stdout, /^ {2}"PAPO_SIGNAL_TOKEN": "\$PAPO_SIGNAL_TOKEN" — a reference, not the value/m);
  assert.match(
    r.stdout,
    /^Gemini CLI starts MCP servers only in folders you trust: .*does not trust any folder for you/m,
  );
  assert.equal(lines.at(-2), 'Open Gemini CLI in this folder with:  gemini');
  // Nothing trusted on the person's behalf.
  assert.throws(() => statSync(join(p.home, '.gemini', 'trustedFolders.json')));

  // Again, with another profile: papo's entry replaced, not doubled; the rest as it was.
  await runPapo(['new', '--name', 'alice', '--profile', 'dados'], {
    env: cleanEnv({ PAPO_HOME: p.papoHome }),
  });
  const again = await p.install(['--profile', 'dados']);
  assert.equal(again.code, 0, again.stderr);
  const { env: _env, ...withoutEnv } = entry;
  assert.deepEqual(read(p.userFile), {
    ...before,
    mcpServers: {
      ...before.mcpServers,
      papo: { ...withoutEnv, args: ['mcp', '--profile', 'dados'], env: { PAPO_HOME: p.papoHome } },
    },
  });
  assert.doesNotMatch(again.stdout, /PAPO_SIGNAL_TOKEN/);
});

test('scope project: <project>/.gemini/settings.json, without the personal PAPO_HOME; pt-BR texts', {
  skip,
  timeout: 120_000,
}, async (t) => {
  const p = await person(t);
  const r = await p.install(['--scope', 'project'], { LANG: 'pt_BR.UTF-8' });
  assert.equal(r.code, 0, r.stderr);
  const file = join(p.project, '.gemini', 'settings.json');
  assert.deepEqual(read(file), {
    mcpServers: { papo: { command: PAPO_BIN, args: ['mcp'], timeout: 1_210_000, trust: true } },
  });
  assert.match(
    r.stdout,
    new RegExp(`^O papo está registrado no Gemini CLI \\(escopo project, ${file}\\)\\.$`, 'm'),
  );
  assert.match(
    r.stdout,
    /^aviso: PAPO_HOME está definido .* o Gemini CLI precisa iniciar o papo com o mesmo PAPO_HOME$/m,
  );
  assert.match(r.stdout, /^ {2}"trust": true — o Gemini CLI roda as cinco ferramentas do papo/m);
  assert.throws(() => statSync(p.userFile), 'the user settings were touched');
});

test('a command with options of its own (docker run -i -e ...) is written into the file directly', {
  skip,
  timeout: 120_000,
}, async (t) => {
  const p = await person(t);
  const docker = 'docker run -i --rm -e PAPO_LANG=en -v papo-data:/data -t papo';
  const r = await p.install([], { PAPO_INSTALL_COMMAND: docker });
  assert.equal(r.code, 0, r.stderr);
  const entry = {
    command: 'docker',
    args: ['run', '-i', '--rm', '-e', 'PAPO_LANG=en', '-v', 'papo-data:/data', '-t', 'papo', 'mcp'],
    env: { PAPO_HOME: p.papoHome },
    timeout: 1_210_000,
    trust: true,
  };
  assert.deepEqual(read(p.userFile), { mcpServers: { papo: entry } });
  assert.equal(statSync(p.userFile).mode & 0o777, 0o600);
  // Again: the same file.
  assert.equal((await p.install([], { PAPO_INSTALL_COMMAND: docker })).code, 0);
  assert.deepEqual(read(p.userFile), { mcpServers: { papo: entry } });
  // Gemini CLI reads it as papo install meant it (listed; not started: the folder is not trusted).
  const list = spawnSync((cli as AgentCli).bin, ['mcp', 'list'], {
    cwd: p.project,
    env: p.env(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.match(
    `${list.stdout}${list.stderr}`,
    /^○ papo: docker run -i --rm -e PAPO_LANG=en -v papo-data:\/data -t papo mcp \(stdio\) - Disabled$/m,
  );

  // A settings file that is not plain JSON (comments) is left as it is, with what to do.
  const commented = '{\n  // my theme\n  "ui": { "theme": "GitHub" }\n}\n';
  writeFileSync(p.userFile, commented);
  const refused = await p.install([], { PAPO_INSTALL_COMMAND: docker });
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /settings\.json is not plain JSON .*papo install --client gemini --print by hand/,
  );
  assert.equal(readFileSync(p.userFile, 'utf8'), commented);
});

test('a PAPO_SIGNAL with a pin (#pin=…) reaches the file whole: gemini mcp add would cut a value at its second "="', {
  skip,
  timeout: 120_000,
}, async (t) => {
  const p = await person(t);
  const pinned = 'wss://signal.example.test/#pin=sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const r = await p.install([], { PAPO_SIGNAL: pinned });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(read(p.userFile).mcpServers.papo.env, { PAPO_HOME: p.papoHome, PAPO_SIGNAL: pinned });
});

test('--print shows the file and the entry; without gemini on PATH, the command to run by hand', async (t) => {
  const p = await person(t, false);
  const printed = await p.install(['--print'], { PAPO_SIGNAL_TOKEN: 'x' });
  assert.equal(printed.code, 0, printed.stderr);
  const [first, ...json] = printed.stdout.trimEnd().split('\n');
  assert.equal(first, `# ${p.userFile}`);
  assert.deepEqual(JSON.parse(json.join('\n')), {
    mcpServers: {
      papo: {
        command: PAPO_BIN,
        args: ['mcp'],
        env: { PAPO_HOME: p.papoHome, PAPO_SIGNAL_TOKEN: '$PAPO_SIGNAL_TOKEN' },
        timeout: 1_210_000,
        trust: true,
      },
    },
  });
  const byHand = await p.install([], { PAPO_SIGNAL_TOKEN: 'x' });
  assert.equal(byHand.code, 0, byHand.stderr);
  assert.equal(
    byHand.stdout,
    `gemini is not on PATH. Run this by hand:\n\n  gemini mcp add --scope user -e PAPO_HOME=${p.papoHome} -e 'PAPO_SIGNAL_TOKEN=$PAPO_SIGNAL_TOKEN' --timeout 1210000 --trust papo ${PAPO_BIN} mcp\n`,
  );
  assert.throws(() => statSync(p.userFile), 'a settings file was written without gemini');
});
