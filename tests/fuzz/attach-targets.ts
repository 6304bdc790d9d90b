// Fuzz targets for sealed attachments (src/client/attach/, ADR 0121): the two parsers of what
// another member sends about a file — the manifest inside a msg, and the binary attachment frames
// on their own channel. Each property can fail: the parser's own error and nothing else; what the
// manifest parse lets through is a list whose names pass the name rule, are distinct once
// case-folded and whose sizes keep to the caps, and it reads back the same; what the frame decoder
// lets through encodes back to the very bytes, and a sealed frame changed anywhere does not open.
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { AttachCodec, decodeAttachFrame, encodeAttachFrame } from '../../src/client/attach/chunk-codec.js';
import { manifestJson, nameProblem, parseManifest, safeName } from '../../src/client/attach/manifest.js';
import { isPapoError } from '../../src/client/errors.js';
import { generateIdentity } from '../../src/client/wire/identity.js';
import { anyText, applyEdits, byteEdits, check, editsArb, type FuzzTarget, flipsArb } from './targets.js';

const SHA = createHash('sha256').update('x').digest('hex');
const CAPS = { maxFileBytes: 1000, maxMessageBytes: 1500 };
const NAME_PARTS = [
  '..',
  '.',
  '/',
  '\\',
  '\u0000',
  '\n',
  '\u202e',
  '\u2066',
  '\u200b',
  '\ufeff',
  'CON',
  'nul',
  'COM\u00b9',
  ':',
  ' ',
  'e\u0301',
  'spec',
  '.json',
  'é',
  '日',
];
const nameArb = fc.oneof(
  fc.array(fc.constantFrom(...NAME_PARTS), { maxLength: 6 }).map((a) => a.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const VALID = JSON.stringify([
  { name: 'spec.json', size: 900, sha256: SHA, type: 'application/json' },
  { name: 'fix.patch', size: 100, sha256: SHA, type: 'text/x-diff', patch: true },
]);

const manifest: FuzzTarget = {
  name: 'attachment manifest (attach/manifest.ts)',
  quickRuns: 1500,
  run: (budget) =>
    check(
      'attachment manifest (attach/manifest.ts)',
      fc.property(
        fc.oneof(
          editsArb.map((edits) => applyEdits(VALID, edits)),
          anyText,
          fc
            .array(
              fc.record({
                name: nameArb,
                size: fc.oneof(fc.nat(1200), fc.double(), fc.constant(-1)),
                sha256: fc.constantFrom(SHA, SHA.toUpperCase(), ''),
                type: fc.constantFrom('application/json', 'text/x-diff', 'x', 'A/B'),
              }),
              { maxLength: 18 },
            )
            .map((a) => JSON.stringify(a)),
        ),
        (text) => {
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            return true;
          }
          let files: ReturnType<typeof parseManifest>;
          try {
            files = parseManifest(value, CAPS);
          } catch (err) {
            if (isPapoError(err, 'invalid_frame')) return true;
            throw err;
          }
          const names = files.map((f) => f.name.toLowerCase());
          if (new Set(names).size !== names.length) throw new Error('two files share a name');
          let total = 0;
          for (const f of files) {
            if (nameProblem(f.name) !== null) throw new Error(`unsafe name ${JSON.stringify(f.name)}`);
            if (safeName(f.name, f.sha256) !== f.name && !/^[_.\s]*$/u.test(f.name))
              throw new Error(`safeName changes a safe name ${JSON.stringify(f.name)}`);
            if (f.size > CAPS.maxFileBytes) throw new Error('a size over the cap');
            total += f.size;
          }
          if (total > CAPS.maxMessageBytes) throw new Error('sizes over the message cap');
          return JSON.stringify(parseManifest(manifestJson(files), CAPS)) === JSON.stringify(files);
        },
      ),
      budget,
    ),
};

const alice = generateIdentity();
const bob = generateIdentity();
const KEY = randomBytes(32);
const TOPIC = 'ab'.repeat(32);
const ADDRESS = { from: alice.nodeId, to: bob.nodeId, id: '81d4e0aa6c', file: 3 };
const PLAINS = [
  encodeAttachFrame({ kind: 'chunk', ...ADDRESS, offset: 64_512, bytes: randomBytes(200) }),
  encodeAttachFrame({
    kind: 'want',
    ...ADDRESS,
    have: [
      [0, 10],
      [20, 30],
    ],
  }),
  encodeAttachFrame({ kind: 'ack', ...ADDRESS }),
  encodeAttachFrame({ kind: 'stop', ...ADDRESS, why: 'member_full' }),
];
const sender = new AttachCodec(KEY, TOPIC, alice);
const receiver = new AttachCodec(KEY, TOPIC, bob);
const SEALED = PLAINS.map((p) => sender.seal(decodeAttachFrame(p)));

const frames: FuzzTarget = {
  name: 'attachment frames (attach/chunk-codec.ts)',
  quickRuns: 1500,
  run: (budget) =>
    check(
      'attachment frames (attach/chunk-codec.ts)',
      fc.property(
        fc.nat(PLAINS.length - 1),
        flipsArb,
        fc.option(fc.nat(), { nil: null }),
        fc.uint8Array({ maxLength: 120 }),
        (which, flips, cut, noise) => {
          // The plaintext decoder: a frame that encodes back to the same bytes, or invalid_frame.
          for (const plain of [byteEdits(PLAINS[which] as Uint8Array, flips, cut), noise]) {
            try {
              const frame = decodeAttachFrame(plain);
              if (!Buffer.from(encodeAttachFrame(frame)).equals(Buffer.from(plain)))
                throw new Error('a decoded frame does not encode back to its bytes');
            } catch (err) {
              if (!isPapoError(err, 'invalid_frame')) throw err;
            }
          }
          // The sealed frame: untouched it opens; changed anywhere it does not, with papo's errors.
          const sealed = SEALED[which] as Uint8Array;
          const changed = byteEdits(sealed, flips, cut);
          const same = Buffer.from(changed).equals(Buffer.from(sealed));
          try {
            receiver.open(changed);
            if (!same) throw new Error('a changed sealed frame opened');
          } catch (err) {
            if (same) throw err;
            if (!isPapoError(err, 'open_failed') && !isPapoError(err, 'invalid_frame')) throw err;
          }
          return true;
        },
      ),
      budget,
    ),
};

export const ATTACH_TARGETS: FuzzTarget[] = [manifest, frames];
