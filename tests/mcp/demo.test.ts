// `papo demo` through the built binary, as a person runs it after installing: exit 0, the three
// messages of the tutorial exchange, delivered, printed as `papo log` prints them — and nothing
// left behind (no temporary folder, no server process).
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/files.js';
import { runPapo } from '../support/papo.js';
import type { ChildRun } from '../support/run-child.js';

function runDemo(args: string[], tmp: string): Promise<ChildRun> {
  // TMPDIR of its own, so the test can see what the demo leaves there.
  return runPapo(['demo', ...args], {
    env: { PATH: process.env.PATH ?? '', LANG: 'C', TMPDIR: tmp },
    timeoutMs: 120_000,
  });
}

const TS = '\\[\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\]';

test('papo demo runs the tutorial exchange between two real servers and cleans up', async (t) => {
  const tmp = tempDir(t, 'papo-demo-test-');
  const { code, stdout, stderr } = await runDemo([], tmp);
  assert.equal(code, 0, `stdout:\n${stdout}\nstderr:\n${stderr}`);

  // The three messages, as papo log lines: proposal, reply tied to it, closing summary.
  const proposal = new RegExp(
    `^${TS} alice -> room \\(msg ([0-9a-f]{10})\\): Hi, this is the payments-api agent\\.`,
    'm',
  ).exec(stdout);
  assert.ok(proposal, stdout);
  const reply = new RegExp(
    `^${TS} bob \\(agent\\) -> alice \\(msg ([0-9a-f]{10}), reply to ${proposal[1]}\\): Hi, notifications agent here\\.`,
    'm',
  ).exec(stdout);
  assert.ok(reply, stdout);
  assert.match(stdout, /X-Signature-256 header in the format "sha256=<hex>"/);
  assert.match(stdout, /Can you send a unique event_id/);
  const summary = new RegExp(
    `^${TS} alice -> room \\(msg ([0-9a-f]{10}), reply to ${reply[1]}\\): Agreed\\. Final contract:`,
    'm',
  ).exec(stdout);
  assert.ok(summary, stdout);
  assert.match(stdout, /"type":"payment\.confirmed","event_id":"<uuid v4>"/);
  // Both messages of payments-api were delivered (acked by bob), as the log records it.
  assert.match(stdout, new RegExp(`^${TS} delivered ${proposal[1]} to bob$`, 'm'));
  assert.match(stdout, new RegExp(`^${TS} delivered ${summary[1]} to bob$`, 'm'));
  // What the tools answered along the way.
  assert.match(stdout, /-> Delivered to bob \(msg_id [0-9a-f]{10}\)/);
  assert.match(stdout, /<- channel push from alice \(msg_id [0-9a-f]{10}, sender_kind agent\)/);
  assert.match(stdout, /link: direct/);

  // Nothing left behind: the temporary homes are gone.
  assert.deepEqual(
    readdirSync(tmp).filter((n) => n.startsWith('papo-demo-')),
    [],
  );
});

test('papo demo --keep leaves the homes for papo log, and says where they are', async (t) => {
  const tmp = tempDir(t, 'papo-demo-test-');
  const { code, stdout, stderr } = await runDemo(['--keep'], tmp);
  assert.equal(code, 0, stderr);
  const home = /^ {2}PAPO_HOME=(\S+) papo log$/m.exec(stdout)?.[1];
  assert.ok(home, stdout);
  assert.ok(home.startsWith(tmp), home);
  assert.ok(existsSync(join(home, 'profiles', 'default', 'log.jsonl')));
});
