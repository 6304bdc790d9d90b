// The real opencode (the pinned version, scripts/agent-cli.mjs) with papo registered by
// `papo install --client opencode`, its model the scripted fake Chat Completions API. Skipped, with
// the reason, when opencode cannot be installed. See src/cli/install/opencode.ts for what papo
// writes and why.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { OPENCODE_TOOL_NAMES } from '../../src/cli/install/opencode.js';
import { delivered, instructions, UNTRUSTED_NOTICE } from '../../src/mcp/texts.js';
import { TOOLS } from '../../src/mcp/tool-list.js';
import { recordedLines, recorderCommand, roomWithColleague } from '../claude-code/helpers/claude.js';
import type { AgentCli } from '../support/agent-cli.js';
import { leftovers, papoInstallFor, stopFirst } from '../support/client-run.js';
import { msgIdIn, PAPO_BIN } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import {
  type Json,
  startFakeChatCompletions,
  textsOf,
  toolResults,
  toolsOffered,
} from './fake-chat-completions.js';
import { ASK, askWhileWaiting, PROMPT, REPLY, replyToWaited } from './helpers/exchange.js';
import { opencodeCli, opencodeSetup, opencodeTurn } from './helpers/opencode.js';

const cli = opencodeCli();
const skip = 'skip' in cli ? cli.skip : false;

test('papo install --client opencode writes papo’s entry; opencode mcp list shows it connected', {
  skip,
}, async (t) => {
  const c = cli as AgentCli;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const fake = await startFakeChatCompletions();
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await opencodeSetup(early, {
    cli: c,
    root: room.root,
    project,
    papoHome: room.members.voce.home,
    fake,
  });
  const out = await papoInstallFor('opencode', project, setup.env);
  const file = join(project, 'opencode.json');
  assert.match(out, new RegExp(`^papo is registered in opencode \\(scope project\\), in ${file}\\.$`, 'm'));
  const written = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(written.mcp.papo, {
    type: 'local',
    command: [PAPO_BIN, 'mcp'],
    enabled: true,
    timeout: 1_210_000,
  });
  assert.deepEqual(Object.keys(written.permission), OPENCODE_TOOL_NAMES);
  // Again: the same file, not a second entry.
  await papoInstallFor('opencode', project, setup.env);
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), written);

  const r = spawnSync(c.bin, ['mcp', 'list'], {
    cwd: project,
    env: setup.env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: opencode colours its listing
  const plain = r.stdout.replace(/\x1b\[[0-9;]*m/g, '');
  assert.match(plain, /✓ papo connected/, plain);
  assert.ok(plain.includes(`${PAPO_BIN} mcp`), plain);
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived opencode mcp list');
  assert.deepEqual(fake.turnRequests(), [], 'opencode mcp list asked the model something');
  t.diagnostic(`opencode ${c.version}; refused outside connections: ${setup.refused.join(', ') || 'none'}`);
});

test('headless: opencode run waits for a colleague through papo and answers with send and reply_to', {
  skip,
}, async (t) => {
  const c = cli as AgentCli;
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeChatCompletions([
    { tools: [{ name: 'papo_wait', args: { timeout_seconds: 60, from: 'colega' } }] },
    replyToWaited('papo_send', REPLY),
    { text: 'Agreed the webhook fields with colega.' },
  ]);
  early.after(() => fake.close());
  const log = join(room.root, 'papo-stdio.jsonl');
  const run = opencodeTurn(early, {
    cli: c,
    root: room.root,
    project: room.members.voce.project,
    papoHome: room.members.voce.home,
    fake,
    prompt: PROMPT,
    installEnv: { PAPO_INSTALL_COMMAND: recorderCommand(log) },
  });

  // opencode started voce's papo: once the model's wait is running, colega writes.
  const { askId, answer, ms } = await askWhileWaiting(colega, log, ASK);
  t.diagnostic(`round trip (colega's send to voce's answer at colega): ${ms} ms`);
  assert.ok(answer.includes(REPLY), answer);
  assert.match(answer, new RegExp(`\\[msg_id=[0-9a-f]{10} from=voce \\(agent\\)[^\\]]*reply_to=${askId}`));

  const result = await run;
  t.diagnostic(`opencode ${c.version} run took ${result.ms} ms`);
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);

  const turns = fake.turnRequests().map((r) => r.body);
  assert.equal(turns.length, 3, `model turns: ${turns.length}`);
  const [first, second, third] = turns as [Json, Json, Json];
  // opencode passes papo's instructions in its system prompt, and the five tools in full.
  const system = textsOf(first, 'system').join('\n');
  for (const line of instructions({ name: 'voce', roomId: room.roomId }, 'default').split('\n')) {
    if (line.trim() !== '') assert.ok(system.includes(line), `not in the system prompt: ${line}`);
  }
  const offered = toolsOffered(first);
  for (const tool of TOOLS) {
    const seen = offered.find((x) => x.name === `papo_${tool.name}`);
    assert.ok(seen !== undefined, `papo_${tool.name} not offered`);
    assert.equal(seen.description, tool.description);
    assert.deepEqual(Object.keys(seen.parameters.properties ?? {}), Object.keys(tool.inputSchema.properties));
  }
  const waited = toolResults(second).at(-1)?.text ?? '';
  assert.ok(waited.startsWith(UNTRUSTED_NOTICE), waited);
  assert.ok(waited.includes(`[msg_id=${askId} from=colega (agent)`), waited);
  assert.ok(waited.includes(ASK), waited);
  const sent = toolResults(third).at(-1)?.text ?? '';
  assert.equal(sent, delivered('colega', msgIdIn(sent)));
  assert.ok(
    result.events.some((e) => e.type === 'text' && e.part?.text === 'Agreed the webhook fields with colega.'),
  );

  const initialize = recordedLines(log).find((l) => l.dir === 'in' && l.msg.method === 'initialize')?.msg;
  t.diagnostic(`opencode's initialize: ${JSON.stringify(initialize?.params)}`);
  t.diagnostic(
    `side requests: ${fake.requests.filter((r) => r.kind !== 'turn').map((r) => `${r.kind} ${r.path}`)}`,
  );
  t.diagnostic(`refused outside connections: ${result.setup.refused.join(', ') || 'none'}`);
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived opencode run');
});

test('a secret reaches papo mcp by its {env:NAME} reference, never written; papo’s tools run where the config asks before every tool', {
  skip,
}, async (t) => {
  const c = cli as AgentCli;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const fake = await startFakeChatCompletions([
    { tools: [{ name: 'papo_status', args: {} }] },
    // Not papo's: opencode must still ask for this one, and `opencode run` refuses what asks.
    { tools: [{ name: 'bash', args: { command: 'echo not-allowed', description: 'Echo' } }] },
  ]);
  early.after(() => fake.close());
  const dump = join(room.root, 'papo-env.txt');
  // A token bound to the room's signal server, as papo wants it (ORIGIN=TOKEN).
  const secret = `${room.signalUrl}=tok-opencode-reference-9f3a`;
  const result = await opencodeTurn(early, {
    cli: c,
    root: room.root,
    project: room.members.voce.project,
    papoHome: room.members.voce.home,
    fake,
    prompt: 'Who is in the papo room?',
    env: { PAPO_SIGNAL_TOKEN: secret },
    userConfig: { permission: { '*': 'ask' } },
    // papo mcp behind a shell that writes down the environment it was started with.
    installEnv: {
      PAPO_INSTALL_COMMAND: `/bin/sh -c 'env > "$0"; exec "$@"' ${dump} ${process.execPath} ${PAPO_BIN}`,
    },
  });
  const file = readFileSync(join(room.members.voce.project, 'opencode.json'), 'utf8');
  assert.ok(!file.includes(secret), 'the secret was written into opencode.json');
  assert.equal(JSON.parse(file).mcp.papo.environment.PAPO_SIGNAL_TOKEN, '{env:PAPO_SIGNAL_TOKEN}');
  const env = readFileSync(dump, 'utf8').split('\n');
  assert.ok(env.includes(`PAPO_SIGNAL_TOKEN=${secret}`), 'papo mcp did not get the secret');

  const turns = fake.turnRequests().map((r) => r.body);
  assert.equal(turns.length, 2, `${result.stdout}\n${result.stderr}`);
  const status = toolResults(turns[1]).at(-1)?.text ?? '';
  assert.match(status, /^You are "voce" in room [0-9a-f]{8}/m, status);
  assert.match(`${result.stdout}${result.stderr}`, /rejected permission/);
  t.diagnostic(`refused outside connections: ${result.setup.refused.join(', ') || 'none'}`);
});
