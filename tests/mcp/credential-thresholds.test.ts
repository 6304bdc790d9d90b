// The thresholds of the split-token heuristics (src/mcp/credentials.ts, ADR 0061), each pinned at
// its exact edge: an input just inside it is refused and one just outside passes (or the reverse).
// These numbers are ADR 0061's tuning, not laws: if ADR 0061 tunes them again, these tests change
// with it (mutation testing, ADR 0080, asked for each edge to be pinned).
//
// The split pass runs only when no detector matched the text as written, so each token below is cut
// by a space where no detector sees it whole. Bodies are written out (they must have an exact
// number of class changes, words or repeats); the prefixes are joined at run time, so no literal in
// the repository looks like a credential to a secret scanner.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeInvite } from '../../src/client/wire/invite.js';
import { findCredential } from '../../src/mcp/credentials.js';
import { ALNUM, HEX, seededText } from '../support/seeded-text.js';

const join = (...parts: string[]) => parts.join('');
const kindOf = (text: string) => findCredential(text)?.kind ?? null;
const SLACK = 'a Slack token';
const AWS = 'an AWS access key id';
const GITHUB = 'a GitHub token';
const ENV = 'a secret assignment (a .env-style line)';
/** Slack's prefix: its pattern takes any body of 10 or more, so the split measures alone decide. */
const xoxb = join('xo', 'xb-');
const akia = join('AK', 'IA');
const ghp = join('gh', 'p_');

test('a split body of 16 letters and digits is long enough to be a token; of 15 it is not', () => {
  assert.equal(kindOf(`${xoxb} aB3dE5fG7hJ9kL2m`), SLACK);
  assert.equal(kindOf(`${xoxb} aB3dE5fG7hJ9kL2`), null);
});

test('a split body whose character class changes at 30 % of its steps is a token; below it is not', () => {
  // 21 characters, 20 steps: 6 changes are exactly 0.3, 5 are 0.25.
  assert.equal(kindOf(`${xoxb} qwerTYUI 4567zxcvBNM8p`), SLACK);
  assert.equal(kindOf(`${xoxb} qwerTYUI 4567zxcvBNM89`), null);
});

test('a split body made half of words is still a token; one more word letter makes it prose', () => {
  // 12 characters that are no word and 12 that are one: half, still a token; 13 of a word: prose.
  assert.equal(kindOf(`${xoxb} aB3dE5fG7hJ9 somelongword`), SLACK);
  assert.equal(kindOf(`${xoxb} aB3dE5fG7hJ9 somelongwords`), null);
});

test('a three-letter word counts as a word of the body', () => {
  // Without "the", 10 word letters of 20: a token. With it, 13 of 23: prose.
  assert.equal(kindOf(`${xoxb} aB3dE5fG7h somewordsx`), SLACK);
  assert.equal(kindOf(`${xoxb} the aB3dE5fG7h somewordsx`), null);
});

test('a split body that repeats a run of 6 characters is no token; a repeat of 5 still is', () => {
  assert.equal(kindOf(`${xoxb} aB3dE5fG7hJ9 aB3dE5`), null);
  assert.equal(kindOf(`${xoxb} aB3dE5fG7hJ9 aB3dEq`), SLACK);
});

test('each class runs to its ends: a, z, A, Z, 0 and 9 are letters and digits of a split body', () => {
  // 16 characters with each end of each class in them: one of them not counted would leave 15.
  assert.equal(kindOf(`${xoxb} aZ0zA9bY1c X2dW3e`), SLACK);
});

test('signs are neither letters nor digits: a run of them after a token is no repeat', () => {
  // The Slack token ends at the first "~" and takes the hyphens in; twelve of either after it would
  // repeat a run of 6 if they were counted (signs before "0" and after "z" alike).
  assert.equal(kindOf(`${xoxb} aB3dE5fG7h J9kL2mN4~~~~~~~~~~~~`), SLACK);
  assert.equal(kindOf(`${xoxb} aB3dE5fG7h J9kL2mN4------------`), SLACK);
});

test('two-letter parts are not counted: they make no split body prose', () => {
  // 10 word letters of 20 counted: a token; "of" counted too would make 12 of 22, prose.
  assert.equal(kindOf(`${xoxb} of aB3dE5fG7h somewordsx`), SLACK);
});

test('camelCase pieces read as words; pieces that mix digits into letters do not', () => {
  // 13 letters of camelCase beside 10 that are no word: prose.
  assert.equal(kindOf(`${xoxb} aB3dE5fG7h camelCaseWord`), null);
  // Digits before a capitalised word, between lower-case runs, or after a capital: no words, tokens.
  for (const text of [
    `${xoxb} X7Tokens Q4Secret aB3dE`,
    `${xoxb} ab3cd4ef5gh jk7mn8pq9rs`,
    `${xoxb} ghK7M3Q9 wxZ2Y5V8`,
  ])
    assert.equal(kindOf(text), SLACK, text);
});

// A token cut into `n` pieces after its prefix (which stands alone), with words before it.
const GH_BODY = 'aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zC5'; // 36 characters, no run of 6 repeated
/** GH_BODY cut into pieces of the given sizes. */
const cut = (sizes: number[]) => {
  const out: string[] = [];
  let at = 0;
  for (const n of sizes) {
    out.push(GH_BODY.slice(at, at + n));
    at += n;
  }
  assert.equal(at, GH_BODY.length);
  return out;
};

test('a token in 24 pieces after its prefix is still found; in 25 it is not', () => {
  const twentyFour = cut(Array.from({ length: 12 }, () => [2, 1]).flat());
  const twentyFive = cut([...Array.from({ length: 11 }, () => [2, 1]).flat(), 1, 1, 1]);
  assert.equal(twentyFour.length, 24);
  assert.equal(twentyFive.length, 25);
  assert.equal(kindOf(`the token: ${ghp} ${twentyFour.join(' ')}`), GITHUB);
  assert.equal(kindOf(`the token: ${ghp} ${twentyFive.join(' ')}`), null);
  // An empty string literal between two pieces joins them and is no piece of its own.
  assert.equal(
    kindOf(`the token: ${ghp} ${twentyFour.slice(0, 5).join(' ')} "" ${twentyFour.slice(5).join(' ')}`),
    GITHUB,
  );
});

test('pieces are joined up to 400 characters from the prefix; at 401 they are not', () => {
  const long = seededText(20261203)(ALNUM, 392);
  // "glpat-aB3" (9) + 391 = 400; + 392 = 401. Words before the prefix: it is not at the start.
  assert.equal(kindOf(`token: ${join('gl', 'pat-')}aB3 ${long.slice(0, 391)}`), 'a GitLab token');
  assert.equal(kindOf(`token: ${join('gl', 'pat-')}aB3 ${long}`), null);
});

test('a split token followed by a sentence is found, and the sentence is not measured with it', () => {
  const text = `${ghp}${GH_BODY.slice(0, 16)} ${GH_BODY.slice(16)} is the token that the deploy bot uses for releases every night`;
  assert.equal(kindOf(text), GITHUB);
});

test('a prefix after a sign that is no word character starts a token', () => {
  assert.equal(kindOf(`(${ghp}${GH_BODY.slice(0, 16)} ${GH_BODY.slice(16)})`), GITHUB);
});

test('a split AWS key id ending in EXAMPLE is the documentation example, as when it is whole', () => {
  assert.equal(kindOf(`${akia}A1B2 C3D4EEXAMPLE`), null);
  assert.equal(kindOf(`${akia}A1B2 C3D4EEXAMPLQ`), AWS);
});

// The last piece of a candidate may go on after the token ends (the token's pattern stops at a "."
// or "~"). The candidate's pieces decide whether it is tried; the token's own pieces whether it is one.
test('a token whose own pieces read as prose is not made a token by random text after it', () => {
  // 36 characters that change class twice, then random text in the same piece.
  assert.equal(
    kindOf(`${xoxb} QWERTYUIOPasdfgh jklzxcvbnmASDFGHJKLZ.aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5bC7dE9`),
    null,
  );
  // Half of words in the token's pieces; the piece that ends it goes on with random text.
  assert.equal(kindOf(`${xoxb} somewords plainkeys aB3dE5fG7h.xY7wV5uT3sR1qP9oN8mL6`), null);
});

test('a candidate whose last piece goes on as prose or repeats itself is not tried', () => {
  // The token alone (18 random characters) would be one; the long word glued after it makes the
  // candidate prose, and a repeat of 6 after it makes it no token, and pieces after do not undo it.
  // A miss the heuristics accept (ADR 0061, "Cost": tokens glued to punctuation are not all caught);
  // pinned so that a change to it is deliberate.
  assert.equal(kindOf(`${xoxb} aB3dE5fG7h J9kL2mN4.thisisjustaverylongwordwithoutend`), null);
  assert.equal(kindOf(`${xoxb} aB3dE5fG7h J9kL2mN4.J9kL2mN4`), null);
  assert.equal(
    kindOf(`${xoxb} aB3dE5fG7h J9kL2mN4.thisisjustaverylongwordwithoutend xY7wV5uT3sR1qP9oN8mL6kJ4`),
    null,
  );
});

test('a split invite counts by its checksum alone, in either case, however regular its text', () => {
  const random = encodeInvite(
    Uint8Array.from(Buffer.from(seededText(20261204)(HEX, 64), 'hex')),
    'wss://signal.example.com',
  );
  const upper = `papo1${random.slice(5).toUpperCase()}`;
  assert.equal(kindOf(`join with\n${upper.slice(0, 40)}\n${upper.slice(40)}\n`), 'a papo room invite');
  // A secret of repeating bytes repeats runs of 6 (no generic token would be joined); still an invite.
  const regular = encodeInvite(
    Uint8Array.from({ length: 32 }, (_, i) => (i % 5) + 1),
    'wss://signal.example.com',
  );
  assert.equal(kindOf(`join with\n${regular.slice(0, 40)}\n${regular.slice(40)}\n`), 'a papo room invite');
});

test('.env lines: what may follow the value, where the line starts, and .yml paths', () => {
  const v = 'aB3cD4eF5gH6jK9m';
  // A // comment after any number of spaces.
  assert.equal(kindOf(`API_TOKEN = "${v}";  // rotated`), ENV);
  // After the value only spaces, one "," or ";", and a comment: anything else is not a value's end.
  assert.equal(kindOf(`API_TOKEN=${v},x`), null);
  assert.equal(kindOf(`API_TOKEN=${v},x#note`), null);
  // An assignment inside a line of text is not a .env line.
  assert.equal(kindOf('restored from cache_key=3f9a1c07b2e4d5f6a7b8'), null);
  // At the start of a line the same text is one (a secret-like name, a random value).
  assert.equal(kindOf('cache_key=3f9a1c07b2e4d5f6a7b8'), ENV);
  // A path ending in .yml (not an identifier: it starts with a digit) is a path.
  assert.equal(kindOf('API_TOKEN=9B3cD4eF5gH6jK.yml'), null);
  assert.equal(kindOf('API_TOKEN=9B3cD4eF5gH6jK.yql'), ENV);
});
