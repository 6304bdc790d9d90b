// papo install --client codex with the real Codex CLI (the pinned version of scripts/agent-cli.mjs)
// in a CODEX_HOME of the test's own: `codex mcp add` writes papo's entry, papo adds its three
// settings to that entry only, and Codex itself (`codex mcp get --json`) reads them back.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { type AgentCli, agentCli } from '../support/agent-cli.js';
import { tempDir } from '../support/files.js';
import { cleanEnv, PAPO_BIN, runPapo } from '../support/papo.js';

const cli = agentCli('codex');
const skip = 'skip' in cli ? cli.skip : false;

const APPROVALS =
  'tools = { send = { approval_mode = "approve" }, wait = { approval_mode = "approve" }, inbox = { approval_mode = "approve" } }';

/** A temp HOME and CODEX_HOME, and the environment of a user with codex (or `path`) on PATH. */
function codexEnv(t: { after: (fn: () => void) => void }, extra: Record<string, string> = {}, path?: string) {
  const dir = tempDir(t, 'papo-codex-');
  const codexHome = join(dir, 'codex-home');
  mkdirSync(codexHome);
  const binDir = 'skip' in cli ? '/nonexistent' : cli.binDir;
  const env = cleanEnv({
    HOME: join(dir, 'home'),
    CODEX_HOME: codexHome,
    PAPO_HOME: join(dir, 'papo'),
    PATH: path ?? `${binDir}:${dirname(process.execPath)}:/usr/bin:/bin`,
    ...extra,
  });
  return { dir, codexHome, config: join(codexHome, 'config.toml'), env };
}

/** `codex mcp get <name> --json`, as Codex reads its configuration. */
function codexGet(env: NodeJS.ProcessEnv, name = 'papo') {
  const r = spawnSync((cli as AgentCli).bin, ['mcp', 'get', name, '--json'], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('install: codex mcp add, then papo’s settings in its own table; the rest of config.toml kept', {
  skip,
}, async (t) => {
  const { config, env } = codexEnv(t);
  const home = env.PAPO_HOME as string;
  const before = [
    '# my settings',
    'model = "o3"',
    '',
    '[mcp_servers.other]',
    'command = "other-server"',
    '',
  ].join('\n');
  writeFileSync(config, before);
  chmodSync(config, 0o640);
  const r = await runPapo(['install', '--client', 'codex'], {
    env: {
      ...env,
      PAPO_SIGNAL_TOKEN: 'ws://127.0.0.1:9=s3cr3t-value',
    },
  });
  assert.equal(r.code, 0, r.stderr);
  const expected = [
    before,
    '[mcp_servers.papo]',
    'tool_timeout_sec = 1210',
    'env_vars = ["PAPO_SIGNAL_TOKEN"]',
    APPROVALS,
    `command = ${JSON.stringify(PAPO_BIN)}`,
    'args = ["mcp"]',
    '',
    '[mcp_servers.papo.env]',
    `PAPO_HOME = ${JSON.stringify(home)}`,
    '',
  ].join('\n');
  assert.equal(readFileSync(config, 'utf8'), expected);
  // codex mcp add makes the file 0600 (it was 0640); papo's write keeps what it found.
  assert.equal(statSync(config).mode & 0o777, 0o600);
  assert.deepEqual(r.stdout.split('\n'), [
    `papo is registered in Codex CLI (${config}, [mcp_servers.papo]).`,
    '  tool_timeout_sec = 1210: Codex ends a tool call after 300 s otherwise, and wait can take up to 1200 s.',
    '  send, wait, inbox run without asking (approval_mode "approve", for these papo tools only): codex exec refuses tools that need approval. Other MCP servers are unchanged.',
    '  PAPO_SIGNAL_TOKEN passed on from the environment Codex runs in (env_vars); the value is not written.',
    "Open Codex in the project folder:  codex   (its terminal UI: your colleague's messages arrive as turns of their own, marked as papo's; codex exec reads them only when the agent calls wait)",
    '',
  ]);
  // What Codex reads.
  const got = codexGet(env);
  assert.deepEqual(got.transport, {
    type: 'stdio',
    command: PAPO_BIN,
    args: ['mcp'],
    env: { PAPO_HOME: home },
    env_vars: ['PAPO_SIGNAL_TOKEN'],
    cwd: null,
  });
  assert.equal(got.tool_timeout_sec, 1210);
  assert.equal(codexGet(env, 'other').tool_timeout_sec, null);

  // Again, with a profile and no token: papo's entry replaced, nothing duplicated.
  const again = await runPapo(['install', '--client', 'codex', '--profile', 'dados'], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(
    readFileSync(config, 'utf8'),
    [
      before,
      '[mcp_servers.papo]',
      'tool_timeout_sec = 1210',
      APPROVALS,
      `command = ${JSON.stringify(PAPO_BIN)}`,
      'args = ["mcp", "--profile", "dados"]',
      '',
      '[mcp_servers.papo.env]',
      `PAPO_HOME = ${JSON.stringify(home)}`,
      '',
    ].join('\n'),
  );
  assert.doesNotMatch(again.stdout, /PAPO_SIGNAL_TOKEN/);
});

test('install with NODE_EXTRA_CA_CERTS set: Codex passes it on by name (its small environment would drop it, and a wss:// room on a private CA would break); its value is not written', {
  skip,
}, async (t) => {
  const { config, env, dir } = codexEnv(t);
  const ca = join(dir, 'team-ca.pem');
  const r = await runPapo(['install', '--client', 'codex'], { env: { ...env, NODE_EXTRA_CA_CERTS: ca } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(readFileSync(config, 'utf8'), /^env_vars = \["NODE_EXTRA_CA_CERTS"\]$/m);
  assert.doesNotMatch(readFileSync(config, 'utf8'), /team-ca\.pem/);
  assert.deepEqual(codexGet(env).transport.env_vars, ['NODE_EXTRA_CA_CERTS']);
});

test('install in pt-BR, into a CODEX_HOME with no config.toml yet', { skip }, async (t) => {
  const { config, env } = codexEnv(t, { LANG: 'pt_BR.UTF-8' });
  const r = await runPapo(['install', '--client', 'codex'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^O papo está registrado no Codex CLI \(.*config\.toml, \[mcp_servers\.papo\]\)\.$/m,
  );
  assert.match(r.stdout, /^ {2}send, wait, inbox rodam sem pedir aprovação/m);
  assert.match(r.stdout, /^Abra o Codex na pasta do projeto: {2}codex {3}\(na interface de terminal/m);
  assert.equal(codexGet(env).tool_timeout_sec, 1210);
  assert.equal(statSync(config).mode & 0o777, 0o600);
});

test('--print shows the entry for config.toml; Codex reads it as install writes it', { skip }, async (t) => {
  const printed = codexEnv(t);
  const r = await runPapo(['install', '--client', 'codex', '--print'], {
    env: {
      ...printed.env,
      PAPO_ICE_SERVERS: 'turn:example.test',
      PAPO_LANG: 'pt',
    },
  });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(lines[0], `# ${printed.config}`);
  assert.ok(r.stdout.includes('env_vars = ["PAPO_ICE_SERVERS"]\n'), r.stdout);
  assert.ok(!r.stdout.includes('turn:example.test'), 'a secret value was printed');
  // Pasted into an empty config.toml...
  writeFileSync(printed.config, r.stdout);
  const fromPrint = codexGet(printed.env);
  // ...it is what install writes.
  const installed = codexEnv(t);
  const i = await runPapo(['install', '--client', 'codex'], {
    env: {
      ...installed.env,
      PAPO_HOME: printed.env.PAPO_HOME as string,
      PAPO_ICE_SERVERS: 'turn:example.test',
      PAPO_LANG: 'pt',
    },
  });
  assert.equal(i.code, 0, i.stderr);
  assert.deepEqual(fromPrint, codexGet(installed.env));
  assert.deepEqual(fromPrint.transport.env, { PAPO_HOME: printed.env.PAPO_HOME, PAPO_LANG: 'pt' });
  assert.ok(readFileSync(installed.config, 'utf8').includes(`${APPROVALS}\n`));
  // And byte for byte, but for the order of the keys codex mcp add writes first.
  const sorted = (text: string) =>
    text
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .sort();
  assert.deepEqual(sorted(r.stdout), sorted(readFileSync(installed.config, 'utf8')));
});

test('without codex on PATH: the command to run and the lines to add', async (t) => {
  const { dir, config, env } = codexEnv(t, {}, '/nonexistent');
  const r = await runPapo(['install', '--client', 'codex'], { env });
  assert.equal(r.code, 0, r.stderr);
  const home = env.PAPO_HOME as string;
  assert.deepEqual(r.stdout.split('\n'), [
    'codex is not on PATH. Run this by hand:',
    '',
    `  codex mcp add papo --env PAPO_HOME=${home} -- ${PAPO_BIN} mcp`,
    '',
    `Then add these lines under [mcp_servers.papo] in ${config}:`,
    '',
    '  tool_timeout_sec = 1210',
    `  ${APPROVALS}`,
    '',
  ]);
  assert.ok(dir);
});

test('a failing codex mcp add is an error that says what codex said', async (t) => {
  const dir = tempDir(t, 'papo-codex-stub-');
  const stub = join(dir, 'codex');
  writeFileSync(
    stub,
    '#!/bin/sh\necho "WARNING: noise" >&2\necho "Error: failed to resolve CODEX_HOME" >&2\nexit 1\n',
  );
  chmodSync(stub, 0o755);
  const { env } = codexEnv(t, {}, `${dir}:/usr/bin:/bin`);
  const r = await runPapo(['install', '--client', 'codex'], { env });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^error: codex mcp add failed \(exit 1\): Error: failed to resolve CODEX_HOME\. Check that codex runs/m,
  );
});

test('when papo’s table is not found, or Codex does not read the settings back, config.toml is left as codex mcp add wrote it', async (t) => {
  // A stand-in codex: `mcp add` writes what $ADDED holds; `mcp get` fails.
  const dir = tempDir(t, 'papo-codex-stub-');
  const stub = join(dir, 'codex');
  writeFileSync(
    stub,
    `#!/bin/sh\nif [ "$2" = add ]; then printf "$ADDED" > "$CODEX_HOME/config.toml"; exit 0; fi\nexit 1\n`,
  );
  chmodSync(stub, 0o755);
  // papo's entry as dotted keys: no [mcp_servers.papo] table to add to.
  for (const added of ['mcp_servers.papo.command = "x"\n', '[mcp_servers.papo]\ncommand = "x"\n']) {
    const { config, env } = codexEnv(t, { ADDED: added }, `${dir}:/usr/bin:/bin`);
    const r = await runPapo(['install', '--client', 'codex'], { env });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /could not add its settings to \[mcp_servers\.papo\]/);
    assert.equal(readFileSync(config, 'utf8'), added);
  }
});

test('doctor reads papo’s entry from config.toml in at most 300 characters (fuzz, issue 13)', async (t) => {
  // Found by the fuzz target "agent client config files": a long `args` array gave a detail line
  // as long as the file, where registrationIn (the JSON clients) bounds it to 300.
  const { codex } = await import('../../src/cli/install/codex.js');
  const { codexHome, config } = codexEnv(t);
  const args = Array.from({ length: 400 }, (_, i) => `"arg${i}"`).join(', ');
  writeFileSync(config, `[mcp_servers.papo]\ncommand = "papo"\nargs = [${args}]\n`);
  const r = await codex.registration?.({ env: { CODEX_HOME: codexHome }, cwd: codexHome } as never);
  assert.equal(r?.registered, true);
  assert.ok((r?.detail.length ?? 0) <= 300, `detail of ${r?.detail.length} characters`);
  assert.match(r?.detail ?? '', /^scope user \(.*config\.toml\): papo arg0 arg1/);
});
