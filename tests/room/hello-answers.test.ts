// When a member answers the others' hellos (ADR 0062): a node's first hello is answered, five
// answers go out at once and then one a second, newcomers waiting for the budget share one answer,
// and an ephemeral run's hello is answered again after half a second (say runs share one key).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EPHEMERAL_REANSWER_MS,
  HELLO_ANSWER_BURST,
  HELLO_ANSWER_INTERVAL_MS,
  HelloAnswers,
} from '../../src/client/room/hello-answers.js';
import { ManualClock } from '../support/manual-clock.js';

const NOW = 1_800_000_000_000;

function node(n: number): string {
  return n.toString(16).padStart(64, '0');
}

/** A HelloAnswers on a manual clock, and the answers it gave (true: with the outbox). */
function answering() {
  const clock = new ManualClock(NOW);
  const answers: boolean[] = [];
  const hellos = new HelloAnswers(clock, (resendOutbox) => answers.push(resendOutbox));
  return { clock, answers, hellos };
}

test("a node's first hello is answered, its next ones are not; a durable newcomer also gets the outbox", () => {
  const { answers, hellos } = answering();
  hellos.hello({ node: node(1), ephemeral: false });
  assert.deepEqual(answers, [true]);
  hellos.hello({ node: node(1), ephemeral: false });
  hellos.hello({ node: node(1), ephemeral: false });
  assert.deepEqual(answers, [true], 'a hello already answered is not answered again');
  hellos.hello({ node: node(2), ephemeral: true });
  assert.deepEqual(answers, [true, false], 'an ephemeral run gets our hello, not the outbox');
});

test('an ephemeral hello is answered again after half a second, not within it', () => {
  const { clock, answers, hellos } = answering();
  hellos.hello({ node: node(1), ephemeral: true });
  // The copies of one hello (direct and forwarded) come within the half second.
  clock.advance(EPHEMERAL_REANSWER_MS - 1);
  hellos.hello({ node: node(1), ephemeral: true });
  assert.equal(answers.length, 1);
  // The next say run, under the same key.
  clock.advance(1);
  hellos.hello({ node: node(1), ephemeral: true });
  assert.equal(answers.length, 2);
  // A durable member's hello is answered once, however long after.
  hellos.hello({ node: node(2), ephemeral: false });
  clock.advance(60_000);
  hellos.hello({ node: node(2), ephemeral: false });
  assert.equal(answers.length, 3);
});

test('a node that left is answered again when it comes back', () => {
  const { answers, hellos } = answering();
  hellos.hello({ node: node(1), ephemeral: false });
  hellos.left(node(1));
  hellos.hello({ node: node(1), ephemeral: false });
  assert.equal(answers.length, 2);
});

test('five answers at once, then newcomers share one answer when the budget refills', () => {
  const { clock, answers, hellos } = answering();
  for (let i = 0; i < HELLO_ANSWER_BURST; i++) hellos.hello({ node: node(i), ephemeral: true });
  assert.equal(answers.length, HELLO_ANSWER_BURST, 'the burst is answered at once');
  // The budget is spent: the next newcomers wait for one shared answer.
  hellos.hello({ node: node(100), ephemeral: true });
  hellos.hello({ node: node(101), ephemeral: false });
  hellos.hello({ node: node(102), ephemeral: true });
  assert.equal(answers.length, HELLO_ANSWER_BURST);
  assert.equal(clock.pending, 1, 'one answer waits, whoever comes meanwhile');
  clock.advance(HELLO_ANSWER_INTERVAL_MS - 1);
  assert.equal(answers.length, HELLO_ANSWER_BURST, 'not before the budget refills');
  clock.advance(1);
  assert.equal(answers.length, HELLO_ANSWER_BURST + 1);
  // One of them was a durable member: the shared answer re-sends the outbox too.
  assert.equal(answers.at(-1), true);
  assert.equal(clock.pending, 0);
});

test('a flood of newcomers gets five answers at once, then one a second', () => {
  const clock = new ManualClock(NOW);
  const at: number[] = [];
  const hellos = new HelloAnswers(clock, () => at.push(clock.now() - NOW));
  // 100 new nodes a second for 10 s.
  for (let ms = 0; ms < 10_000; ms += 10) {
    hellos.hello({ node: node(ms), ephemeral: false });
    clock.advance(10);
  }
  clock.advance(HELLO_ANSWER_INTERVAL_MS);
  assert.deepEqual(at.slice(0, HELLO_ANSWER_BURST), [0, 10, 20, 30, 40]);
  assert.deepEqual(
    at.slice(HELLO_ANSWER_BURST),
    Array.from({ length: 10 }, (_, i) => (i + 1) * HELLO_ANSWER_INTERVAL_MS),
    '1,000 hellos in 10 s: one answer a second after the burst',
  );
});

test('the budget refills at one a second, up to five', () => {
  const { clock, answers, hellos } = answering();
  for (let i = 0; i < HELLO_ANSWER_BURST; i++) hellos.hello({ node: node(i), ephemeral: true });
  clock.advance(2 * HELLO_ANSWER_INTERVAL_MS);
  for (let i = 10; i < 13; i++) hellos.hello({ node: node(i), ephemeral: true });
  assert.equal(answers.length, HELLO_ANSWER_BURST + 2, 'two seconds refill two answers');
  // A quiet minute refills the budget to five, not more.
  clock.advance(60_000);
  const before = answers.length;
  for (let i = 20; i < 30; i++) hellos.hello({ node: node(i), ephemeral: true });
  assert.equal(answers.length - before, HELLO_ANSWER_BURST, 'five at once');
  assert.equal(clock.pending, 1, 'and the rest wait for the next');
});

test('closed: a pending answer never goes out', () => {
  const { clock, answers, hellos } = answering();
  for (let i = 0; i <= HELLO_ANSWER_BURST; i++) hellos.hello({ node: node(i), ephemeral: true });
  assert.equal(clock.pending, 1);
  hellos.close();
  assert.equal(clock.pending, 0);
  clock.advance(10 * HELLO_ANSWER_INTERVAL_MS);
  assert.equal(answers.length, HELLO_ANSWER_BURST);
});
