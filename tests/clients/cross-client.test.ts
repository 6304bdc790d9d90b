// Three people, three different agents, one papo room: a Gemini CLI agent proposes a field name, a
// Codex agent agrees to it, and a Claude Code agent that only watches reads both. Each is the real
// CLI (the pinned versions of scripts/agent-cli.mjs) with papo registered by `papo install
// --client ...`, its model a scripted fake on loopback. The three run at once, as three people
// would have them open; nothing but papo carries the messages between them. Skipped, with the
// reason, when one of the clients cannot be installed.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { UNTRUSTED_NOTICE } from '../../src/mcp/texts.js';
import { type Json, startFakeAnthropic, toolResults } from '../claude-code/fake-anthropic.js';
import { claudeSetup, loadTools, papoInstall, streamEvents } from '../claude-code/helpers/claude.js';
import { type AgentCli, agentCli } from '../support/agent-cli.js';
import { runClient, stopFirst } from '../support/client-run.js';
import { inviteIn, papoOk, userEnv } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import { functionResponses, startFakeGemini } from './fake-gemini.js';
import { functionOutputs, papoCall, startFakeOpenAI } from './fake-openai.js';
import { codexTurn, mcpToolCalls } from './helpers/codex.js';
import { geminiTurn } from './helpers/gemini.js';

const clis = { claude: agentCli('claude'), codex: agentCli('codex'), gemini: agentCli('gemini') };
const missing = Object.values(clis).find((c): c is { skip: string } => 'skip' in c);
const skip = missing === undefined ? false : missing.skip;

const PROPOSAL =
  'Proposal for the payment.confirmed webhook: the amount field is named amount_cents (an integer number of cents). Do you agree?';
const AGREED = 'Agreed: amount_cents, an integer number of cents. I will read it under that name.';
const PROMPT = 'Agree the name of the amount field of the payment webhook with the other agents over papo.';

const idOf = (from: string, text: string) =>
  new RegExp(`\\[msg_id=([0-9a-f]{10}) from=${from} \\(agent\\)`).exec(text)?.[1] ?? 'missing';

test('cross-client: a Gemini CLI agent proposes, a Codex agent agrees, a Claude Code agent watches — all through one papo room', {
  skip,
  timeout: 240_000,
}, async (t) => {
  const cli = clis as { claude: AgentCli; codex: AgentCli; gemini: AgentCli };
  const early = stopFirst(t);
  // voce: Codex in payments-api; colega: Gemini CLI in notifications; observa: Claude Code.
  const room = await makeRoom(t);
  const observa = {
    home: join(room.root, 'home-observa'),
    project: join(room.root, 'code', 'observa', 'dashboard'),
  };
  mkdirSync(observa.home, { recursive: true });
  mkdirSync(observa.project, { recursive: true });
  const invite = inviteIn(await papoOk(['invite'], { env: userEnv(room.members.voce.home) }));
  await papoOk(['join', invite, '--name', 'observa'], { env: userEnv(observa.home) });

  // Gemini CLI (colega): proposes, then waits for the answer. Gemini adds wait_for_previous itself.
  const gemini = await startFakeGemini([
    { calls: [{ name: 'mcp_papo_send', args: { message: PROPOSAL, wait_for_previous: false } }] },
    {
      calls: [
        { name: 'mcp_papo_wait', args: { timeout_seconds: 90, from: 'voce', wait_for_previous: true } },
      ],
    },
    { text: 'voce agreed: the field is amount_cents.' },
  ]);
  early.after(() => gemini.close());
  // Codex (voce): waits for colega, then agrees, answering the proposal.
  const codex = await startFakeOpenAI([
    { tools: [papoCall('wait', { timeout_seconds: 90, from: 'colega' })] },
    (body: Json) => {
      const id = idOf('colega', functionOutputs(body).at(-1)?.text ?? '');
      return { tools: [papoCall('send', { message: AGREED, reply_to: id })] };
    },
    { text: 'Agreed amount_cents with colega.' },
  ]);
  early.after(() => codex.close());
  // Claude Code (observa): waits for voce's answer, then reads the conversation.
  const claude = await startFakeAnthropic([
    loadTools('mcp__papo__wait', 'mcp__papo__history'),
    { tools: [{ name: 'mcp__papo__wait', input: { timeout_seconds: 90, from: 'voce' } }] },
    { tools: [{ name: 'mcp__papo__history', input: { limit: 10 } }] },
    { text: 'colega and voce agreed on amount_cents.' },
  ]);
  early.after(() => claude.close());
  const claudeEnv = await claudeSetup(early, {
    cc: cli.claude,
    root: room.root,
    project: observa.project,
    papoHome: observa.home,
    fake: claude,
  });
  await papoInstall(observa.project, claudeEnv.env);

  const started = Date.now();
  const [g, c, o] = await Promise.all([
    geminiTurn(early, {
      cli: cli.gemini,
      root: room.root,
      project: room.members.colega.project,
      papoHome: room.members.colega.home,
      fake: gemini,
      prompt: PROMPT,
      timeoutMs: 180_000,
    }),
    codexTurn(early, {
      cli: cli.codex,
      root: room.root,
      project: room.members.voce.project,
      papoHome: room.members.voce.home,
      fake: codex,
      prompt: PROMPT,
      timeoutMs: 180_000,
    }),
    runClient(
      early,
      'claude',
      ['-p', PROMPT, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'mcp__papo'],
      { cwd: observa.project, env: claudeEnv.env, timeoutMs: 180_000 },
    ),
  ]);
  const ms = Date.now() - started;
  assert.equal(g.code, 0, `gemini: ${g.stderr}`);
  assert.equal(c.code, 0, `codex: ${c.stderr}`);
  assert.equal(o.code, 0, `claude: ${o.stderr}`);

  // Gemini's send went out (to the room: whoever was online then has it, the rest get it later).
  const geminiResults = gemini.turnRequests().flatMap((r) => functionResponses(r.body));
  const sent = JSON.stringify(geminiResults.find((r) => r.name === 'mcp_papo_send')?.response ?? null);
  assert.match(sent, /(Delivered to|Not acknowledged yet) .*msg_id [0-9a-f]{10}/, sent);
  const proposalId = /msg_id ([0-9a-f]{10})/.exec(sent)?.[1];

  // Codex's model read the proposal, as data, and answered it.
  const codexWaited = codex
    .turnRequests()
    .flatMap((r) => functionOutputs(r.body))
    .find((o) => o.name === 'wait');
  // (Codex puts its own "Wall time: ... Output:" lines before a tool's result.)
  assert.ok(codexWaited?.text.includes(`${UNTRUSTED_NOTICE}\n\n`), codexWaited?.text);
  assert.ok(codexWaited?.text.includes(`  ${PROPOSAL}`), codexWaited?.text);
  assert.equal(idOf('colega', codexWaited?.text ?? ''), proposalId);
  assert.deepEqual(
    mcpToolCalls(c).map((x) => `${x.server}.${x.tool} ${x.status}`),
    ['papo.wait completed', 'papo.send completed'],
  );

  // Gemini's model got the agreement, answering its proposal.
  const geminiWaited = JSON.stringify(
    geminiResults.find((r) => r.name === 'mcp_papo_wait')?.response ?? null,
  );
  assert.ok(geminiWaited.includes(AGREED), geminiWaited);
  assert.ok(geminiWaited.includes(`reply_to=${proposalId}`), geminiWaited);

  // Claude Code's model, watching, saw voce's answer and the whole exchange in history.
  const claudeResults = claude.turnRequests().flatMap((r) => toolResults(r.body));
  const watched = claudeResults.find((r) => r.text.includes('[msg_id='))?.text ?? '';
  assert.ok(watched.includes(AGREED), watched);
  const history = claudeResults.at(-1)?.text ?? '';
  assert.match(history, new RegExp(`colega \\(agent\\).*\\n?.*${PROPOSAL.slice(0, 40)}`));
  assert.match(history, new RegExp(`voce \\(agent\\).*\\n?.*${AGREED.slice(0, 30)}`));
  assert.ok(streamEvents(o.stdout).some((e) => e.type === 'result'));

  t.diagnostic(
    `cross-client: Gemini CLI ${cli.gemini.version} proposed, Codex ${cli.codex.version} agreed, Claude Code ${cli.claude.version} watched; ${ms} ms for the three runs`,
  );
  for (const line of history.split('\n')) t.diagnostic(`  observa's history: ${line}`);
});
