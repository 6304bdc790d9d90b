// The manifest of a message's files (src/client/attach/manifest.ts, ADR 0121): every lie a hostile
// sender can tell in it refused, the name rule and safeName's repair, media types, patch detection.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { attachCaps, MAX_FILES, MAX_NAME_BYTES, MAX_NAME_CHARS } from '../../src/client/attach/constants.js';
import {
  isPatch,
  type ManifestEntry,
  manifestJson,
  mediaTypeOf,
  nameProblem,
  parseManifest,
  safeName,
} from '../../src/client/attach/manifest.js';
import { isPapoError } from '../../src/client/errors.js';

const SHA = 'ab'.repeat(32);
const entry = (over: Record<string, unknown> = {}) => ({
  name: 'spec.json',
  size: 307_200,
  sha256: SHA,
  type: 'application/json',
  ...over,
});

function refused(value: unknown, what: RegExp, caps?: Parameters<typeof parseManifest>[1]): void {
  assert.throws(
    () => parseManifest(value, caps),
    (err: unknown) => isPapoError(err, 'invalid_frame') && what.test(err.message),
    `${JSON.stringify(value)?.slice(0, 120)} was not refused with ${what}`,
  );
}

test('a sound manifest parses, unknown fields dropped, patch only when true', () => {
  const files = parseManifest([
    entry({ extra: 1 }),
    entry({ name: 'fix.patch', type: 'text/x-diff', patch: true }),
  ]);
  assert.deepEqual(files, [
    { name: 'spec.json', size: 307_200, sha256: SHA, type: 'application/json' },
    { name: 'fix.patch', size: 307_200, sha256: SHA, type: 'text/x-diff', patch: true },
  ]);
  assert.deepEqual(parseManifest(manifestJson(files)), files);
  assert.deepEqual(Object.keys(manifestJson(files)[1] as object), [
    'name',
    'size',
    'sha256',
    'type',
    'patch',
  ]);
});

test('a manifest that is not a list of 1 to 16 objects is refused', () => {
  for (const v of [
    null,
    {},
    'x',
    [],
    Array.from({ length: MAX_FILES + 1 }, (_, i) => entry({ name: `f${i}` })),
  ])
    refused(v, /files is not a list/);
  for (const v of [[null], [1], [[entry()]]]) refused(v, /is not an object/);
});

test('a manifest that lies about a size is refused: negative, fractional, unsafe, over a cap', () => {
  for (const size of [-1, 1.5, Number.NaN, 2 ** 53, '10', null]) refused([entry({ size })], /size/);
  refused([entry({ size: 16 * 1024 * 1024 + 1 })], /size/);
  refused([entry({ size: 1001 })], /size/, { maxFileBytes: 1000, maxMessageBytes: 5000 });
  // Each file under its cap, their sum over the message's.
  refused([entry({ name: 'a', size: 900 }), entry({ name: 'b', size: 900 })], /together/, {
    maxFileBytes: 1000,
    maxMessageBytes: 1500,
  });
  assert.equal(parseManifest([entry({ size: 0 })])[0]?.size, 0);
});

test('a manifest whose hash or type is not one is refused', () => {
  for (const sha256 of ['', SHA.toUpperCase(), `${SHA}0`, SHA.slice(1), 'zz'.repeat(32), 42])
    refused([entry({ sha256 })], /sha256/);
  for (const type of ['', 'json', 'Application/JSON', 'text/plain; charset=utf-8', `a/${'b'.repeat(100)}`, 7])
    refused([entry({ type })], /type/);
  refused([entry({ patch: false })], /patch/);
  refused([entry({ patch: 'yes' })], /patch/);
});

const HOSTILE_NAMES: [string, string][] = [
  ['..', '..'],
  ['.', 'dot'],
  ['../../.ssh/authorized_keys', 'a climb'],
  ['a..b', '.. inside'],
  ['dir/file.json', 'a folder'],
  ['/etc/passwd', 'an absolute path'],
  ['dir\\file.json', 'a Windows folder'],
  ['C:evil', 'a drive letter'],
  ['file\u0000.json', 'NUL'],
  ['line\nbreak.txt', 'a newline'],
  ['bell\u0007.txt', 'a control'],
  ['c1\u0085.txt', 'a C1 control'],
  ['del\u007f.txt', 'DEL'],
  ['invoice\u202egpj.exe', 'right-to-left override'],
  ['a\u2066b.txt', 'bidi isolate'],
  ['zero\u200bwidth.txt', 'zero width space'],
  ['bom\ufeff.txt', 'BOM'],
  ['CON', 'Windows CON'],
  ['con.txt', 'Windows con with an extension'],
  ['Nul.tar.gz', 'Windows NUL, any case'],
  ['COM1.json', 'Windows COM1'],
  ['lpt9', 'Windows LPT9'],
  ['COM\u00b9.txt', 'Windows COM superscript one'],
  ['CONIN$', 'Windows CONIN$'],
  ['aux .txt', 'Windows AUX with a space'],
  ['trailing.', 'a trailing dot'],
  ['trailing ', 'a trailing space'],
  [' leading', 'a leading space'],
  ['', 'empty'],
  ['a'.repeat(MAX_NAME_CHARS + 1), 'too many characters'],
  ['é'.repeat(MAX_NAME_BYTES / 2 + 1), 'too many bytes'],
  ['e\u0301.txt', 'not NFC'],
  ['what?.txt', 'a question mark'],
  ['a|b', 'a pipe'],
];

test('a manifest whose name could climb, hide, name a device or confuse is refused', () => {
  for (const [name, why] of HOSTILE_NAMES) {
    assert.notEqual(nameProblem(name), null, `${why}: ${JSON.stringify(name)} passed`);
    refused([entry({ name })], /name/);
  }
  refused([entry({ name: 7 })], /name is not a text/);
});

test('two files of one message cannot share a name, in any case', () => {
  refused([entry({ name: 'Spec.json' }), entry({ name: 'spec.JSON' })], /another file's name/);
});

test('ordinary names pass as they are', () => {
  for (const name of [
    'spec.json',
    '.env.example',
    'README',
    'über-schema.v2.json',
    'fix 1.patch',
    '日本語.md',
    'console.log',
  ])
    assert.equal(nameProblem(name), null, name);
});

test('safeName makes every hostile name safe, deterministically, and keeps good names', () => {
  for (const [name] of HOSTILE_NAMES) {
    const safe = safeName(name, SHA);
    assert.equal(nameProblem(safe), null, `${JSON.stringify(name)} became ${JSON.stringify(safe)}`);
    assert.equal(safeName(name, SHA), safe);
  }
  assert.equal(safeName('../../.ssh/authorized_keys'), 'authorized_keys');
  assert.equal(safeName('C:\\Users\\ana\\spec.json'), 'spec.json');
  assert.equal(safeName('invoice\u202egpj.exe'), 'invoice_gpj.exe');
  assert.equal(safeName('con.txt'), '_con.txt');
  assert.equal(safeName('a..b'), 'a_b');
  assert.equal(safeName('e\u0301.txt'), '\u00e9.txt');
  assert.equal(safeName('spec.json'), 'spec.json');
  // Nothing left: the fallback from the hash, or `file`.
  assert.equal(safeName('..', SHA), `file-${SHA.slice(0, 12)}`);
  assert.equal(safeName('/', SHA), `file-${SHA.slice(0, 12)}`);
  assert.equal(safeName('   '), 'file');
  // Too long: cut, its extension kept.
  const long = safeName(`${'x'.repeat(300)}.json`);
  assert.ok(long.endsWith('.json') && [...long].length <= MAX_NAME_CHARS, long);
  const wide = safeName(`${'日'.repeat(200)}.md`);
  assert.ok(wide.endsWith('.md') && Buffer.byteLength(wide) <= MAX_NAME_BYTES, wide);
});

test('safeName of any text is a name papo writes (property)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (name) => {
      const safe = safeName(name, SHA);
      return nameProblem(safe) === null && safeName(safe, SHA) === safe;
    }),
    { numRuns: 2000 },
  );
});

test('mediaTypeOf guesses from the extension, in any case, octet-stream otherwise', () => {
  assert.equal(mediaTypeOf('spec.json'), 'application/json');
  assert.equal(mediaTypeOf('SPEC.JSON'), 'application/json');
  assert.equal(mediaTypeOf('fix.patch'), 'text/x-diff');
  assert.equal(mediaTypeOf('openapi.yaml'), 'application/yaml');
  assert.equal(mediaTypeOf('Makefile'), 'application/octet-stream');
  assert.equal(mediaTypeOf('x.exe'), 'application/octet-stream');
  for (const name of ['a.json', 'b.md', 'c.png', 'd'])
    assert.doesNotThrow(() => parseManifest([entry({ name, type: mediaTypeOf(name) })]));
});

test('isPatch: by name, or by how git and diff begin one', () => {
  const bytes = (s: string) => Buffer.from(s, 'utf8');
  assert.equal(isPatch('fix.patch'), true);
  assert.equal(isPatch('FIX.DIFF'), true);
  assert.equal(isPatch('fix.txt'), false);
  assert.equal(isPatch('x', bytes('diff --git a/src/a.ts b/src/a.ts\nindex 1..2\n')), true);
  assert.equal(isPatch('x', bytes(`From ${'a'.repeat(40)} Mon Sep 17 00:00:00 2001\nFrom: Ana\n`)), true);
  assert.equal(isPatch('x', bytes('--- a/x\n+++ b/x\n@@ -1 +1 @@\n')), true);
  assert.equal(isPatch('x', bytes('Index: x\n')), true);
  assert.equal(isPatch('x', bytes('{"openapi":"3.1.0"}')), false);
  assert.equal(isPatch('x', bytes('--- a heading in markdown\ntext\n')), false);
});

test('a manifest entry is what the type says', () => {
  const [one] = parseManifest([entry()]) as [ManifestEntry];
  assert.equal(typeof one.size, 'number');
  assert.equal(one.patch, undefined);
});

test('the caps come from the environment in whole MiB, the defaults otherwise; a typo is an error', () => {
  const MIB = 1024 * 1024;
  assert.deepEqual(attachCaps({}), { maxFileBytes: 16 * MIB, maxMessageBytes: 64 * MIB });
  assert.deepEqual(attachCaps({ PAPO_ATTACH_MAX_FILE_MIB: '', PAPO_ATTACH_MAX_MESSAGE_MIB: '' }), {
    maxFileBytes: 16 * MIB,
    maxMessageBytes: 64 * MIB,
  });
  assert.deepEqual(attachCaps({ PAPO_ATTACH_MAX_FILE_MIB: '2', PAPO_ATTACH_MAX_MESSAGE_MIB: '3' }), {
    maxFileBytes: 2 * MIB,
    maxMessageBytes: 3 * MIB,
  });
  // A message may always carry one file of the largest size.
  assert.deepEqual(attachCaps({ PAPO_ATTACH_MAX_FILE_MIB: '100' }), {
    maxFileBytes: 100 * MIB,
    maxMessageBytes: 100 * MIB,
  });
  for (const bad of ['0', '-1', '1.5', '16MiB', '4097', ' 2'])
    assert.throws(() => attachCaps({ PAPO_ATTACH_MAX_FILE_MIB: bad }), /PAPO_ATTACH_MAX_FILE_MIB/);
  assert.throws(() => attachCaps({ PAPO_ATTACH_MAX_MESSAGE_MIB: 'x' }), /PAPO_ATTACH_MAX_MESSAGE_MIB/);
});

test('the edges of the manifest: 16 files, a size at the cap, the message cap, a type of 100 characters', () => {
  const sixteen = Array.from({ length: MAX_FILES }, (_, i) => entry({ name: `f${i}`, size: 1 }));
  assert.equal(parseManifest(sixteen).length, MAX_FILES);
  const caps = { maxFileBytes: 1000, maxMessageBytes: 1500 };
  assert.equal(parseManifest([entry({ size: 1000 })], caps)[0]?.size, 1000);
  assert.equal(
    parseManifest([entry({ name: 'a', size: 1000 }), entry({ name: 'b', size: 500 })], caps).length,
    2,
  );
  const type = `a/${'b'.repeat(98)}`;
  assert.equal(parseManifest([entry({ type })])[0]?.type, type);
  refused([entry({ type: 'Text/plain' })], /type/);
  refused([entry(), entry({ name: 'x', sha256: 'nope' })], /files\[1\]\.sha256/);
  refused([entry(), { ...entry({ name: 'y' }), name: undefined }], /files\[1\]\.name is not a text/);
});

test('nameProblem says what is wrong', () => {
  const cases: [string, RegExp][] = [
    ['', /empty/],
    ['e\u0301', /NFC/],
    ['a'.repeat(MAX_NAME_CHARS + 1), /characters/],
    ['é'.repeat(MAX_NAME_BYTES / 2 + 1), /bytes/],
    ['a/b', /separator/],
    ['a..b', /holds \.\./],
    ['.', /dot/],
    [' a', /begins with a space/],
    ['nul', /reserved/],
  ];
  for (const [name, what] of cases) assert.match(nameProblem(name) ?? '', what, JSON.stringify(name));
  assert.equal(nameProblem('a'.repeat(MAX_NAME_CHARS)), null);
  assert.equal(nameProblem(`a${'é'.repeat(127)}`), null);
});

test('safeName at its edges: every forbidden character, spaces inside, cuts to the exact bounds', () => {
  assert.equal(safeName('a\u0000b\u202ec:d'), 'a_b_c_d');
  assert.equal(safeName('a b.txt'), 'a b.txt');
  assert.equal(safeName('x. .'), 'x');
  assert.equal(safeName('.env'), '.env');
  assert.equal(safeName('__', SHA), `file-${SHA.slice(0, 12)}`);
  assert.equal(safeName('_._', SHA), `file-${SHA.slice(0, 12)}`);
  assert.equal(safeName('a'.repeat(MAX_NAME_CHARS)), 'a'.repeat(MAX_NAME_CHARS));
  assert.equal(safeName('a'.repeat(300)), 'a'.repeat(MAX_NAME_CHARS));
  const long = safeName(`${'x'.repeat(300)}.json`);
  assert.equal(long, `${'x'.repeat(MAX_NAME_CHARS - 5)}.json`);
  // An extension that is not a plain one is cut like the rest.
  assert.ok(!safeName(`${'x'.repeat(300)}.json-x`).endsWith('.json-x'));
  // The byte bound, exactly: one byte and 127 two-byte characters are 255 bytes.
  assert.equal(Buffer.byteLength(safeName(`a${'é'.repeat(200)}`)), MAX_NAME_BYTES);
  assert.equal(Buffer.byteLength(safeName(`a${'é'.repeat(127)}`)), MAX_NAME_BYTES);
  // A cut that lands after a space or a dot leaves neither at the end of the stem.
  assert.equal(safeName(`${'x'.repeat(122)} ${'y'.repeat(50)}.json`), `${'x'.repeat(122)}.json`);
});

test('every media type of the table, and patches by name only at the end, by content only at the start', () => {
  const table: Record<string, string> = {
    json: 'application/json',
    jsonl: 'application/jsonl',
    yaml: 'application/yaml',
    yml: 'application/yaml',
    toml: 'application/toml',
    xml: 'application/xml',
    sql: 'application/sql',
    pdf: 'application/pdf',
    zip: 'application/zip',
    gz: 'application/gzip',
    tgz: 'application/gzip',
    tar: 'application/x-tar',
    wasm: 'application/wasm',
    patch: 'text/x-diff',
    diff: 'text/x-diff',
    txt: 'text/plain',
    log: 'text/plain',
    md: 'text/markdown',
    csv: 'text/csv',
    tsv: 'text/tab-separated-values',
    html: 'text/html',
    htm: 'text/html',
    css: 'text/css',
    js: 'text/javascript',
    mjs: 'text/javascript',
    cjs: 'text/javascript',
    ts: 'text/x-typescript',
    tsx: 'text/x-typescript',
    py: 'text/x-python',
    rs: 'text/x-rust',
    go: 'text/x-go',
    java: 'text/x-java',
    c: 'text/x-c',
    h: 'text/x-c',
    sh: 'text/x-shellscript',
    proto: 'text/x-protobuf',
    graphql: 'application/graphql',
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    svg: 'image/svg+xml',
  };
  for (const [ext, type] of Object.entries(table)) assert.equal(mediaTypeOf(`file.${ext}`), type, ext);
  assert.equal(mediaTypeOf('.json'), 'application/json');
  const bytes = (s: string) => Buffer.from(s, 'utf8');
  assert.equal(isPatch('fix.patch.txt'), false);
  assert.equal(isPatch('x', bytes('see diff --git a b\n')), false);
  assert.equal(isPatch('x', bytes('a header\n--- a/x\n+++ b/x\n')), true);
});
