// No token in any client's configuration (issue 27, ADR 0094): papo install with every secret a
// person may hold in papo's variables — a token in PAPO_SIGNAL's query (the signal server reads
// ?token=) and in its fragment (ADR 0089), PAPO_SIGNAL_TOKEN, TURN credentials in PAPO_ICE_SERVERS —
// for each of the five clients, in each of their scopes, with the real, pinned client writing its
// own file where it does (skipped when it cannot be installed). Every file of the person's machine
// is then read: none holds a token, and neither does what papo install printed or --print shows.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AgentClient } from '../support/agent-cli.js';
import { filesHolding, installWorld, realClient } from '../support/install-world.js';

const QUERY_TOKEN = 'FAKE-QUERY-TOKEN-0001';
const FRAGMENT_TOKEN = 'FAKE-FRAGMENT-TOKEN-0002';
const ENV_TOKEN = 'FAKE-ENV-TOKEN-0003';
const TURN_CREDENTIAL = 'FAKE-TURN-CREDENTIAL-0004';
const SECRETS = [QUERY_TOKEN, FRAGMENT_TOKEN, ENV_TOKEN, TURN_CREDENTIAL];

const SECRET_ENV = {
  PAPO_SIGNAL: `wss://signal.example.test/?token=${QUERY_TOKEN}#token=${FRAGMENT_TOKEN}`,
  PAPO_SIGNAL_TOKEN: `wss://signal.example.test=${ENV_TOKEN}`,
  PAPO_ICE_SERVERS: JSON.stringify([
    { urls: 'turn:turn.example.test:3478', username: 'fake-user', credential: TURN_CREDENTIAL },
  ]),
};

const SCOPES: Record<AgentClient, string[]> = {
  claude: ['local', 'user', 'project'],
  codex: ['user'],
  gemini: ['user', 'project'],
  // The user's scope first: the project's never held a value (its file is shared).
  opencode: ['user', 'project'],
  qwen: ['user', 'project'],
};

for (const client of Object.keys(SCOPES) as AgentClient[]) {
  // opencode has no command that registers a server: papo writes its file, a stand-in will do.
  const real = client === 'opencode' ? { binDir: undefined } : realClient(client);
  test(`${client}: no token in its configuration, in any scope, nor in what papo install prints`, {
    skip: 'skip' in real ? real.skip : false,
    timeout: 300_000,
  }, async (t) => {
    const w = await installWorld(t, client, 'binDir' in real ? real.binDir : undefined);
    for (const scope of SCOPES[client]) {
      const args = client === 'codex' ? [] : ['--scope', scope];
      const r = await w.install(args, SECRET_ENV);
      assert.equal(r.code, 0, `${scope}: ${r.stdout}${r.stderr}`);
      assert.deepEqual(filesHolding(w.dir, SECRETS), [], `${scope}: a token was written`);
      const printed = await w.install([...args, '--print'], SECRET_ENV);
      assert.equal(printed.code, 0, printed.stderr);
      for (const out of [printed.stdout, printed.stderr, r.stdout, r.stderr])
        assert.deepEqual(
          SECRETS.filter((s) => out.includes(s)),
          [],
          `${scope}: papo install printed a token:\n${out}`,
        );
      // PAPO_SIGNAL held a token: the client passes it on from its own environment, and says so.
      assert.match(r.stdout, /PAPO_SIGNAL/, r.stdout);
    }
    if (client === 'codex') {
      const toml = readFileSync(join(w.home, '.codex', 'config.toml'), 'utf8');
      assert.match(toml, /^env_vars = \["PAPO_SIGNAL_TOKEN", "PAPO_ICE_SERVERS", "PAPO_SIGNAL"\]$/m, toml);
    }
  });
}

test('opencode: a PAPO_SIGNAL without a token is written as it is (with its pin); one with a token in its query or fragment is passed by name', async (t) => {
  const w = await installWorld(t, 'opencode');
  const pinned = 'wss://signal.example.test/#pin=sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const environment = async (signal: string) => {
    const r = await w.install(['--scope', 'user'], { PAPO_SIGNAL: signal });
    assert.equal(r.code, 0, r.stderr);
    const file = join(w.home, '.config', 'opencode', 'opencode.json');
    return JSON.parse(readFileSync(file, 'utf8')).mcp.papo.environment;
  };
  assert.deepEqual(await environment(pinned), { PAPO_HOME: w.papoHome, PAPO_SIGNAL: pinned });
  for (const signal of [
    `wss://signal.example.test/?token=${QUERY_TOKEN}`,
    `wss://signal.example.test/#token=${FRAGMENT_TOKEN}`,
    'wss://signal.example.test/path?session=opaque',
    'not a url at all',
  ])
    assert.deepEqual(
      await environment(signal),
      { PAPO_HOME: w.papoHome, PAPO_SIGNAL: '{env:PAPO_SIGNAL}' },
      signal,
    );
});
