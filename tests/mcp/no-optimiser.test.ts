// papo mcp runs without V8's optimising compiler (ADR 0108), a flag it sets at run time since the
// `#!/usr/bin/env node` line agent CLIs start it with takes none. Node documents that a flag set
// at run time "may simply do nothing", so this asks the real process, linked in a room: a function
// hot enough to be optimised stays unoptimised in it, and is optimised in a plain node process
// carrying the same probe (the test can see the difference). And it must be set before papo loads
// its modules: node's own loader functions get hot enough to be optimised in the first 100 ms.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../support/files.js';
import { optimiserProbeEnv } from '../support/optimiser-probe.js';
import { makeRoom, startAgent, statusUntil } from '../support/room.js';
import { waitFor } from '../support/wait.js';

const BIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const INIT = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } })}\n`;

async function probed(pid: number, file: string): Promise<boolean> {
  await waitFor('the probe in place', () => existsSync(`${file}.ready`), 20_000);
  process.kill(pid, 'SIGUSR2');
  const answer = await waitFor(
    'the probe',
    () => (existsSync(file) ? readFileSync(file, 'utf8') : undefined),
    20_000,
  );
  return (JSON.parse(answer) as { optimised: boolean }).optimised;
}

test('a linked papo mcp runs a hot function unoptimised; plain node with the same probe optimises it', {
  timeout: 90_000,
}, async (t) => {
  const dir = makeTempDir('papo-optimiser-');
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  const plain = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    env: { ...process.env, ...optimiserProbeEnv(join(dir, 'plain.json')) },
    stdio: 'ignore',
  });
  t.after(() => plain.kill('SIGKILL'));
  assert.equal(await probed(plain.pid as number, join(dir, 'plain.json')), true);

  const room = await makeRoom(t);
  const host = startAgent(room, room.members.voce);
  await host.client.initialize();
  const agent = startAgent(room, room.members.colega, optimiserProbeEnv(join(dir, 'mcp.json')));
  await agent.client.initialize();
  await statusUntil(agent.client, /voce \([a-z]+\): online/);
  assert.equal(await probed(agent.pid, join(dir, 'mcp.json')), false);
});

/** The functions V8's trace says it optimised (TurboFan or Maglev), by name. */
function optimisedIn(trace: string): string[] {
  return [
    ...trace.matchAll(
      /^\[completed compiling 0x[0-9a-f]+ <JSFunction ([^ >]*)[^\]]*\(target (TURBOFAN|MAGLEV)\)/gm,
    ),
  ].map((m) => `${m[1] ?? ''} (${m[2]})`);
}

test('papo mcp, started as agent CLIs start it, optimises nothing from its first line to its answer and after', () => {
  const home = makeTempDir('papo-optimiser-');
  // What node optimises before any line of the entry runs (from Node 24 Maglev compiles node's own
  // path functions while it resolves the entry's file), read on an empty module beside papo's.
  const empty = join(dirname(BIN), `.optimiser-baseline-${process.pid}.mjs`);
  writeFileSync(empty, '');
  try {
    // Not measured under the suite's coverage: node's coverage writer, which runs at exit when
    // NODE_V8_COVERAGE is set, is optimised whatever the flag says (its `lineLengths`, seen in
    // CI). An empty value turns it off and keeps tests/support/coverage-env.ts from adding it.
    const env = { PATH: process.env.PATH, PAPO_HOME: home, NODE_V8_COVERAGE: '' };
    const before = new Set(
      optimisedIn(execFileSync(process.execPath, ['--trace-opt', empty], { env, encoding: 'utf8' })),
    );
    // V8's trace of what it optimises goes to stdout, beside the answer; stdin closes after the
    // initialize line, and papo mcp stops.
    const out = execFileSync(process.execPath, ['--trace-opt', BIN, 'mcp'], {
      env,
      input: INIT,
      encoding: 'utf8',
    });
    assert.match(out, /"protocolVersion"/);
    // Node's path functions, called once per character of every path node resolves, can be hot
    // enough for Maglev while node resolves the entry itself, before its first line: in some runs
    // of the empty module and not others (CI saw one compiled for papo and not for the baseline).
    const resolving = new Set(['isPosixPathSeparator (MAGLEV)', 'normalizeString (MAGLEV)']);
    assert.deepEqual(
      optimisedIn(out).filter((f) => !before.has(f) && !resolving.has(f)),
      [],
    );
  } finally {
    rmSync(empty, { force: true });
    rmSync(home, { recursive: true, force: true });
  }
});
