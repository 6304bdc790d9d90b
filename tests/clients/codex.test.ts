// The real Codex CLI (the pinned version of scripts/agent-cli.mjs) with papo registered by
// `papo install --client codex`, its model replaced by the scripted fake Responses API
// (fake-openai.ts): what Codex starts, shows the model, and does with the model's tool calls.
// Skipped, with the reason, when Codex cannot be installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { delivered, instructions, UNTRUSTED_NOTICE } from '../../src/mcp/texts.js';
import { TOOL_NAMES } from '../../src/mcp/tool-list.js';
import { roomWithColleague } from '../claude-code/helpers/claude.js';
import type { AgentCli } from '../support/agent-cli.js';
import { leftovers, papoInstallFor, stopFirst } from '../support/client-run.js';
import { msgIdIn, PAPO_BIN, runPapo } from '../support/papo.js';
import { callText, makeRoom, startAgent, statusUntil } from '../support/room.js';
import { functionOutputs, type Json, namespaceTools, papoCall, startFakeOpenAI } from './fake-openai.js';
import { codexCli, codexSetup, codexTurn, mcpServerStatus, mcpToolCalls, runCodex } from './helpers/codex.js';
import { ASK, colegaMsgId, PROMPT, REPLY, tokenSignalServer } from './helpers/exchange.js';

const found = codexCli();
const skip = 'skip' in found ? found.skip : false;
const cli = found as AgentCli;

test('papo install --client codex: codex mcp list shows papo; Codex’s app server has it connected with its 5 tools', {
  skip,
}, async (t) => {
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const fake = await startFakeOpenAI();
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await codexSetup(early, { cli, root: room.root, fake, papoHome: room.members.voce.home });

  const out = await papoInstallFor('codex', project, setup.env);
  assert.match(out, /^papo is registered in Codex CLI \(.*config\.toml, \[mcp_servers\.papo\]\)\.$/m);

  const list = spawnSync(cli.bin, ['mcp', 'list'], { cwd: project, env: setup.env, encoding: 'utf8' });
  assert.equal(list.status, 0, list.stderr);
  const row = list.stdout.split('\n').find((l) => l.startsWith('papo '));
  // Codex masks env values in its listing.
  assert.match(row ?? '', new RegExp(`^papo +${PAPO_BIN} +mcp +PAPO_HOME=\\*+ +- +enabled `), list.stdout);

  // codex mcp list reads the configuration only; the app server starts papo in a thread.
  const servers = await mcpServerStatus(early, setup, project);
  const papo = servers.find((s: Json) => s.name === 'papo');
  assert.ok(papo, JSON.stringify(servers));
  assert.equal(papo.runtimeStatus, 'connected');
  assert.equal(papo.serverInfo?.name, 'papo');
  assert.equal(papo.toolsError, null);
  assert.deepEqual(Object.keys(papo.tools).sort(), [...TOOL_NAMES].sort());
  assert.deepEqual(fake.turnRequests(), [], 'listing the servers asked the model something');
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived the app server');
  t.diagnostic(`Codex ${cli.version}; refused outside connections: ${setup.connects.join(', ') || 'none'}`);
});

test('headless: codex exec waits for a colleague with papo’s wait and answers with send and reply_to', {
  skip,
}, async (t) => {
  const { early, room, colega } = await roomWithColleague(t);
  const fake = await startFakeOpenAI([
    { tools: [papoCall('wait', { timeout_seconds: 60, from: 'colega' })] },
    (body: Json) => {
      const id = colegaMsgId(functionOutputs(body).at(-1)?.text ?? '');
      return { tools: [papoCall('send', { message: REPLY, to: 'colega', reply_to: id })] };
    },
    { text: 'Agreed the webhook fields with colega.' },
  ]);
  early.after(() => fake.close());
  // The helper a test with several clients uses: setup, papo install, one codex exec turn.
  const run = codexTurn(early, {
    cli,
    root: room.root,
    project: room.members.voce.project,
    papoHome: room.members.voce.home,
    fake,
    prompt: PROMPT,
  });
  // Codex started voce's papo: once it is online, colega writes (wait returns a message already
  // waiting at once, so the order of the two does not matter).
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  const started = Date.now();
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const answer = await callText(colega.client, 'wait', { timeout_seconds: 60, from: 'voce' });
  const roundTrip = Date.now() - started;
  assert.ok(answer.includes(REPLY), answer);
  assert.ok(answer.includes(`reply_to=${askId}`), answer);

  const result = await run;
  t.diagnostic(
    `Codex ${cli.version}: colega's send to voce's answer ${roundTrip} ms; codex exec ran ${result.ms} ms`,
  );
  assert.equal(result.code, 0, result.stderr);
  const calls = mcpToolCalls(result);
  assert.deepEqual(
    calls.map((c) => `${c.server}.${c.tool} ${c.status}`),
    ['papo.wait completed', 'papo.send completed'],
  );
  const last = result.events
    .filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message')
    .at(-1);
  assert.equal(last?.item.text, 'Agreed the webhook fields with colega.');

  // What reached the model.
  const turns = fake.turnRequests().map((r) => r.body);
  assert.equal(turns.length, 3, `model turns: ${turns.length}`);
  const [first, second, third] = turns as [Json, Json, Json];
  const ns = (first.tools as Json[]).find((x) => x.type === 'namespace' && x.name === 'mcp__papo');
  assert.equal(ns?.description, instructions({ name: 'voce', roomId: room.roomId }, 'default'));
  assert.deepEqual(
    namespaceTools(first, 'mcp__papo')
      .map((x: Json) => x.name)
      .sort(),
    [...TOOL_NAMES].sort(),
  );
  const waitSchema = namespaceTools(first, 'mcp__papo').find((x: Json) => x.name === 'wait')?.parameters;
  t.diagnostic(`wait's schema as Codex shows it: ${JSON.stringify(waitSchema)}`);
  const waited = functionOutputs(second).at(-1);
  assert.equal(waited?.name, 'wait');
  assert.equal(waited?.namespace, 'mcp__papo');
  assert.ok(waited?.text.includes(UNTRUSTED_NOTICE), waited?.text);
  assert.ok(waited?.text.includes(`[msg_id=${askId} from=colega (agent)`), waited?.text);
  assert.ok(waited?.text.includes(ASK), waited?.text);
  const sent = functionOutputs(third).at(-1);
  assert.equal(sent?.name, 'send');
  assert.ok(sent?.text.endsWith(delivered('colega', msgIdIn(sent?.text ?? ''))), sent?.text);
  t.diagnostic(`refused outside connections: ${result.connects.join(', ') || 'none'}`);
  t.diagnostic(
    `other requests: ${
      fake.requests
        .filter((r) => r.kind !== 'turn')
        .map((r) => `${r.method} ${r.path}`)
        .join(', ') || 'none'
    }`,
  );
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived codex exec');
});

const TOKEN = 'codex-test-token-not-secret';

test('Codex passes PAPO_SIGNAL_TOKEN from its environment (env_vars), approves papo’s tools only, reads tool_timeout_sec 1210', {
  skip,
}, async (t) => {
  const early = stopFirst(t);
  const room = await makeRoom(t);
  // The room's signal server requires a token: started before any papo mcp, on the room's port,
  // so that no embedded server takes it.
  await tokenSignalServer(t, room, TOKEN);
  const bound = `${room.signalUrl}=${TOKEN}`;
  // Without the token, voce's papo is refused: what Codex must pass on.
  const refused = await runPapo(['status', '--timeout', '2'], {
    env: { PATH: process.env.PATH ?? '', LANG: 'C', PAPO_HOME: room.members.voce.home },
    timeoutMs: 60_000,
  });
  assert.match(`${refused.stdout}${refused.stderr}`, /requires a token/);

  const colega = startAgent(room, room.members.colega, { PAPO_SIGNAL_TOKEN: bound });
  await colega.client.initialize();
  const fake = await startFakeOpenAI([
    // Another MCP server's tool that needs approval: refused, papo's approval is not Codex's.
    { tools: [papoCall('inbox', {}, 'other')] },
    { tools: [papoCall('wait', { timeout_seconds: 60, from: 'colega' })] },
    { text: 'Read the question of colega.' },
  ]);
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await codexSetup(early, { cli, root: room.root, fake, papoHome: room.members.voce.home });
  // The other server: a papo mcp of an empty home, registered with Codex's own command.
  const otherHome = join(room.root, 'home-other');
  mkdirSync(otherHome);
  const other = spawnSync(
    cli.bin,
    ['mcp', 'add', 'other', '--env', `PAPO_HOME=${otherHome}`, '--', process.execPath, PAPO_BIN, 'mcp'],
    { env: setup.env, encoding: 'utf8' },
  );
  assert.equal(other.status, 0, other.stderr);
  // papo install sees the token where it runs, and writes its name only.
  await papoInstallFor('codex', project, setup.env, [], { PAPO_SIGNAL_TOKEN: bound });
  const config = readFileSync(join(setup.codexHome, 'config.toml'), 'utf8');
  assert.ok(!config.includes(TOKEN), 'the token was written into config.toml');
  assert.match(config, /^env_vars = \["PAPO_SIGNAL_TOKEN"\]$/m);
  // The timeout and approvals, as Codex reads them: papo's entry only.
  const get = (name: string) => {
    const r = spawnSync(cli.bin, ['mcp', 'get', name, '--json'], { env: setup.env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  assert.equal(get('papo').tool_timeout_sec, 1210);
  assert.equal(get('other').tool_timeout_sec, null);

  // The token is in Codex's environment, not in its configuration.
  const run = runCodex(early, setup, {
    cwd: project,
    prompt: PROMPT,
    timeoutMs: 120_000,
    env: { PAPO_SIGNAL_TOKEN: bound },
  });
  // voce online for colega: voce's papo met colega through the server that requires the token.
  await statusUntil(colega.client, /voce \(agent\): online/, 60_000);
  const askId = msgIdIn(await callText(colega.client, 'send', { message: ASK, to: 'voce' }));
  const result = await run;
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(
    mcpToolCalls(result).map((c) => `${c.server}.${c.tool} ${c.status}`),
    ['other.inbox failed', 'papo.wait completed'],
  );
  const [, second, third] = fake.turnRequests().map((r) => r.body) as [Json, Json, Json];
  const refusedCall = functionOutputs(second).at(-1);
  assert.equal(refusedCall?.namespace, 'mcp__other');
  assert.match(refusedCall?.text ?? '', /MCP tool call requires approval, but approval policy is never/);
  const waited = functionOutputs(third).at(-1)?.text ?? '';
  assert.ok(waited.includes(`[msg_id=${askId} from=colega (agent)`), waited);
  assert.ok(waited.includes(ASK), waited);
  t.diagnostic(`refused outside connections: ${setup.connects.join(', ') || 'none'}`);
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived codex exec');
  assert.deepEqual(await leftovers(otherHome), [], 'the other server outlived codex exec');
});
