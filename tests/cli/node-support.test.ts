// The Node papo runs on (ADR 0111): which majors it supports and until when, what `papo doctor`
// says of each, and `papo --version` naming the Node and the platform.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { renderReport } from '../../src/cli/commands/doctor.js';
import { checksFrom, type DoctorFacts } from '../../src/cli/doctor.js';
import { judgeNode, NODE_END_OF_LIFE, NODE_MINIMUM, NODE_TESTED_MAJORS } from '../../src/cli/node-support.js';
import { cleanEnv, runPapo } from '../support/papo.js';

const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));

test("package.json's engines is the minimum doctor holds Node to, and every tested major is supported", () => {
  assert.equal(manifest.engines.node, `>=${NODE_MINIMUM.major}.${NODE_MINIMUM.minor}`);
  for (const major of NODE_TESTED_MAJORS) {
    assert.ok(major >= NODE_MINIMUM.major);
    assert.ok(NODE_END_OF_LIFE[major] !== undefined, `no end of life known for ${major}`);
  }
});

test('judgeNode: older than engines, past its end of life, supported and tested, or newer than tested', () => {
  const today = '2026-12-07';
  assert.deepEqual(judgeNode('v20.20.2', today), { kind: 'too-old', major: 20, endOfLife: '2026-04-30' });
  assert.deepEqual(judgeNode('v16.20.0', today), { kind: 'too-old', major: 16, endOfLife: undefined });
  assert.deepEqual(judgeNode('v22.11.0', today), { kind: 'too-old', major: 22, endOfLife: '2027-04-30' });
  assert.equal(judgeNode('v22.12.0', today).kind, 'supported');
  assert.deepEqual(judgeNode('v22.23.5', today), {
    kind: 'supported',
    major: 22,
    endOfLife: '2027-04-30',
    tested: true,
  });
  assert.deepEqual(judgeNode('v25.9.0', today), { kind: 'end-of-life', major: 25, endOfLife: '2026-06-01' });
  assert.deepEqual(judgeNode('v27.0.0', today), {
    kind: 'supported',
    major: 27,
    endOfLife: undefined,
    tested: false,
  });
  // The day a line ends it is still maintained; the day after, not.
  assert.equal(judgeNode('v22.30.0', '2027-04-30').kind, 'supported');
  assert.equal(judgeNode('v22.30.0', '2027-05-01').kind, 'end-of-life');
});

/** A doctor report whose only variable part is the Node. */
function nodeLines(version: string, lang: 'en' | 'pt' = 'en') {
  const facts = baseFacts(version);
  const report = checksFrom(facts, lang);
  assert.equal(report.checks[0]?.id, 'node', 'the Node is the first thing doctor names');
  return { check: report.checks[0], lines: renderReport(report, lang) };
}

test('papo doctor names the Node first: ok on a supported one, a warning with the way out on an old or ended one', () => {
  const ok = nodeLines('v26.12.1');
  assert.equal(ok.check?.status, 'ok');
  assert.equal(
    ok.lines[0],
    '[ok]     node            Node.js v26.12.1 (linux x64), maintained until 2029-04-30',
  );
  const newer = nodeLines('v27.1.0');
  assert.equal(newer.check?.status, 'ok');
  assert.equal(
    newer.lines[0],
    '[ok]     node            Node.js v27.1.0 (linux x64); papo is tested on Node 22, 24, 26',
  );

  const old = nodeLines('v20.20.2');
  assert.equal(old.check?.status, 'warn');
  assert.deepEqual(old.lines.slice(0, 2), [
    '[warn]   node            Node.js v20.20.2 is older than papo supports (22.12 or newer) and past its end of life (2026-04-30): no security fixes',
    '                         fix: install a maintained Node (22, 24, 26) from nodejs.org or your version manager (nvm install 26), then npm install -g papo again',
  ]);
  assert.equal(old.check?.data?.kind, 'too-old');
  const ended = nodeLines('v25.2.0');
  assert.equal(ended.check?.status, 'warn');
  assert.equal(
    ended.lines[0],
    '[warn]   node            Node.js v25.2.0 is past its end of life (2026-06-01): no security fixes',
  );
  // A warning, not a failure: papo may still run there, and the room can still work.
  assert.equal(checksFrom(baseFacts('v20.20.2'), 'en').summary.fail, 0);

  const pt = nodeLines('v20.20.2', 'pt');
  assert.match(
    pt.lines[0] ?? '',
    /^\[aviso\] +node +Node\.js v20\.20\.2 é mais antigo do que o papo suporta \(22\.12 ou mais novo\)/,
  );
  assert.match(pt.lines[1] ?? '', /como resolver: instale um Node mantido \(22, 24, 26\)/);
});

function baseFacts(version: string): DoctorFacts {
  return {
    profile: { ok: true, profile: 'default', name: 'ana', roomId: 'r00m', nodeId: 'n0de' },
    tokenSent: false,
    policy: 'all',
    stun: [],
    turn: [],
    clients: [],
    channelsOff: [],
    node: { version, platform: 'linux x64', today: '2026-12-07' },
    ms: 10,
  };
}

test('papo --version names papo, the Node it runs on and the platform', async () => {
  const v = await runPapo(['--version'], { env: cleanEnv() });
  assert.equal(v.code, 0, v.stderr);
  assert.equal(
    v.stdout,
    `papo ${manifest.version} on Node.js ${process.version} (${process.platform} ${process.arch})\n`,
  );
});
