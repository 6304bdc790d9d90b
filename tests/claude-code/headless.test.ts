// The real client: the pinned Claude Code (scripts/agent-cli.mjs) with papo registered by
// `papo install`, its model replaced by the scripted fake Messages API (fake-anthropic.ts). Not a
// client speaking Claude Code's protocol, Claude Code itself: what it runs, sends in `initialize`,
// shows the model, and does with the model's tool calls. Skipped, with the reason, when Claude Code
// cannot be installed. See docs/mcp.md, "Claude Code itself".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { delivered, instructions } from '../../src/mcp/texts.js';
import { TOOLS } from '../../src/mcp/tool-list.js';
import { leftovers, runClient, stopFirst } from '../support/client-run.js';
import { msgIdIn, PAPO_BIN } from '../support/papo.js';
import { callText, makeRoom, startAgent, statusUntil } from '../support/room.js';
import { type Json, startFakeAnthropic, systemTexts, toolResults, userTexts } from './fake-anthropic.js';
import {
  type ClaudeCode,
  claudeCode,
  claudeSetup,
  loadTools,
  papoInstall,
  recordedLines,
  recorderCommand,
  streamEvents,
} from './helpers/claude.js';

const cc = claudeCode();
const skip = 'skip' in cc ? cc.skip : false;
const PAPO_TOOLS = TOOLS.map((tool) => `mcp__papo__${tool.name}`);

test('papo install registers papo in Claude Code; claude mcp list and get show it connected', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const fake = await startFakeAnthropic();
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await claudeSetup(early, {
    cc: c,
    root: room.root,
    project,
    papoHome: room.members.voce.home,
    fake,
  });

  const out = await papoInstall(project, setup.env);
  assert.match(out, /^papo is registered in Claude Code \(scope local\)\.$/m);
  const config = JSON.parse(readFileSync(join(setup.home, '.claude.json'), 'utf8'));
  assert.deepEqual(config.projects[project].mcpServers.papo, {
    type: 'stdio',
    command: PAPO_BIN,
    args: ['mcp'],
    // The profile's home written into the entry: Claude Code need not be started with PAPO_HOME.
    env: { PAPO_HOME: room.members.voce.home },
  });

  const claude = (args: string[]) => {
    const r = spawnSync(c.bin, args, { cwd: project, env: setup.env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, `claude ${args.join(' ')}: ${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  // Each of these starts `papo mcp`, initializes it and lists its tools.
  assert.ok(claude(['mcp', 'list']).split('\n').includes(`papo: ${PAPO_BIN} mcp - ✔ Connected`));
  const got = claude(['mcp', 'get', 'papo']);
  assert.match(got, /^ {2}Status: ✔ Connected$/m);
  assert.match(got, /^ {2}Scope: Local config/m);
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived claude mcp list');
  assert.deepEqual(
    fake.requests.filter((r) => r.kind === 'turn'),
    [],
    'claude mcp list/get asked the model something',
  );
});

const ASK = 'Hi, notifications agent here. Which fields does the payment.confirmed webhook carry?';
const REPLY = 'payment.confirmed carries id, amount_cents, currency and confirmed_at (ISO 8601).';

test('headless: the model finds papo’s tools and instructions, waits for a colleague and answers with send', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  // The colleague: a plain `papo mcp` driven over stdio, as in tests/mcp.
  const colega = startAgent(room, room.members.colega);
  await colega.client.initialize();

  let askId = '';
  const fake = await startFakeAnthropic([
    // Claude Code defers MCP tools: the model loads their schemas with ToolSearch first.
    loadTools(...PAPO_TOOLS),
    { tools: [{ name: 'mcp__papo__wait', input: { timeout_seconds: 60, from: 'colega' } }] },
    (body: Json) => {
      const waited = toolResults(body).at(-1)?.text ?? '';
      const id = /\[msg_id=([0-9a-f]{10}) from=colega \(agent\)/.exec(waited)?.[1] ?? 'missing';
      return { tools: [{ name: 'mcp__papo__send', input: { message: REPLY, to: 'colega', reply_to: id } }] };
    },
    { text: 'Agreed the webhook fields with colega.' },
  ]);
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await claudeSetup(early, {
    cc: c,
    root: room.root,
    project,
    papoHome: room.members.voce.home,
    fake,
  });
  const log = join(room.root, 'papo-stdio.jsonl');
  await papoInstall(project, setup.env, { PAPO_INSTALL_COMMAND: recorderCommand(log) });

  const started = Date.now();
  const run = runClient(
    early,
    'claude',
    [
      '-p',
      'Agree the payment webhook fields with the notifications agent over papo.',
      '--output-format',
      'stream-json',
      '--verbose',
      '--allowedTools',
      'mcp__papo',
    ],
    { cwd: project, env: setup.env, timeoutMs: 90_000 },
  );

  // Claude Code started voce's papo: once it is online and the model waits, colega writes.
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  for (let i = 0; !recordedLines(log).some((l) => l.dir === 'in' && l.msg.params?.name === 'wait'); i++) {
    if (i > 240) throw new Error('the model never called wait');
    await new Promise((r) => setTimeout(r, 250));
  }
  const asked = Date.now();
  askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const answer = await colega.client.waitFor(
    (m) => m.method === 'notifications/claude/channel' && m.params?.meta?.from === 'voce',
    60_000,
    'the answer of voce',
  );
  assert.equal(answer.params.content, REPLY);
  assert.equal(answer.params.meta.reply_to, askId);
  t.diagnostic(`round trip (colega's send to voce's answer at colega): ${Date.now() - asked} ms`);

  const result = await run;
  t.diagnostic(`claude -p ran ${Date.now() - started} ms`);
  assert.equal(result.code, 0, result.stderr);
  const events = streamEvents(result.stdout);
  const init = events.find((e) => e.type === 'system' && e.subtype === 'init');
  const papoServer = init.mcp_servers.find((s: Json) => s.name === 'papo');
  assert.equal(papoServer?.status, 'connected', JSON.stringify(init.mcp_servers));
  for (const name of PAPO_TOOLS) assert.ok(init.tools.includes(name), `${name} not in ${init.tools}`);
  const end = events.find((e) => e.type === 'result');
  assert.equal(end.subtype, 'success');
  assert.equal(end.result, 'Agreed the webhook fields with colega.');

  // What reached the model.
  const turns = fake.turnRequests().map((r) => r.body);
  assert.equal(turns.length, 4, `model turns: ${turns.length}`);
  const [first, second, third, fourth] = turns as [Json, Json, Json, Json];
  const system = systemTexts(first).join('\n');
  const expected = instructions({ name: 'voce', roomId: room.roomId }, 'default');
  if (!system.includes('# MCP Server Instructions'))
    // Seen once in CI under twice the usual load: what the first request carried instead, for the why.
    t.diagnostic(
      `the first request's system texts (${system.length} chars), headings: ${JSON.stringify(system.match(/^#+ .*$/gm))}; each request has the section: ${turns.map((b) => systemTexts(b).join('\n').includes('# MCP Server Instructions'))}`,
    );
  assert.ok(system.includes('# MCP Server Instructions'), 'no MCP Server Instructions section');
  assert.ok(system.includes(`## papo\n${expected}`), 'papo’s instructions are not in the system text');
  // Before ToolSearch the model knows the names only...
  for (const name of PAPO_TOOLS) assert.ok(system.includes(name), `${name} is not named to the model`);
  // ...after it, each tool with papo's description and schema.
  for (const tool of TOOLS) {
    const seen = second.tools.find((x: Json) => x.name === `mcp__papo__${tool.name}`);
    assert.ok(seen !== undefined, `mcp__papo__${tool.name} not loaded by ToolSearch`);
    assert.equal(seen.description, tool.description);
    assert.deepEqual(seen.input_schema, tool.inputSchema);
  }
  const waited = toolResults(third).at(-1);
  assert.equal(waited?.isError, false);
  assert.ok(waited?.text.includes(`[msg_id=${askId} from=colega (agent)`), waited?.text);
  assert.ok(waited?.text.includes(ASK), waited?.text);
  const sent = toolResults(fourth).at(-1);
  assert.equal(sent?.text, delivered('colega', msgIdIn(sent?.text ?? '')));

  // What Claude Code sent papo to start with, for docs/mcp.md.
  const lines = recordedLines(log);
  const fromClient = lines.filter((l) => l.dir === 'in').map((l) => l.msg);
  const initialize = fromClient.find((m) => m.method === 'initialize');
  // The message arrived while the model's `wait` was in flight: the wait returned it, and papo did
  // not push it (ADR 0066). (`claude -p` drops pushes anyway: docs/mcp.md, measured on 2.1.332.)
  const pushed = lines.filter((l) => l.dir === 'out' && l.msg.method === 'notifications/claude/channel');
  assert.deepEqual(
    pushed.map((l) => l.msg.params.meta.msg_id),
    [],
  );
  for (const body of turns)
    assert.ok(!userTexts(body).some((x) => x.includes('<channel source="papo"')), 'a push reached claude -p');
  t.diagnostic(`Claude Code ${c.version} wrote first: ${JSON.stringify(fromClient.slice(0, 4))}`);
  assert.equal(initialize.params.clientInfo.name, 'claude-code');
  assert.equal(initialize.params.clientInfo.version, c.version);
  assert.equal(initialize.params.protocolVersion, '2025-11-25');
  t.diagnostic(`refused outside connections: ${setup.connects.join(', ') || 'none'}`);
  t.diagnostic(`side requests: ${fake.requests.filter((r) => r.kind !== 'turn').length}`);
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived claude -p');
});
