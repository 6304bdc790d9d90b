// What the model receives of papo, as a reviewed snapshot: papo's entry under "# MCP Server
// Instructions", the papo tools named before ToolSearch, and each papo tool as the model gets it
// after ToolSearch (description, input_schema and the rest of what Claude Code sends, in its key
// order), taken from the requests of a `claude -p` run against the scripted model. It is compared with
// snapshots/model-view-<version>.json; PAPO_UPDATE_SNAPSHOTS=1 (or UPDATE_SNAPSHOTS=1) rewrites it,
// to be reviewed as a diff before it is committed (docs/mcp.md, "Claude Code itself"). A missing
// snapshot is written and the test fails. Skipped, with the reason, without Claude Code.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { TOOLS } from '../../src/mcp/tool-list.js';
import { runClient, stopFirst } from '../support/client-run.js';
import { ROOT } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import { FALLBACK_TEXT, type Json, startFakeAnthropic } from './fake-anthropic.js';
import { type ClaudeCode, claudeCode, claudeSetup, loadTools, papoInstall } from './helpers/claude.js';

const cc = claudeCode();
const skip = 'skip' in cc ? cc.skip : false;
const PAPO_TOOLS = TOOLS.map((tool) => `mcp__papo__${tool.name}`).sort();
const HEADING = '# MCP Server Instructions';

/** The snapshot of a Claude Code version, in the source tree (not dist/). */
function snapshotPath(version: string): string {
  return join(ROOT, 'tests', 'claude-code', 'snapshots', `model-view-${version}.json`);
}

/** Each text of a request where a model can read instructions, and where it was. */
function systemParts(body: Json): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  const texts = (content: Json): string[] =>
    typeof content === 'string' ? [content] : (content ?? []).map((b: Json) => b.text ?? '');
  for (const text of texts(body?.system)) out.push({ where: 'system parameter', text });
  for (const m of body?.messages ?? [])
    for (const text of texts(m.content)) out.push({ where: `messages: a ${m.role} entry`, text });
  return out;
}

/**
 * What the model is told of papo in a request: the "# MCP Server Instructions" section (up to the
 * next section Claude Code adds: its skills list, or a "# " heading), the room id replaced, as
 * lines; and the papo names of the deferred tools list.
 */
function papoInstructions(body: Json, roomId: string): { where: string; lines: string[] } {
  const found = systemParts(body).filter((p) => p.text.includes(HEADING));
  assert.equal(found.length, 1, `"${HEADING}" in ${found.length} places`);
  const { where, text } = found[0] as { where: string; text: string };
  const from = text.slice(text.indexOf(HEADING));
  const end = /\n\n(?=# |The following skills are available)/.exec(from.slice(HEADING.length));
  const section = end === null ? from : from.slice(0, HEADING.length + end.index);
  return { where, lines: section.replaceAll(roomId, '<room id>').split('\n') };
}

test('the model’s view of papo (instructions, tool names, the five tools after ToolSearch) matches the reviewed snapshot', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const early = stopFirst(t);
  const room = await makeRoom(t);
  const fake = await startFakeAnthropic([loadTools(...PAPO_TOOLS)]);
  early.after(() => fake.close());
  const project = room.members.voce.project;
  const setup = await claudeSetup(early, {
    cc: c,
    root: room.root,
    project,
    papoHome: room.members.voce.home,
    fake,
  });
  await papoInstall(project, setup.env);
  const result = await runClient(
    early,
    'claude',
    ['-p', 'What can papo do?', '--allowedTools', 'mcp__papo'],
    {
      cwd: project,
      env: setup.env,
      timeoutMs: 60_000,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), FALLBACK_TEXT);

  const [first, second] = fake.turnRequests().map((r) => r.body);
  const deferred = systemParts(first)
    .flatMap((p) => p.text.split('\n'))
    .filter((l) => l.startsWith('mcp__papo__'));
  const loaded = (second?.tools ?? [])
    .filter((x: Json) => typeof x.name === 'string' && x.name.startsWith('mcp__papo__'))
    .sort((a: Json, b: Json) => a.name.localeCompare(b.name));
  // Keys in a fixed order; the tools' as Claude Code sends them (the order the model reads).
  const view = {
    claudeCode: c.version,
    how: 'claude -p, papo registered with papo install; the first request, then the one after ToolSearch select: of the five tools',
    instructions: papoInstructions(first, room.roomId),
    deferredToolsBeforeToolSearch: deferred,
    toolsAfterToolSearch: loaded,
  };
  const actual = `${JSON.stringify(view, null, 2)}\n`;
  const path = snapshotPath(c.version);
  const update = process.env.PAPO_UPDATE_SNAPSHOTS === '1' || process.env.UPDATE_SNAPSHOTS === '1';
  if (update || !existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    if (!update) assert.fail(`snapshot written to ${path}; review it (git diff) and commit it`);
    t.diagnostic(`snapshot rewritten: ${path}`);
  }
  // Compared as JSON (the formatter may lay the file out differently); a difference is printed.
  assert.deepEqual(view, JSON.parse(readFileSync(path, 'utf8')));
});
