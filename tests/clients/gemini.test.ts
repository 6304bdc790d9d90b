// The real Gemini CLI (pinned in scripts/agent-cli.mjs) with papo registered by
// `papo install --client gemini`, its model replaced by the scripted fake Gemini API
// (fake-gemini.ts). Skipped, with the reason, when Gemini CLI cannot be installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { delivered, instructions, UNTRUSTED_NOTICE } from '../../src/mcp/texts.js';
import { TOOLS } from '../../src/mcp/tool-list.js';
import { recordedLines, recorderCommand } from '../claude-code/helpers/claude.js';
import { type AgentCli, agentCli } from '../support/agent-cli.js';
import { leftovers, papoInstallFor, stopFirst } from '../support/client-run.js';
import { msgIdIn } from '../support/papo.js';
import { makeRoom, startAgent } from '../support/room.js';
import { declarations, functionResponses, type Json, startFakeGemini, userTexts } from './fake-gemini.js';
import { ASK, askWhileWaiting, colegaMsgId, PROMPT, REPLY, tokenSignalServer } from './helpers/exchange.js';
import { geminiSetup, geminiTurn } from './helpers/gemini.js';

const cli = agentCli('gemini');
const skip = 'skip' in cli ? cli.skip : false;
const PAPO_TOOLS = TOOLS.map((tool) => `mcp_papo_${tool.name}`);

test('papo install --client gemini registers papo; gemini mcp list shows it connected only in a trusted folder', {
  skip,
  timeout: 120_000,
}, async (t) => {
  const c = cli as AgentCli;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const fake = await startFakeGemini();
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await geminiSetup(early, { cli: c, root: room.root, papoHome: room.members.voce.home, fake });
  const log = join(room.root, 'papo-stdio.jsonl');
  const out = await papoInstallFor('gemini', project, {
    ...setup.env,
    PAPO_INSTALL_COMMAND: recorderCommand(log),
  });
  const settingsFile = join(setup.home, '.gemini', 'settings.json');
  assert.match(
    out,
    new RegExp(`^papo is registered in Gemini CLI \\(scope user, ${settingsFile}\\)\\.$`, 'm'),
  );
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  // What papo install set before stays (the fake's auth, no telemetry...).
  assert.equal(settings.security.auth.selectedType, 'gemini-api-key');
  assert.equal(settings.telemetry.enabled, false);
  assert.deepEqual(Object.keys(settings.mcpServers), ['papo']);
  assert.equal(settings.mcpServers.papo.trust, true);
  assert.equal(settings.mcpServers.papo.timeout, 1_210_000);
  assert.deepEqual(settings.mcpServers.papo.env, { PAPO_HOME: room.members.voce.home });

  const gemini = (args: string[], env: NodeJS.ProcessEnv = setup.env) => {
    const r = spawnSync(c.bin, args, { cwd: project, env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, `gemini ${args.join(' ')}: ${r.stdout}${r.stderr}`);
    return `${r.stdout}${r.stderr}`;
  };
  // In a folder the person has not trusted, Gemini CLI shows papo but does not start it.
  const untrusted = gemini(['mcp', 'list']);
  assert.match(untrusted, /MCP servers are configured but disabled because this folder is untrusted/);
  assert.match(untrusted, /^○ papo: .* \(stdio\) - Disabled$/m);
  assert.deepEqual(recordedLines(log), [], 'Gemini CLI started papo in an untrusted folder');
  // Trusted (here for this run only, as --skip-trust does), it starts papo and lists its tools.
  const listed = gemini(['mcp', 'list'], { ...setup.env, GEMINI_CLI_TRUST_WORKSPACE: 'true' });
  assert.match(listed, /^✓ papo: .* mcp \(stdio\) - Connected$/m);
  // `gemini mcp list` connects (initialize) and pings, nothing more: papo's five tools are shown
  // to the model in the headless test below. Its connect timeout is the entry's `timeout`.
  const lines = recordedLines(log);
  const init = lines.find((l) => l.dir === 'in' && l.msg.method === 'initialize')?.msg;
  assert.equal(init?.params.clientInfo.name, 'mcp-test-client');
  const served = lines.find((l) => l.dir === 'out' && l.msg.id === init?.id)?.msg;
  assert.equal(served?.result.serverInfo.name, 'papo');
  const ping = lines.find((l) => l.dir === 'in' && l.msg.method === 'ping')?.msg;
  assert.deepEqual(
    lines.find((l) => l.dir === 'out' && ping !== undefined && l.msg.id === ping.id)?.msg.result,
    {},
  );
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived gemini mcp list');
  assert.deepEqual(fake.turnRequests(), [], 'gemini mcp list asked the model something');

  // Again: papo's entry is replaced, not doubled, and nothing else changes.
  await papoInstallFor('gemini', project, { ...setup.env, PAPO_INSTALL_COMMAND: recorderCommand(log) });
  assert.deepEqual(JSON.parse(readFileSync(settingsFile, 'utf8')), settings);
  t.diagnostic(
    `Gemini CLI ${c.version}; refused outside connections: ${setup.connects.join(', ') || 'none'}`,
  );
});

const TOKEN = 'signal-token-for-this-test-only';

test('headless: Gemini CLI’s model gets papo’s 5 tools and instructions, waits for a colleague and answers with send, through a signal server that requires a token', {
  skip,
  timeout: 180_000,
}, async (t) => {
  const c = cli as AgentCli;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  // The room's signal server requires a token: papo mcp reaches it only with PAPO_SIGNAL_TOKEN,
  // which Gemini CLI hides from MCP servers unless papo's entry passes it by reference.
  await tokenSignalServer(early, room, TOKEN);
  const memberToken = `${room.signalUrl}=${TOKEN}`;
  const colega = startAgent(room, room.members.colega, { PAPO_SIGNAL_TOKEN: memberToken });
  await colega.client.initialize();

  const fake = await startFakeGemini([
    // Gemini CLI asks its model to set wait_for_previous on dependent calls, and passes it on.
    {
      calls: [
        { name: 'mcp_papo_wait', args: { timeout_seconds: 60, from: 'colega', wait_for_previous: true } },
      ],
    },
    (body: Json) => {
      const id = colegaMsgId(JSON.stringify(functionResponses(body).at(-1)?.response ?? ''));
      return {
        calls: [
          {
            name: 'mcp_papo_send',
            args: { message: REPLY, to: 'colega', reply_to: id, wait_for_previous: true },
          },
        ],
      };
    },
    { text: 'Agreed the webhook fields with colega.' },
  ]);
  early.after(() => fake.close());
  const log = join(room.root, 'papo-stdio.jsonl');

  const started = Date.now();
  const run = geminiTurn(early, {
    cli: c,
    root: room.root,
    project: room.members.voce.project,
    papoHome: room.members.voce.home,
    fake,
    prompt: PROMPT,
    env: { PAPO_SIGNAL_TOKEN: memberToken, PAPO_INSTALL_COMMAND: recorderCommand(log) },
  });

  // Gemini CLI started voce's papo: once it is online and the model waits, colega writes.
  const { askId, answer, ms } = await askWhileWaiting(colega, log, ASK);
  t.diagnostic(`round trip: colega's send to voce's answer ${ms} ms`);
  assert.ok(answer.includes(REPLY), answer);
  assert.match(answer, new RegExp(`from=voce \\(agent\\)[^\\n]*reply_to=${askId}`));

  const result = await run;
  t.diagnostic(`Gemini CLI ${c.version}: gemini -p ran ${Date.now() - started} ms`);
  assert.equal(result.code, 0, `${result.stdout}${result.stderr}`);
  assert.equal(result.output?.response, 'Agreed the webhook fields with colega.');
  // The token went to papo by reference: its value is nowhere in Gemini CLI's settings.
  const settingsText = readFileSync(join(result.setup.home, '.gemini', 'settings.json'), 'utf8');
  assert.ok(!settingsText.includes(TOKEN));
  assert.equal(JSON.parse(settingsText).mcpServers.papo.env.PAPO_SIGNAL_TOKEN, '$PAPO_SIGNAL_TOKEN');

  // What reached the model.
  const turns = fake.turnRequests().map((r) => r.body);
  assert.equal(turns.length, 3, `model turns: ${turns.length}`);
  const [first, second, third] = turns as [Json, Json, Json];
  // papo's tools, each with papo's description and schema plus Gemini CLI's wait_for_previous.
  assert.deepEqual(
    declarations(first)
      .map((d: Json) => d.name)
      .filter((n: string) => n.startsWith('mcp_papo_')),
    PAPO_TOOLS,
  );
  for (const tool of TOOLS) {
    const seen = declarations(first).find((d: Json) => d.name === `mcp_papo_${tool.name}`);
    assert.ok(seen !== undefined, `mcp_papo_${tool.name} not offered to the model`);
    assert.equal(seen.description, tool.description);
    const { wait_for_previous, ...props } = seen.parametersJsonSchema.properties;
    assert.equal(wait_for_previous?.type, 'boolean');
    assert.deepEqual({ ...seen.parametersJsonSchema, properties: props }, tool.inputSchema);
  }
  // papo's instructions: not in the system instruction but in the first user turn's context.
  const expected = instructions({ name: 'voce', roomId: room.roomId }, 'default');
  const context = userTexts(first).join('\n');
  assert.ok(
    context.includes(
      `The following are instructions provided by the tool server 'papo':\n---[start of server instructions]---\n${expected}\n---[end of server instructions]---`,
    ),
    'papo’s instructions are not in the first user turn',
  );
  // The wait result, as the model sees it: papo's text in Gemini CLI's <untrusted_context>.
  const waited = functionResponses(second).at(-1);
  t.diagnostic(`the wait result as the model sees it: ${JSON.stringify(waited)}`);
  assert.equal(waited?.name, 'mcp_papo_wait');
  const waitedText: string = waited?.response.output ?? '';
  assert.deepEqual(Object.keys(waited?.response ?? {}), ['output']);
  assert.ok(
    waitedText.startsWith(
      `<untrusted_context>\n${UNTRUSTED_NOTICE}\n\n[msg_id=${askId} from=colega (agent) `,
    ),
    waitedText,
  );
  assert.ok(waitedText.endsWith(`to=voce]\n  ${ASK}\n</untrusted_context>`), waitedText);
  // wait_for_previous reached papo, which ignored it (ADR 0069) and answered normally.
  const calls = recordedLines(log).filter((l) => l.dir === 'in' && l.msg.method === 'tools/call');
  assert.deepEqual(
    calls.map((l) => [l.msg.params.name, l.msg.params.arguments.wait_for_previous]),
    [
      ['wait', true],
      ['send', true],
    ],
  );
  const sent: string = functionResponses(third).at(-1)?.response.output ?? '';
  assert.equal(sent, `<untrusted_context>\n${delivered('colega', msgIdIn(sent))}\n</untrusted_context>`);
  t.diagnostic(`refused outside connections: ${result.setup.connects.join(', ') || 'none'}`);
  // Without privacy.usageStatisticsEnabled false, Gemini CLI 0.61.0 CONNECTs play.googleapis.com:443.
  assert.deepEqual(result.setup.connects, []);
  t.diagnostic(
    `side requests: ${fake.requests
      .filter((r) => r.kind !== 'turn')
      .map((r) => r.path)
      .join(', ')}`,
  );
  assert.deepEqual(await leftovers(room.members.voce.home), [], 'a papo mcp outlived gemini -p');
});
