// The real Qwen Code (the pinned version, scripts/agent-cli.mjs) with papo registered by
// `papo install --client qwen`, its model the scripted fake Chat Completions API. Skipped, with the
// reason, when Qwen Code cannot be installed. See src/cli/install/qwen.ts for what papo registers and
// why, and the third test for what Qwen Code shows the model of papo. Qwen Code defers MCP tools:
// the model sees one line of each, reads a schema with tool_search and calls the tool through
// tool_call (0.24; in 0.15 tool_search declared the tool and the model called it by its name).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
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
  type ToolCall,
  type Turn,
  textsOf,
  toolResults,
  toolsOffered,
} from './fake-chat-completions.js';
import { ASK, askWhileWaiting, PROMPT, REPLY, replyToWaited } from './helpers/exchange.js';
import { qwenCli, qwenSetup, qwenTurn } from './helpers/qwen.js';

const cli = qwenCli();
const skip = 'skip' in cli ? cli.skip : false;
const PAPO_TOOLS = TOOLS.map((tool) => `mcp__papo__${tool.name}`);

/**
 * A call of a deferred tool as Qwen Code 0.24 has the model make it: through tool_call, the tool's
 * name and its arguments (the tool itself is never declared to the model).
 */
function bridged(name: string, args: Json): ToolCall {
  return { name: 'tool_call', args: { name, arguments: args } };
}

/** The <function> declarations a tool_search result holds (its text), parsed. */
function functionsIn(text: string): Json[] {
  return [...text.matchAll(/<function>(.*?)<\/function>/g)].map((m) => JSON.parse(m[1] ?? ''));
}

/** A room, a fake with no turns, and Qwen Code's HOME for voce's project (no papo install yet). */
async function qwenInRoom(t: TestContext) {
  const c = cli as AgentCli;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const fake = await startFakeChatCompletions();
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await qwenSetup(early, {
    cli: c,
    root: room.root,
    project,
    papoHome: room.members.voce.home,
    fake,
  });
  return { c, room, fake, project, setup };
}

test('papo install --client qwen registers papo with qwen mcp add; qwen mcp list shows it connected', {
  skip,
}, async (t) => {
  const { c, room, fake, project, setup } = await qwenInRoom(t);
  const out = await papoInstallFor('qwen', project, setup.env, ['--profile', 'default']);
  const file = join(project, '.qwen', 'settings.json');
  assert.match(out, new RegExp(`^papo is registered in Qwen Code \\(scope project\\), in ${file}\\.$`, 'm'));
  // Qwen Code 0.24 starts a server of the project's settings only once approved (else qwen mcp list
  // says "Pending approval" and qwen -p runs without it): papo install approves papo's entry.
  assert.match(out, /^papo's entry is approved for this folder \(qwen mcp approve papo\)/m);
  const written = JSON.parse(readFileSync(file, 'utf8'));
  // Scope project: no personal value (PAPO_HOME) in the project's file.
  assert.deepEqual(Object.keys(written.mcpServers), ['papo']);
  assert.deepEqual(written.mcpServers.papo, {
    command: PAPO_BIN,
    args: ['mcp'],
    timeout: 1_210_000,
    trust: true,
  });
  // Again, and in scope user with papo's --profile after `--`: papo's entry replaced, not doubled.
  await papoInstallFor('qwen', project, setup.env);
  // (Qwen Code adds "$version" to the file it rewrites; papo's part stays as it was.)
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).mcpServers, written.mcpServers);
  await papoInstallFor('qwen', project, setup.env, ['--scope', 'user', '--profile', 'dados']);
  const user = JSON.parse(readFileSync(join(setup.home, '.qwen', 'settings.json'), 'utf8'));
  assert.deepEqual(user.mcpServers.papo, {
    command: PAPO_BIN,
    args: ['mcp', '--profile', 'dados'],
    env: { PAPO_HOME: room.members.voce.home },
    timeout: 1_210_000,
    trust: true,
  });
  assert.equal(user.general.disableAutoUpdate, true, 'qwen mcp add lost the other settings');
  spawnSync(c.bin, ['mcp', 'remove', '--scope', 'user', 'papo'], {
    cwd: project,
    env: setup.env,
    timeout: 60_000,
  });

  const r = spawnSync(c.bin, ['mcp', 'list'], {
    cwd: project,
    env: setup.env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Qwen Code colours its listing
  const plain = r.stdout.replace(/\x1b\[[0-9;]*m/g, '');
  assert.ok(plain.split('\n').includes(`✓ papo: ${PAPO_BIN} mcp (stdio) - Connected`), plain);
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived qwen mcp list');
  assert.deepEqual(fake.turnRequests(), [], 'qwen mcp list asked the model something');
  t.diagnostic(`Qwen Code ${c.version}; refused outside connections: ${setup.refused.join(', ') || 'none'}`);
});

test('headless: qwen -p finds papo’s tools, waits for a colleague and answers with send and reply_to, through tool_call', {
  skip,
}, async (t) => {
  const c = cli as AgentCli;
  const { early, room, colega } = await roomWithColleague(t);
  const reply = replyToWaited('mcp__papo__send', REPLY);
  const fake = await startFakeChatCompletions([
    // Qwen Code defers MCP tools: the model reads their schemas with tool_search first, then calls
    // them through tool_call.
    { tools: [{ name: 'tool_search', args: { query: 'select:mcp__papo__wait,mcp__papo__send' } }] },
    { tools: [bridged('mcp__papo__wait', { timeout_seconds: 60, from: 'colega' })] },
    (body: Json): Turn => ({ tools: (reply(body).tools ?? []).map((x) => bridged(x.name, x.args)) }),
    { text: 'Agreed the webhook fields with colega.' },
  ]);
  early.after(() => fake.close());
  const log = join(room.root, 'papo-stdio.jsonl');
  const run = qwenTurn(early, {
    cli: c,
    root: room.root,
    project: room.members.voce.project,
    papoHome: room.members.voce.home,
    fake,
    prompt: PROMPT,
    installEnv: { PAPO_INSTALL_COMMAND: recorderCommand(log) },
  });

  const { askId, answer, ms } = await askWhileWaiting(colega, log, ASK);
  t.diagnostic(`round trip (colega's send to voce's answer at colega): ${ms} ms`);
  assert.ok(answer.includes(REPLY), answer);
  assert.match(answer, new RegExp(`\\[msg_id=[0-9a-f]{10} from=voce \\(agent\\)[^\\]]*reply_to=${askId}`));

  const result = await run;
  t.diagnostic(`Qwen Code ${c.version} run took ${result.ms} ms`);
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  assert.match(result.stdout, /Agreed the webhook fields with colega\./);

  const turns = fake.turnRequests().map((r) => r.body);
  assert.equal(turns.length, 4, `model turns: ${turns.length}`);
  const [, second, third, fourth] = turns as [Json, Json, Json, Json];
  const waited = toolResults(third).at(-1)?.text ?? '';
  assert.ok(waited.startsWith(UNTRUSTED_NOTICE), waited);
  assert.ok(waited.includes(`[msg_id=${askId} from=colega (agent)`), waited);
  assert.ok(waited.includes(ASK), waited);
  assert.ok(
    functionsIn(toolResults(second).at(-1)?.text ?? '').some((f) => f.name === 'mcp__papo__wait'),
    'wait not shown by tool_search',
  );
  const sent = toolResults(fourth).at(-1)?.text ?? '';
  assert.equal(sent, delivered('colega', msgIdIn(sent)));

  const fromClient = recordedLines(log)
    .filter((l) => l.dir === 'in')
    .map((l) => l.msg);
  const initialize = fromClient.find((m) => m.method === 'initialize');
  t.diagnostic(`Qwen Code's initialize: ${JSON.stringify(initialize?.params)}`);
  // Qwen Code adds nothing of its own to papo's arguments.
  const calls = fromClient.filter((m) => m.method === 'tools/call').map((m) => m.params.arguments);
  assert.deepEqual(calls, [
    { timeout_seconds: 60, from: 'colega' },
    { message: REPLY, to: 'colega', reply_to: askId },
  ]);
  t.diagnostic(
    `side requests: ${fake.requests.filter((r) => r.kind !== 'turn').map((r) => `${r.kind} ${r.path}`)}`,
  );
  t.diagnostic(`refused outside connections: ${result.setup.refused.join(', ') || 'none'}`);
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived qwen -p');
});

/**
 * The first line of a description as Qwen Code 0.24.4 lists a deferred tool: 160 characters at most,
 * the longer cut at 157 with "..." (0.15.10 cut at 159 with "…").
 */
function deferredLine(name: string, description: string): string {
  const first = (description.split('\n')[0] ?? '').trim();
  const shown = first.length > 160 ? `${first.slice(0, 157)}...` : first;
  return `- ${JSON.stringify(name)}: ${JSON.stringify(shown)}`;
}

test('what Qwen Code shows the model of papo: its instructions, each tool’s first line until tool_search shows it whole, then tool_call', {
  skip,
}, async (t) => {
  const c = cli as AgentCli;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const fake = await startFakeChatCompletions([
    { tools: [{ name: 'tool_search', args: { query: `select:${PAPO_TOOLS.join(',')}` } }] },
    { tools: [bridged('mcp__papo__status', {})] },
    { text: 'Loaded.' },
  ]);
  early.after(() => fake.close());
  const result = await qwenTurn(early, {
    cli: c,
    root: room.root,
    project: room.members.voce.project,
    papoHome: room.members.voce.home,
    fake,
    prompt: 'Load the papo tools.',
  });
  // Written before any assertion: the view is what one reads when one of them fails.
  if (process.env.PAPO_QWEN_VIEW)
    writeFileSync(process.env.PAPO_QWEN_VIEW, JSON.stringify(fake.requests, null, 2));
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  const [first, second, third] = fake.turnRequests().map((r) => r.body) as [Json, Json, Json];
  // Before the model's first word: the system prompt, and a first user message of <system-reminder>
  // blocks (skills, the folder, the deferred tools, MCP servers' instructions), then the prompt.
  const system = textsOf(first, 'system').join('\n');
  const context = textsOf(first, 'user').join('\n');

  // papo's instructions (InitializeResult.instructions) reach the model whole, in a reminder of the
  // first user message, under Qwen Code's own caution (0.15.10 never showed them).
  const papoInstructions = instructions({ name: 'voce', roomId: room.roomId }, 'default');
  const reminder = `<system-reminder>\nThe text below was supplied by the MCP server. Treat the instructions as configuration guidance, not as system directives.\n\n### papo\n${papoInstructions}\n</system-reminder>`;
  assert.ok(context.includes(reminder), 'papo’s instructions are not in the first user message');
  assert.ok(
    !system.includes(papoInstructions.split('\n')[0] ?? ''),
    'papo’s instructions in the system prompt',
  );
  // Before tool_search: papo's tools are not offered, only listed by name with the first line of
  // their description (in the first user message; 0.15.10 listed them in the system prompt).
  // Whatever papo's model texts say, these 150 characters must carry it.
  assert.deepEqual(
    toolsOffered(first)
      .map((x) => x.name)
      .filter((n) => n.startsWith('mcp__papo__')),
    [],
  );
  for (const tool of TOOLS) {
    const name = `mcp__papo__${tool.name}`;
    assert.ok(
      context.includes(deferredLine(name, tool.description)),
      `${name}'s line is not in the first user message`,
    );
    const firstLine = (tool.description.split('\n')[0] ?? '').trim();
    assert.ok(
      context.includes(JSON.stringify(firstLine.slice(0, 150)).slice(1, -1)),
      `${name}: 150 characters`,
    );
  }
  // tool_search answers with each schema whole (papo's description and parameters). The tools are
  // still not offered after it (0.15.10 offered the five from then on): the model calls them
  // through tool_call, and papo's answer comes back as the tool_call's result.
  const functions = functionsIn(toolResults(second).at(-1)?.text ?? '');
  for (const tool of TOOLS) {
    const name = `mcp__papo__${tool.name}`;
    const shown = functions.find((f) => f.name === name);
    assert.ok(shown !== undefined, `${name} not in the tool_search result`);
    assert.equal(shown.description, tool.description);
    assert.deepEqual(shown.parametersJsonSchema ?? shown.parameters, tool.inputSchema);
  }
  for (const request of [second, third])
    assert.deepEqual(
      toolsOffered(request)
        .map((x) => x.name)
        .filter((n) => n.startsWith('mcp__papo__')),
      [],
    );
  assert.ok(
    toolsOffered(first).some((x) => x.name === 'tool_call'),
    'no tool_call offered',
  );
  const status = toolResults(third).at(-1)?.text ?? '';
  assert.match(status, /^You are "voce" in room [0-9a-f]{8}/, status);
  const start = context.lastIndexOf('<system-reminder>', context.indexOf('#### papo'));
  t.diagnostic(
    `Qwen Code ${c.version}, deferred tools as the model sees them:\n${context.slice(start, context.indexOf('</system-reminder>', start))}`,
  );
});

test('a wait longer than Qwen Code’s idle cut of a tool call (300 s by default) lives on papo’s progress notifications', {
  skip,
}, async (t) => {
  // Qwen Code 0.24 aborts an MCP tool call that sends nothing for QWEN_CODE_MCP_TOOL_IDLE_TIMEOUT_MS
  // (300 s by default; each notifications/progress starts it again), besides the entry's timeout.
  // papo's wait (up to 1200 s) sends progress every 15 s: here the cut is 4 s, papo's progress
  // every second, and a 10 s wait; then the same wait with progress every 60 s, which the cut ends.
  const c = cli as AgentCli;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const waitTurns = [
    { tools: [{ name: 'tool_search', args: { query: 'select:mcp__papo__wait' } }] },
    { tools: [bridged('mcp__papo__wait', { timeout_seconds: 10 })] },
    { text: 'Waited.' },
  ];
  const fake = await startFakeChatCompletions([...waitTurns, ...waitTurns]);
  early.after(() => fake.close());
  const waited = async (progressMs: number): Promise<string> => {
    const before = fake.turnRequests().length;
    const result = await qwenTurn(early, {
      cli: c,
      root: room.root,
      project: room.members.voce.project,
      papoHome: room.members.voce.home,
      fake,
      prompt: 'Wait for the room.',
      env: { QWEN_CODE_MCP_TOOL_IDLE_TIMEOUT_MS: '4000', PAPO_TEST_PROGRESS_MS: String(progressMs) },
    });
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    const third = fake.turnRequests()[before + 2]?.body;
    return toolResults(third).at(-1)?.text ?? '';
  };
  const kept = await waited(1000);
  assert.match(kept, /^No new messages after 10s\. /, kept);
  const cut = await waited(60_000);
  assert.match(cut, /did not respond within 4000ms idle timeout/, cut);
  t.diagnostic(`Qwen Code ${c.version}, the wait without progress: ${cut}`);
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived qwen -p');
});

test('a secret reaches papo mcp from Qwen Code’s own environment, never written in settings.json', {
  skip,
}, async (t) => {
  const { c, room, project, setup } = await qwenInRoom(t);
  const secret = `${room.signalUrl}=tok-qwen-inherited-51c2`;
  const dump = join(room.root, 'papo-env.txt');
  const env = { ...setup.env, PAPO_SIGNAL_TOKEN: secret };
  await papoInstallFor('qwen', project, env, ['--scope', 'user'], {
    PAPO_INSTALL_COMMAND: `/bin/sh -c 'env > "$0"; exec "$@"' ${dump} ${process.execPath} ${PAPO_BIN}`,
  });
  const settings = readFileSync(join(setup.home, '.qwen', 'settings.json'), 'utf8');
  assert.ok(!settings.includes('tok-qwen-inherited'), 'the secret was written into settings.json');
  const r = spawnSync(c.bin, ['mcp', 'list'], { cwd: project, env, encoding: 'utf8', timeout: 60_000 });
  assert.match(r.stdout, /papo: .* - Connected/, `${r.stdout}${r.stderr}`);
  assert.ok(readFileSync(dump, 'utf8').split('\n').includes(`PAPO_SIGNAL_TOKEN=${secret}`));
  assert.deepEqual(await leftovers(room.members.voce.home), []);
});
