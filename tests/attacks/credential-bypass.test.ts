// The 2026-12-01 review got credentials past `send` (docs/security.md, "7."): a GitHub token with a
// zero-width space inside, with a Cyrillic homoglyph, split by a space, and a `.env` line with a
// trailing comment. Each bypass below must be refused, each look-alike below must pass, and one
// bypass goes through the `send` tool of a real, built `papo mcp`.
//
// Secrets are assembled at run time from fragments and a seeded generator (as in
// tests/mcp/credentials.test.ts), so no literal in the repository looks like a real credential.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { encodeInvite } from '../../src/client/wire/invite.js';
import { findCredential } from '../../src/mcp/credentials.js';
import { makeTempDir } from '../support/files.js';
import { spawnMcp } from '../support/mcp-process.js';
import { runPapo, userEnv } from '../support/papo.js';
import { resultText } from '../support/rpc-client.js';
import { ALNUM, B64, DIG, HEX, seededText, UP } from '../support/seeded-text.js';

const rnd = seededText(20261201);
const join_ = (...parts: string[]) => parts.join('');
const b64url = (s: string) => Buffer.from(s).toString('base64url');

/** A GitHub classic token whose body starts and ends with letters, so edits in it are visible. */
const GH_BODY = `aB${rnd(ALNUM, 32)}zY`;
const GH = join_('gh', 'p_', GH_BODY);
/** Inserts `what` into `s` at `at`. */
const insert = (s: string, at: number, what: string) => s.slice(0, at) + what + s.slice(at);
/** `s` cut into pieces of `n` characters joined by `sep`. */
const chunks = (s: string, n: number, sep: string) =>
  (s.match(new RegExp(`.{1,${n}}`, 'gs')) ?? []).join(sep);
/** Every ASCII character of `s` as its fullwidth form (U+FF01-FF5E). */
const fullwidth = (s: string) =>
  [...s].map((c) => String.fromCodePoint((c.codePointAt(0) as number) + 0xfee0)).join('');
/** Every ASCII character as a Unicode tag character: invisible on screen, read by a model. */
const tags = (s: string) =>
  [...s].map((c) => String.fromCodePoint((c.codePointAt(0) as number) + 0xe0000)).join('');

const AWS_ID = join_('AK', 'IA', rnd(UP + DIG, 16));
const SLACK = join_('xo', 'xb-', rnd(DIG, 12), '-', rnd(DIG, 13), '-', rnd(ALNUM, 24));
const GITLAB = join_('gl', 'pat-', rnd(ALNUM, 20));
const STRIPE = join_('sk', '_live_', rnd(ALNUM, 24));
const ANTHROPIC = join_('sk', '-ant-', 'api03-', rnd(`${ALNUM}_-`, 93), 'AA');
const OPENAI = join_('sk', '-proj-', rnd(`${ALNUM}_-`, 48));
const GOOGLE = join_('AI', 'za', rnd(`${ALNUM}_-`, 35));
const NPM = join_('np', 'm_', rnd(ALNUM, 36));
const JWT = `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url('{"sub":"1234567890","name":"A"}')}.${rnd(`${ALNUM}_-`, 43)}`;
const INVITE = encodeInvite(Uint8Array.from(Buffer.from(rnd(HEX, 64), 'hex')), 'wss://signal.example.com');
const PASSWORD = rnd(ALNUM, 24);

const BYPASSES: [string, string, RegExp][] = [
  // Invisible characters inside the token.
  ['zero-width space (U+200B)', `use ${insert(GH, 12, '\u200b')} to push`, /GitHub token/],
  ['zero-width non-joiner (U+200C)', insert(GH, 20, '\u200c'), /GitHub token/],
  ['zero-width joiner (U+200D)', insert(GH, 8, '\u200d'), /GitHub token/],
  ['word joiner (U+2060)', insert(GH, 30, '\u2060'), /GitHub token/],
  ['soft hyphen (U+00AD)', insert(GH, 16, '\u00ad'), /GitHub token/],
  ['byte order mark (U+FEFF)', insert(GH, 5, '\ufeff'), /GitHub token/],
  ['bidi override (U+202E ... U+202C)', insert(insert(GH, 10, '\u202e'), 25, '\u202c'), /GitHub token/],
  ['variation selector (U+FE0F)', insert(GH, 14, '\ufe0f'), /GitHub token/],
  ['combining grapheme joiner (U+034F)', insert(GH, 14, '\u034f'), /GitHub token/],
  ['zero-width spaces between every character', [...GH].join('\u200b'), /GitHub token/],
  ['a combining accent on a letter', insert(GH, 6, '\u0301'), /GitHub token/],
  ['Unicode tag characters (invisible ASCII)', `see ${tags(GH)} ok`, /GitHub token/],
  // Lookalike letters.
  ['Cyrillic er in the prefix', GH.replace('p_', '\u0440_'), /GitHub token/],
  ['Cyrillic a, e, o in the body', `${GH.slice(0, 4)}\u0430\u0435\u043e${GH.slice(7)}`, /GitHub token/],
  ['Greek capitals in the body', `${GH.slice(0, 4)}\u0391\u0392\u039f${GH.slice(7)}`, /GitHub token/],
  ['fullwidth letters', fullwidth(GH), /GitHub token/],
  ['mathematical bold prefix', `\u{1d420}\u{1d421}\u{1d429}_${GH_BODY}`, /GitHub token/],
  ['Cyrillic A in an AWS key id', AWS_ID.replace('A', '\u0410'), /AWS access key id/],
  ['en dash in a Slack token', SLACK.replace('-', '\u2013'), /Slack token/],
  ['non-breaking hyphen in a GitLab token', GITLAB.replace('-', '\u2011'), /GitLab token/],
  ['fullwidth low line in a Stripe key', STRIPE.replaceAll('_', '\uff3f'), /Stripe live key/],
  ['minus sign in an Anthropic key', ANTHROPIC.replace('-', '\u2212'), /Anthropic API key/],
  [
    'zero-width space in a PEM header',
    `-----BEGIN RSA PRI\u200bVATE KEY-----\n${rnd(B64, 64)}\n`,
    /private key/,
  ],
  // Split by whitespace.
  ['split by a space', `token: ${GH.slice(0, 20)} ${GH.slice(20)}`, /GitHub token/],
  ['split by a newline', `${GH.slice(0, 25)}\n${GH.slice(25)}\nthanks`, /GitHub token/],
  ['split by a tab', `${GH.slice(0, 17)}\t${GH.slice(17)}`, /GitHub token/],
  ['split right after the prefix', `${GH.slice(0, 4)} ${GH.slice(4)}`, /GitHub token/],
  ['split inside the prefix', `g hp_${GH_BODY}`, /GitHub token/],
  ['split every 4 characters', chunks(GH, 4, ' '), /GitHub token/],
  ['split every 2 characters', chunks(GH, 2, ' '), /GitHub token/],
  ['split by a no-break space', `${GH.slice(0, 20)}\u00a0${GH.slice(20)}`, /GitHub token/],
  ['split by an ideographic space', `${GH.slice(0, 20)}\u3000${GH.slice(20)}`, /GitHub token/],
  // Drawn as a space, but not white space to Unicode: the reader view reads it as one (ADR 0095).
  ['split by a braille blank (U+2800)', `${GH.slice(0, 20)}\u2800${GH.slice(20)}`, /GitHub token/],
  [
    'split then followed by prose',
    `${GH.slice(0, 20)} ${GH.slice(20)} is the one for the deploy bot`,
    /GitHub token/,
  ],
  ['string concatenation', `const t = '${GH.slice(0, 15)}' + '${GH.slice(15)}';`, /GitHub token/],
  ['adjacent string literals', `t = "${GH.slice(0, 15)}" "${GH.slice(15)}"`, /GitHub token/],
  ['AWS key id split by a space', `${AWS_ID.slice(0, 10)} ${AWS_ID.slice(10)}`, /AWS access key id/],
  ['GitLab token split by a newline', `${GITLAB.slice(0, 12)}\n${GITLAB.slice(12)}`, /GitLab token/],
  ['Slack token split by spaces', chunks(SLACK, 10, ' '), /Slack token/],
  ['Stripe key split by a space', `${STRIPE.slice(0, 14)} ${STRIPE.slice(14)}`, /Stripe live key/],
  ['OpenAI key split over lines', chunks(OPENAI, 20, '\n'), /OpenAI API key/],
  ['Anthropic key split over lines', chunks(ANTHROPIC, 12, '\n'), /Anthropic API key/],
  ['Google key split by a space', `${GOOGLE.slice(0, 19)} ${GOOGLE.slice(19)}`, /Google API key/],
  ['npm token split by a space', `${NPM.slice(0, 21)} ${NPM.slice(21)}`, /npm token/],
  ['JWT split over lines', chunks(JWT, 30, '\n'), /JWT/],
  ['papo invite split over lines', `join with\n${chunks(INVITE, 40, '\n')}\n`, /papo room invite/],
  ['papo invite with zero-width spaces', insert(INVITE, 30, '\u200b'), /papo room invite/],
  // .env lines.
  ['trailing comment', `DB_HOST=db.internal\nDB_PASSWORD=${PASSWORD} # prod\n`, /\.env-style/],
  ['trailing comment without a space', `DB_PASSWORD=${PASSWORD}# prod`, /\.env-style/],
  ['trailing // comment', `API_TOKEN = "${PASSWORD}"; // rotated monthly`, /\.env-style/],
  ['YAML value with a comment', `db:\n  password: "${PASSWORD}"  # prod only\n`, /\.env-style/],
  ['Cyrillic letter in the variable name', `DB_P\u0410SSWORD=${PASSWORD}`, /\.env-style/],
  ['zero-width space in the value', `SECRET_KEY=${insert(PASSWORD, 9, '\u200b')}`, /\.env-style/],
  ['fullwidth equals sign', `SECRET_KEY\uff1d${PASSWORD}`, /\.env-style/],
];

/** The 8-byte PNG signature and an IHDR chunk of a 640x480 RGBA image, as a data URL would carry. */
function pngHeader(): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'ascii');
  ihdr.writeUInt32BE(640, 8);
  ihdr.writeUInt32BE(480, 12);
  ihdr.set([8, 6, 0, 0, 0], 16);
  ihdr.writeUInt32BE(0x1a2b3c4d, 21);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
}

const HARMLESS: [string, string][] = [
  ['git SHAs', `Fixed in ${rnd(HEX, 40)}, reverted in ${rnd(HEX, 40)} (short ${rnd(HEX, 7)}).`],
  [
    'git log --oneline',
    Array.from({ length: 8 }, () => `${rnd(HEX, 7)} fix(store): fsync the folder after rename`).join('\n'),
  ],
  ['sha256 sums', Array.from({ length: 4 }, (_, i) => `${rnd(HEX, 64)}  dist/file${i}.js`).join('\n')],
  ['a docker digest', `image: node@sha256:${rnd(HEX, 64)}`],
  ['a sha256 split over lines', chunks(rnd(HEX, 64), 16, '\n')],
  [
    'UUIDs',
    Array.from(
      { length: 5 },
      () => `${rnd(HEX, 8)}-${rnd(HEX, 4)}-4${rnd(HEX, 3)}-a${rnd(HEX, 3)}-${rnd(HEX, 12)}`,
    ).join(' '),
  ],
  [
    'ordinary TypeScript',
    'import { readFile } from "node:fs/promises";\nexport async function token(path: string) {\n  const text = await readFile(path, "utf8");\n  return text.trim();\n}',
  ],
  [
    'import lines',
    "import { sk } from './sk-utils.js';\nimport ghPages from 'gh-pages';\nimport npm_ from 'npm';",
  ],
  [
    'prose about token prefixes',
    'GitHub tokens start with ghp_ and are followed by thirty six characters; GitLab ones start with glpat- and Slack bot tokens with xoxb- then numbers.',
  ],
  [
    'prose after a prefix, Title Case',
    'Prefixes: ghp_ Tokens Have Thirty Six Characters After The Prefix, Said The GitHub Docs In Their Guide',
  ],
  [
    'prose with numbers after a prefix',
    'The sk- keys we rotated in 2024 were 51 characters long and 3 of them leaked.',
  ],
  ['an all-caps heading after a prefix', 'AKIA KEYS ARE LONG LIVED, ASIA KEYS ARE SESSION KEYS'],
  ['a JWT explained', 'A JWT starts with eyJ because base64 of {" is eyJ; the header names the alg.'],
  [
    'URLs',
    'See https://github.com/org/repo/blob/3f9a1c07b2/src/index.ts#L10 and https://docs.gitlab.com/ee/user/profile/personal_access_tokens.html',
  ],
  ['base64 of a PNG header', `data:image/png;base64,${pngHeader().toString('base64')}`],
  [
    'base64 of text wrapped at 76',
    chunks(
      Buffer.from('The quick brown fox jumps over the lazy dog. '.repeat(6)).toString('base64'),
      76,
      '\n',
    ),
  ],
  [
    'Russian prose',
    'Привет! Это обычный текст о токенах, ключах и паролях: никогда не отправляйте их в чат.',
  ],
  ['Greek prose', 'Καλημέρα, ο κωδικός είναι στο αρχείο ρυθμίσεων· μην τον στέλνεις εδώ.'],
  ['Japanese with fullwidth punctuation', 'トークンは共有しないでください（ＡＰＩキーも同様です）。'],
  ['emoji with zero-width joiners', 'Deployed 👩\u200d💻👨\u200d👩\u200d👧 and 🏳️\u200d🌈 ok'],
  ['Hebrew with a right-to-left mark', 'שלום\u200f, the build passed'],
  [
    '.env with placeholders and comments',
    'API_KEY=changeme # set in prod\nTOKEN_TTL_SECONDS=3600 # an hour\nAUTH_URL=https://auth.example2.io/oauth2/token # issuer',
  ],
  [
    'a Python comment with a token word',
    'password_hash = bcrypt.hashpw(password, salt)  # never log the password',
  ],
  ['asset names with hashes', 'main.3f9a1c07b2e4d5f6.js vendor.8b1d2e3f4a5b6c7d.css'],
  ['hex dump', '00000000: 8950 4e47 0d0a 1a0a 0000 000d 4948 4452  .PNG........IHDR'],
  ['npm environment names', 'npm_config_cache and npm_package_version are set by npm run'],
  ['kebab-case identifiers split over lines', 'sk-learn-pipeline\nfor-the-regression\nmodel-training-v2'],
];

test('every bypass of the review and its relatives is refused, naming the kind and never the value', () => {
  const failures: string[] = [];
  for (const [label, text, kind] of BYPASSES) {
    const found = findCredential(text);
    if (found === null || !kind.test(found.kind)) {
      failures.push(`${label}: ${JSON.stringify(found)}`);
      continue;
    }
    assert.ok(!/[0-9]{4}|[A-Za-z0-9]{20}/.test(found.kind), label);
  }
  assert.deepEqual(failures, []);
});

test('look-alikes stay allowed: hashes, UUIDs, code, prose in any script, base64 of data', () => {
  const refused = HARMLESS.filter(([, text]) => findCredential(text) !== null).map(
    ([label, text]) => `${label}: ${JSON.stringify(findCredential(text))}`,
  );
  assert.deepEqual(refused, []);
});

// How long this check takes (and a hostile split text's) is measured by bench/credentials.ts, not
// here: tests assert behaviour, not timings (docs/performance.md, "Credential refusal").
test('a 48 KiB message of prefixes and short pieces passes', () => {
  const decoys = `${join_('gh', 'p_')} ab ${join_('sk', '-')} Cd 9 ${join_('AK', 'IA')} `;
  const text = decoys.repeat(Math.floor((48 * 1024) / decoys.length));
  assert.equal(findCredential(text), null);
});

test('the send tool of a real papo mcp refuses a token with a zero-width space and writes nothing', async (t) => {
  const home = makeTempDir('papo-mcp-test-');
  const made = await runPapo(['new', '--name', 'voce'], { env: userEnv(home) });
  assert.equal(made.code, 0, made.stderr);
  const mcp = spawnMcp({ home, removeHome: true, env: { LANG: 'C' } });
  t.after(() => mcp.stop());
  await mcp.client.initialize();
  const hidden = insert(GH, 12, '\u200b');
  const split = `${GH.slice(0, 20)} ${GH.slice(20)}`;
  for (const message of [`use ${hidden} to push`, `use ${split} to push`, `DB_PASSWORD=${PASSWORD} # prod`]) {
    const result = await mcp.client.call('send', { message });
    assert.equal(result.isError, true, message);
    const text = resultText(result);
    assert.match(text, /^Not sent: the message contains what looks like/);
    for (const piece of [GH_BODY.slice(0, 10), GH_BODY.slice(-10), PASSWORD.slice(0, 10)]) {
      assert.ok(!text.includes(piece), 'the refusal echoes no part of the secret');
    }
  }
  // Nothing reached the queue or the log.
  const dir = join(home, 'profiles', 'default');
  for (const file of ['outbox.json', 'log.jsonl']) {
    const path = join(dir, file);
    const content = existsSync(path) ? readFileSync(path, 'utf8') : '';
    assert.ok(!content.includes(GH_BODY.slice(0, 10)) && !content.includes(PASSWORD), file);
  }
  // And an ordinary message with a git SHA still goes (queued: nobody else is in the room).
  const ok = await mcp.client.call('send', { message: `fixed in ${rnd(HEX, 40)}` }, undefined, 30_000);
  assert.notEqual(ok.isError, true, resultText(ok));
});
