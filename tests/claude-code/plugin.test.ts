// papo as a Claude Code plugin (ADR 0101), with the real Claude Code: the checkout added as the
// `papo` marketplace, the `papo` plugin installed from it once for the user, and Claude Code
// starting `papo mcp` itself. One person (ana, one PAPO_HOME) works in two projects, each in a room
// of its own through its own profile (`papo install --plugin --profile p` run there, which sets
// PAPO_PROFILE in the project's .claude/settings.local.json):
// `claude mcp list` shows the plugin's papo connected; a headless run in each project talks in that
// project's room through the tools as Claude Code names a plugin's (mcp__plugin_papo_papo__*); and
// uninstalling the plugin and removing the marketplace leaves Claude Code without papo. The model
// is the scripted fake (fake-anthropic.ts). Skipped, with the reason, when Claude Code cannot be
// installed. See docs/mcp.md, "Claude Code itself".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { instructions, NOT_READY, NOT_SET_UP } from '../../src/mcp/texts.js';
import { TOOLS } from '../../src/mcp/tool-list.js';
import { type Hooks, runClient, stopFirst } from '../support/client-run.js';
import { tempDir } from '../support/files.js';
import { msgIdIn, papoOk, ROOT, userEnv } from '../support/papo.js';
import { callText, makeRoom, type Room, startAgent, statusUntil } from '../support/room.js';
import { type Json, startFakeAnthropic, systemTexts, toolResults } from './fake-anthropic.js';
import { type ClaudeCode, claudeCode, loadTools, recordedLines, streamEvents } from './helpers/claude.js';
import { PLUGIN_SERVER, PLUGIN_TOOL_PREFIX, pluginSetup, projectProfile } from './helpers/plugin.js';

const cc = claudeCode();
const skip = 'skip' in cc ? cc.skip : false;
const tool = (name: string) => `${PLUGIN_TOOL_PREFIX}${name}`;
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

const ASK = 'Hi, notifications agent here. Does payment.confirmed carry the amount in cents?';
const REPLY = 'Yes: amount_cents, an integer, with currency beside it.';
const HELLO = 'Hi, ledger agent here: the nightly export now closes at 02:00 UTC.';

test('the repository is the papo marketplace holding the papo plugin, at papo’s version, running papo mcp', () => {
  const market = JSON.parse(readFileSync(join(ROOT, '.claude-plugin', 'marketplace.json'), 'utf8'));
  assert.equal(market.name, 'papo');
  assert.deepEqual(
    market.plugins.map((p: Json) => [p.name, p.source]),
    [['papo', './plugins/papo']],
  );
  const plugin = JSON.parse(
    readFileSync(join(ROOT, 'plugins', 'papo', '.claude-plugin', 'plugin.json'), 'utf8'),
  );
  assert.equal(plugin.name, 'papo');
  assert.equal(plugin.version, manifest.version, 'the plugin says the version of papo it is made for');
  assert.equal(plugin.license, manifest.license);
  // PAPO_PLUGIN: a project the plugin starts papo in without papo install --plugin there stays
  // out of every room (issue 45).
  assert.deepEqual(plugin.mcpServers, {
    papo: { command: 'papo', args: ['mcp'], env: { PAPO_PLUGIN: '1' } },
  });
  assert.deepEqual(plugin.channels, [{ server: 'papo', displayName: 'papo' }]);
});

test('the plugin’s manifests pass claude plugin validate --strict', { skip }, (t) => {
  const c = cc as ClaudeCode;
  const home = tempDir(t, 'papo-plugin-validate-');
  for (const dir of [ROOT, join(ROOT, 'plugins', 'papo')]) {
    const r = spawnSync(c.bin, ['plugin', 'validate', '--strict', dir], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', HOME: home },
    });
    assert.equal(r.status, 0, `${dir}: ${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /Validation passed/);
  }
});

/**
 * A room made by someone else (`maker`, its papo mcp started), that ana joins with `profile` in her
 * own PAPO_HOME, as a person joins: the invite on standard input.
 */
async function roomAnaJoins(t: Hooks, maker: string, project: string, ana: string, profile: string) {
  const room: Room<string> = await makeRoom(t, {
    names: [maker],
    projects: [project],
    label: `plugin-${profile}`,
  });
  await papoOk(['--profile', profile, 'join', '--name', 'ana'], {
    env: userEnv(ana),
    input: `${room.invite}\n`,
  });
  const side = room.members[maker];
  if (side === undefined) throw new Error(`no ${maker} in the room`);
  const agent = startAgent(room, side);
  await agent.client.initialize();
  return { room, agent };
}

test('with the plugin installed once, Claude Code starts papo mcp in each project, each in its own room through its own profile', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const early = stopFirst(t);
  // ana's PAPO_HOME and her two projects, in a folder of their own.
  const root = tempDir(t, 'papo-plugin-');
  const ana = join(root, 'ana-home');
  const payments = join(root, 'code', 'payments-api');
  const ledger = join(root, 'code', 'ledger');
  const { room: roomA, agent: bruno } = await roomAnaJoins(t, 'bruno', 'notifications', ana, 'payments');
  const { room: roomB, agent: carla } = await roomAnaJoins(t, 'carla', 'exports', ana, 'ledger');

  let askId = '';
  const fake = await startFakeAnthropic([
    // payments-api: Claude Code defers MCP tools; the model loads them, waits for bruno, answers.
    loadTools(...TOOLS.map((x) => tool(x.name))),
    { tools: [{ name: tool('wait'), input: { timeout_seconds: 60, from: 'bruno' } }] },
    (body: Json) => {
      const waited = toolResults(body).at(-1)?.text ?? '';
      const id = /\[msg_id=([0-9a-f]{10}) from=bruno \(agent\)/.exec(waited)?.[1] ?? 'missing';
      return { tools: [{ name: tool('send'), input: { message: REPLY, to: 'bruno', reply_to: id } }] };
    },
    { text: 'Answered bruno.' },
    // ledger: a message to its room.
    loadTools(tool('send')),
    { tools: [{ name: tool('send'), input: { message: HELLO } }] },
    { text: 'Told the ledger room.' },
  ]);
  early.after(() => fake.close());
  const setup = await pluginSetup(early, {
    cc: c,
    root: root,
    projects: [payments, ledger],
    papoHome: ana,
    fake,
  });
  // Each project gets its profile from papo install --plugin, which says the way it took.
  for (const [project, profile] of [
    [payments, 'payments'],
    [ledger, 'ledger'],
  ] as const) {
    const said = await projectProfile(setup, project, profile, ana);
    assert.match(said, /^The papo plugin \(papo@papo\) is installed in Claude Code for your user/m);
    assert.match(said, new RegExp(`^This project talks in the room of profile ${profile}: `, 'm'));
    assert.match(
      said,
      /^Open Claude Code with: {2}claude {3}\(2\.1\.332 or later: your colleague's messages arrive on their own, no flag; older: claude --dangerously-load-development-channels plugin:papo@papo\)$/m,
    );
  }

  // Installed in the user scope, from the checkout's marketplace; Claude Code lists its server.
  const plugins = JSON.parse(
    readFileSync(join(setup.home, '.claude', 'plugins', 'installed_plugins.json'), 'utf8'),
  );
  assert.ok(plugins.plugins['papo@papo'], JSON.stringify(plugins));
  const listed = setup.claude(['mcp', 'list'], payments);
  assert.equal(listed.status, 0, listed.out);
  assert.ok(listed.out.split('\n').includes(`${PLUGIN_SERVER}: papo mcp - ✔ Connected`), listed.out);

  // payments-api: the model waits for bruno, bruno asks, the model answers in room A.
  const run = runClient(
    early,
    'claude',
    [
      '-p',
      'Answer the notifications agent over papo.',
      '--output-format',
      'stream-json',
      '--verbose',
      '--allowedTools',
      'mcp__plugin_papo_papo',
    ],
    { cwd: payments, env: setup.env, timeoutMs: 120_000 },
  );
  await statusUntil(bruno.client, /ana \(agent\): online/, 60_000);
  for (
    let i = 0;
    !recordedLines(setup.log).some((l) => l.dir === 'in' && l.msg.params?.name === 'wait');
    i++
  ) {
    if (i > 240) throw new Error('the model never called wait');
    await new Promise((r) => setTimeout(r, 250));
  }
  askId = msgIdIn(await callText(bruno.client, 'send', { message: ASK, to: 'ana' }));
  const answer = await bruno.client.waitFor(
    (m) => m.method === 'notifications/claude/channel' && m.params?.meta?.from === 'ana',
    60_000,
    'the answer of ana',
  );
  assert.equal(answer.params.content, REPLY);
  assert.equal(answer.params.meta.reply_to, askId);
  const result = await run;
  assert.equal(result.code, 0, result.stderr);
  const init = streamEvents(result.stdout).find((e) => e.type === 'system' && e.subtype === 'init');
  assert.deepEqual(
    init.mcp_servers.filter((s: Json) => s.name === PLUGIN_SERVER),
    [{ name: PLUGIN_SERVER, status: 'connected', source: 'plugin' }],
    JSON.stringify(init.mcp_servers),
  );
  for (const x of TOOLS) assert.ok(init.tools.includes(tool(x.name)), `${tool(x.name)} in ${init.tools}`);
  // papo's instructions reached the model, naming ana in room A.
  const firstTurn = fake.turnRequests()[0];
  assert.ok(
    systemTexts(firstTurn?.body).some((s) =>
      s.includes(instructions({ name: 'ana', roomId: roomA.roomId }, 'payments')),
    ),
    'the instructions of room A',
  );

  // ledger: the same plugin, the profile ledger, room B: carla gets ana's message.
  const second = await runClient(
    early,
    'claude',
    [
      '-p',
      'Tell the ledger room about the export.',
      '--output-format',
      'stream-json',
      '--verbose',
      '--allowedTools',
      'mcp__plugin_papo_papo',
    ],
    { cwd: ledger, env: setup.env, timeoutMs: 120_000 },
  );
  assert.equal(second.code, 0, second.stderr);
  const hello = await carla.client.waitFor(
    (m) => m.method === 'notifications/claude/channel' && m.params?.meta?.from === 'ana',
    30_000,
    'ana’s message in room B',
  );
  assert.equal(hello.params.content, HELLO);
  const ledgerTurn = fake
    .turnRequests()
    .find((r) => systemTexts(r.body).some((s) => s.includes(roomB.roomId)));
  assert.ok(ledgerTurn, 'the ledger session’s instructions name room B');
  assert.ok(
    !bruno.client.messages.some((m) => m.params?.content === HELLO),
    'the ledger message stayed out of room A',
  );
  // What each profile's log kept: the answer to bruno in payments, nothing of it in ledger.
  const profiles = readFileSync(join(ana, 'profiles', 'payments', 'log.jsonl'), 'utf8');
  assert.match(profiles, new RegExp(REPLY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.doesNotMatch(readFileSync(join(ana, 'profiles', 'ledger', 'log.jsonl'), 'utf8'), /amount_cents/);

  // The clean way out: the plugin uninstalled and the marketplace removed, Claude Code has no papo.
  for (const args of [
    ['plugin', 'uninstall', 'papo@papo'],
    ['plugin', 'marketplace', 'remove', 'papo'],
  ]) {
    const r = setup.claude(args, root);
    assert.equal(r.status, 0, `claude ${args.join(' ')}: ${r.out}`);
  }
  const after = setup.claude(['mcp', 'list'], payments);
  assert.doesNotMatch(after.out, /papo/);
});

test('the plugin in a project never set up for papo joins no room and announces nothing, even with a default profile in a room (issue 45)', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const early = stopFirst(t);
  const root = tempDir(t, 'papo-plugin-idle-');
  const ana = join(root, 'ana-home');
  // A folder ana never connected to papo, whose name is nobody else's business.
  const secret = join(root, 'code', 'acme-acquires-globex-2027');
  mkdirSync(secret, { recursive: true });
  // ana's default profile is in dora's room: before issue 45, the plugin's papo joined it from here
  // and announced the folder's name.
  const { agent: dora } = await roomAnaJoins(t, 'dora', 'deals', ana, 'default');
  const fake = await startFakeAnthropic([
    loadTools(tool('status')),
    { tools: [{ name: tool('status'), input: {} }] },
    { text: 'papo is not set up here.' },
  ]);
  early.after(() => fake.close());
  const setup = await pluginSetup(early, { cc: c, root, projects: [secret], papoHome: ana, fake });
  const run = await runClient(
    early,
    'claude',
    [
      '-p',
      'What does papo say?',
      '--output-format',
      'stream-json',
      '--verbose',
      '--allowedTools',
      'mcp__plugin_papo_papo',
    ],
    // PAPO_HOME in the person's environment, as a shell profile would set it: still no room.
    { cwd: secret, env: { ...setup.env, PAPO_HOME: ana }, timeoutMs: 120_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  const answered = fake.turnRequests().flatMap((r) => toolResults(r.body));
  assert.ok(
    answered.some((r) => r.text === NOT_READY.notSetUp),
    `the status tool says the project is not set up: ${JSON.stringify(answered)}`,
  );
  assert.ok(
    systemTexts(fake.turnRequests()[0]?.body).some((s) => s.includes(instructions(NOT_SET_UP, 'default'))),
    'the instructions say papo joins no room here',
  );
  // dora's room never saw ana's agent, nor the folder's name.
  const seen = await callText(dora.client, 'status');
  assert.doesNotMatch(seen, /ana \(agent\)/);
  assert.doesNotMatch(seen, /acme|globex/);
});
