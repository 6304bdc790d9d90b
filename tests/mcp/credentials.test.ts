// The credential refusal of `send`. Secrets are assembled at run time from fragments and a seeded
// generator, so no literal in the repository looks like a real credential to a secret scanner.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findCredential } from '../../src/mcp/credentials.js';
import { ALNUM, B64, DIG, HEX, LOW, seededText, UP } from '../support/seeded-text.js';

const rnd = seededText(20261130);
const b64url = (s: string) => Buffer.from(s).toString('base64url');
const join = (...parts: string[]) => parts.join('');

const SECRETS: [string, string, RegExp][] = [
  [
    'PEM private key',
    `here is the key:\n${join('-----BEGIN ', 'RSA PRIVATE', ' KEY-----')}\n${rnd(B64, 64)}\n${rnd(B64, 64)}\n${join('-----END ', 'RSA PRIVATE', ' KEY-----')}`,
    /private key/,
  ],
  [
    'OpenSSH private key',
    `${join('-----BEGIN ', 'OPENSSH PRIVATE', ' KEY-----')}\n${rnd(B64, 70)}\n`,
    /private key/,
  ],
  ['AWS access key id', `use ${join('AK', 'IA')}${rnd(UP + DIG, 16)} for the bucket`, /AWS access key id/],
  ['AWS session key id', `${join('AS', 'IA')}${rnd(UP + DIG, 16)}`, /AWS access key id/],
  [
    'AWS secret key assignment',
    `${join('aws_secret', '_access_key')} = ${rnd(ALNUM, 30)}/${rnd(ALNUM, 9)}`,
    /AWS secret access key/,
  ],
  ['GitHub classic token', `token ${join('gh', 'p_')}${rnd(ALNUM, 36)}`, /GitHub token/],
  ['GitHub OAuth token', `${join('gh', 'o_')}${rnd(ALNUM, 36)}`, /GitHub token/],
  [
    'GitHub fine-grained token',
    `${join('github', '_pat_')}${rnd(ALNUM, 22)}_${rnd(ALNUM, 59)}`,
    /GitHub token/,
  ],
  ['GitLab token', `${join('gl', 'pat-')}${rnd(ALNUM, 20)}`, /GitLab token/],
  ['Slack bot token', `${join('xo', 'xb-')}${rnd(DIG, 12)}-${rnd(DIG, 13)}-${rnd(ALNUM, 24)}`, /Slack token/],
  [
    'Slack webhook',
    `https://hooks.slack.com/services/T${rnd(UP + DIG, 8)}/B${rnd(UP + DIG, 8)}/${rnd(ALNUM, 24)}`,
    /Slack webhook/,
  ],
  ['Stripe live secret key', `${join('sk', '_live_')}${rnd(ALNUM, 24)}`, /Stripe live key/],
  ['Stripe restricted key', `${join('rk', '_live_')}${rnd(ALNUM, 24)}`, /Stripe live key/],
  ['OpenAI project key', `${join('sk', '-proj-')}${rnd(`${ALNUM}_-`, 48)}`, /OpenAI API key/],
  [
    'OpenAI legacy key',
    `OPENAI: ${join('sk', '-')}${rnd(ALNUM, 20)}T3Blbk${'FJ'}${rnd(ALNUM, 20)}`,
    /OpenAI API key/,
  ],
  ['Anthropic key', `${join('sk', '-ant-', 'api03-')}${rnd(`${ALNUM}_-`, 93)}AA`, /Anthropic API key/],
  ['Google API key', `${join('AI', 'za')}${rnd(`${ALNUM}_-`, 35)}`, /Google API key/],
  ['npm token', `${join('np', 'm_')}${rnd(ALNUM, 36)}`, /npm token/],
  [
    'JWT',
    `Authorization header was ${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url('{"sub":"1234567890","name":"A"}')}.${rnd(`${ALNUM}_-`, 43)}`,
    /JWT/,
  ],
  ['.env secret', `DATABASE_URL_HOST=db\nSTRIPE_SECRET=${rnd(ALNUM, 32)}\n`, /\.env-style/],
  ['.env password quoted', `export DB_PASSWORD="${rnd(ALNUM, 20)}"`, /\.env-style/],
  ['.env hex token', `WEBHOOK_TOKEN=${rnd(HEX, 64)}`, /\.env-style/],
  ['YAML api key', `service:\n  api_key: ${rnd(ALNUM, 40)}\n`, /\.env-style/],
  ['JSON client secret', `{\n  "client_secret": "${rnd(ALNUM, 32)}",\n  "x": 1\n}`, /\.env-style/],
  ['bearer header', `curl -H "Authorization: Bearer ${rnd(ALNUM, 40)}" https://api`, /Authorization header/],
  ['URL with password', `postgres://app:${rnd(ALNUM, 18)}@db.internal:5432/app`, /embedded password/],
  ['papo invite', `join with papo1${rnd('abcdefghijklmnopqrstuvwxyz234567', 80)}`, /papo room invite/],
];

const HARMLESS: [string, string][] = [
  ['git SHA', `Fixed in commit ${rnd(HEX, 40)} (short ${rnd(HEX, 7)}).`],
  ['sha256 hex', `sha256: ${rnd(HEX, 64)}\nchecksum ${rnd(HEX, 64)}`],
  [
    'UUIDs',
    `event_id ${rnd(HEX, 8)}-${rnd(HEX, 4)}-4${rnd(HEX, 3)}-a${rnd(HEX, 3)}-${rnd(HEX, 12)} per delivery`,
  ],
  [
    'base64 of text',
    `payload: ${Buffer.from('The quick brown fox jumps over the lazy dog, twice over.').toString('base64')}`,
  ],
  [
    'token variables in code',
    'const token = await getToken(req);\nif (!token) throw new Error("no token");\nconst apiKey = process.env.API_KEY_V2;',
  ],
  ['empty env value', 'API_KEY=\nSECRET_KEY=\n'],
  [
    'placeholder env values',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-style placeholder, on purpose.
    'API_KEY=your-api-key-here\nSTRIPE_SECRET=<your stripe secret>\nTOKEN=${TOKEN}\nPASSWORD=changeme123456789\nAPI_KEY=xxxxxxxxxxxxxxxxxxxx',
  ],
  [
    'env referencing paths and URLs',
    'PRIVATE_KEY_PATH=/etc/ssl/private/server2048.pem\nAUTH_URL=https://auth.example2.io/oauth2/token',
  ],
  ['TypeScript interface', 'interface Creds {\n  token: string;\n  apiKey?: string;\n}'],
  [
    'documentation of key formats',
    'GitHub tokens start with ghp_ and AWS key ids with AKIA; never paste them.',
  ],
  ['AWS documentation example id', `${join('AKIA', 'IOSFODNN7')}EXAMPLE`],
  ['PEM header mentioned in code', "if (pem.startsWith('-----BEGIN PRIVATE KEY-----')) parse(pem);"],
  ['kebab-case identifiers', 'run sk-learn-pipeline-for-the-regression-model-training-v2 first'],
  ['URL with user but no password', 'git clone https://github.com/org/repo.git and ssh://git@host:22/repo'],
  [
    'header names',
    'The verifier reads X-Signature-256 in the format sha256=<hex>; Authorization: Bearer <token>.',
  ],
  [
    'JWT-like without alg',
    `${b64url('{"typ":"x","kid":"1"}')}.${b64url('{"sub":"1234567890"}')}.${rnd(ALNUM, 30)}`,
  ],
  ['msg ids and room ids', '[msg_id=81d4e0aa6c from=colega (agent)] room 7a2e64ec endpoint 3b2c41d0a9'],
  [
    'monetary contract',
    '{"type":"payment.confirmed","event_id":"<uuid v4>","amount_cents":12990,"currency":"BRL"}',
  ],
  // Since ADR 0061 the text is normalised and prefixed tokens are joined across splits first.
  ['prose after a prefix', 'Classic tokens start with ghp_ and then thirty six letters and digits follow it'],
  ['Cyrillic prose', 'Ключ лежит в хранилище секретов, не в чате.'],
  ['emoji sequences', 'done 👩\u200d💻 and 👨\u200d👩\u200d👧'],
  ['fullwidth text', 'ＡＰＩの設定は完了しました'],
  ['.env line with a comment and a short value', 'TOKEN_TTL=3600 # seconds\nAPI_KEY=changeme # local only'],
  ['a sha256 wrapped over lines', `${rnd(HEX, 32)}\n${rnd(HEX, 32)}`],
];

test('credential-shaped text is refused with the kind named and the value never echoed', () => {
  for (const [label, text, kind] of SECRETS) {
    const found = findCredential(text);
    assert.ok(found !== null, `${label} should be refused`);
    assert.match(found.kind, kind, label);
    // The finding names a kind; it never carries a fragment of the input.
    assert.ok(!/[0-9]{4}|[A-Za-z0-9]{20}/.test(found.kind), label);
  }
});

test('harmless look-alikes are not refused', () => {
  for (const [label, text] of HARMLESS) {
    assert.equal(findCredential(text), null, `${label} was refused: ${JSON.stringify(findCredential(text))}`);
  }
});

test('a 48 KiB message without secrets passes', () => {
  const text = rnd(`${LOW} \n.,`, 48 * 1024);
  assert.equal(findCredential(text), null);
});

// The detectors at their edges (mutation testing, ADR 0080): each case either is refused, with its
// kind, or passes, and each one tells one rule from a near miss of it.
const edges = seededText(20261202);
/** A random value of `n` letters and digits with both kinds in it (so it "looks random"). */
const value = (n: number) => `aB3${edges(ALNUM, n - 3)}`;
const kindOf = (text: string) => findCredential(text)?.kind ?? null;
const ENV = 'a secret assignment (a .env-style line)';

test('.env values: the length, letters and digits, and entropy edges of "looks random"', () => {
  assert.equal(kindOf(`API_TOKEN=${value(16)}`), ENV);
  assert.equal(kindOf(`API_TOKEN=${value(15)}`), null);
  assert.equal(kindOf(`API_TOKEN=${edges(UP + LOW, 24)}`), null, 'letters only');
  assert.equal(kindOf(`API_TOKEN=${edges(DIG, 24)}`), null, 'digits only');
  assert.equal(kindOf('API_TOKEN=aaaaaaaaaaaaaaa1'), null, 'too little variety');
  // Eight characters, each twice: exactly 3 bits per character, the least that counts as random.
  assert.equal(kindOf('API_TOKEN=abcd1234abcd1234'), ENV);
  assert.equal(kindOf(`DB_PASSWD=${value(20)}`), ENV);
  assert.equal(kindOf(`export  API_TOKEN=${value(20)}`), ENV);
});

test('.env values that are placeholders, code or paths pass; near misses of them do not', () => {
  const passes = [
    `API_KEY=your_${value(16)}`,
    `API_KEY=Ab3testkeyZ9pQ7xW`,
    `API_KEY=Ab3test_keyZ9pQ7x`,
    `API_TOKEN=aB3cD4.eF5gH6jK9mN`,
    `API_TOKEN=aB3cD4.eF5gH6.jK9mN`,
    `API_TOKEN=https://a1b2c3d4e5f6g7`,
    `API_TOKEN=getToken(aB3cD4eF5gH6jK)`,
    `API_TOKEN=./aB3cD4eF5gH6jK9m`,
    `API_TOKEN=aB3cD4eF5gH6.yml`,
  ];
  for (const text of passes) assert.equal(kindOf(text), null, text);
  const refused = [
    `API_KEY=Ab3*dE5fG7hJ9kLmN`,
    `API_KEY=9b3.dE5fG7hJ9kLmN`,
    `API_TOKEN=9xYz.Ab3dEf7GhJ2k`,
    `API_TOKEN=aB3.cD4eF5gH6-jK9`,
    `API_TOKEN=aB3cD4/eF5gH6jK9m`,
    `API_TOKEN=9B3cD4eF5.pemX9kL`,
  ];
  for (const text of refused) assert.equal(kindOf(text), ENV, text);
});

test('lookalikes from every table are folded: Armenian and Latin letters, connectors', () => {
  const body = `aB${edges(ALNUM, 32)}zY`;
  assert.match(kindOf(join('gh', 'p_', body.replace('a', '\u0251'))) ?? '', /GitHub token/);
  assert.match(kindOf(join('sk', '\u203flive\u203f', edges(ALNUM, 24))) ?? '', /Stripe live key/);
  // Other characters outside ASCII stay as they are: they neither join nor split a token.
  assert.equal(kindOf('xoxb\u4e2d1234567890abc'), null);
  assert.equal(kindOf(`sk\u4e2dlive\u4e2d${edges(ALNUM, 24)}`), null);
});

test('split tokens: gaps up to 16 characters join pieces, longer ones are paragraphs; quotes and pluses join', () => {
  const gh = join('gh', 'p_', `aB${edges(ALNUM, 32)}zY`);
  assert.match(kindOf(`${gh.slice(0, 20)}${' '.repeat(16)}${gh.slice(20)}`) ?? '', /GitHub token/);
  assert.equal(kindOf(`${gh.slice(0, 20)}${' '.repeat(17)}${gh.slice(20)}`), null);
  assert.match(kindOf(`const t='${gh.slice(0, 15)}'+'${gh.slice(15)}';`) ?? '', /GitHub token/);
});

test('prose in any word shape after a prefix is prose, not a split token', () => {
  for (const text of [
    `${join('gh', 'p_')} GitHubTokens PascalCase camelCase WordsHere again`,
    `${join('gh', 'p_')} tokens are long random strings that people paste`,
  ])
    assert.equal(kindOf(text), null, text);
});

test('private key blocks: any algorithm word or none, header lines, blank lines; a short body is not one', () => {
  const b64 = edges(B64, 64);
  const pem = (header: string, rest: string) =>
    `${join('-----BEGIN ', header, 'PRIVATE', ' KEY-----')}${rest}`;
  for (const text of [
    pem('', `\n${b64}\n`),
    pem('EC ', `\n\n${b64}\n`),
    pem('RSA ', `\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${edges(HEX, 32)}\n\n${b64}\n`),
  ])
    assert.match(kindOf(text) ?? '', /private key/, text);
  assert.equal(kindOf(pem('', '\nMIIE\n')), null);
});

test('AWS secret keys in every spelling of their name; 41 characters is no AWS key', () => {
  const secret = `${edges(ALNUM, 30)}/${edges(ALNUM, 9)}`;
  for (const name of [
    'aws_secret_access_key',
    'awssecretaccesskey',
    'AWS_SECRET_KEY',
    'aws_secret_accesskey',
    'awssecret_access_key',
  ])
    for (const sep of ['=', ' = ', ': ', ' :', '="', '": "'])
      assert.equal(kindOf(`${name}${sep}${secret}`), 'an AWS secret access key', `${name}${sep}`);
  assert.notEqual(kindOf(`aws_secret_access_key=${secret}x`), 'an AWS secret access key');
});

test('tokens with a distinctive prefix need their length: a short one is not refused', () => {
  for (const text of [
    join('gl', 'pat-', 'abc'),
    join('xo', 'xb-', '123'),
    join('sk', '_live_', 'abc'),
    join('sk', '-ant-', 'abc'),
    join('sk', '-proj-', 'abc'),
    `https://hooks.slack.com/services/T${edges(UP, 8)}/B${edges(UP, 8)}/abc`,
    `${b64url('{"alg":"HS256"}')}.${b64url('{"sub":"1"}')}.abc`,
    // The generic OpenAI form needs lower case as well as upper case.
    join('sk', '-', edges(UP + DIG, 40)),
  ])
    assert.equal(kindOf(text), null, text);
  // A project key too short for the generic form is found by its own.
  assert.equal(kindOf(join('sk', '-proj-', edges(ALNUM, 24))), 'an OpenAI API key');
});

test('Authorization headers in every spacing and quoting', () => {
  const token = value(40);
  for (const text of [
    `"Authorization": "Bearer ${token}"`,
    `Authorization:Bearer ${token}`,
    `Authorization  : Bearer ${token}`,
    `Authorization: 'Bearer ${token}'`,
    `Authorization: Bearer  ${token}`,
    `authorization=token ${token}`,
  ])
    assert.equal(kindOf(text), 'an Authorization header with a token', text);
});

test('a split papo1 text counts only if it is a valid invite; split tokens count wherever they stand', () => {
  const fake = `papo1${edges('abcdefghijklmnopqrstuvwxyz234567', 80)}`;
  assert.equal(kindOf(`join with\n${fake.slice(0, 30)}\n${fake.slice(30, 60)}\n${fake.slice(60)}\n`), null);
  const gh = join('gh', 'p_', `aB${edges(ALNUM, 32)}zY`);
  for (const text of [
    `please use ${gh.slice(0, 20)} ${gh.slice(20)} for the deploy`,
    `a b c d e f ${gh.slice(0, 9)} ${gh.slice(9, 21)} ${gh.slice(21)}`,
    `x ${gh.slice(0, 2)} ${gh.slice(2)}`,
  ])
    assert.match(kindOf(text) ?? '', /GitHub token/, text);
  // Pieces after a prefix that do not start a word (inside another word) are not joined.
  assert.equal(kindOf(`xx${gh.slice(0, 20)} ${gh.slice(20)}`), null);
});

test('a Google API key ending in "-" is refused, whole or split', () => {
  // Its last character may be "-", after which the end or a space is no word boundary.
  const key = join('AI', 'za', 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6-');
  assert.equal(kindOf(`key ${key} here`), 'a Google API key');
  assert.equal(kindOf(key), 'a Google API key');
  assert.equal(kindOf(`${key.slice(0, 20)} ${key.slice(20)} here`), 'a Google API key');
  // One character more is not a Google key.
  assert.equal(kindOf(`${key}x here`), null);
});
