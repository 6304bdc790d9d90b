// The transport process runs one file the build makes (scripts/bundle-transport.mjs, ADR 0110):
// papo's network code and the packages it uses, node-datachannel left outside. Its source map must
// point into src/ exactly, with the packages' sources taken out of it (the suite's coverage reads
// every source a map names), and the forked process must be that file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { TRANSPORT_ENTRY } from '../../src/client/transport/early-fork.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('the transport process forks the bundle, whose map names papo’s sources only and points into them exactly', () => {
  assert.ok(TRANSPORT_ENTRY.endsWith('/dist/src/client/transport/transport-child.bundle.js'));
  const bundle = readFileSync(TRANSPORT_ENTRY, 'utf8').split('\n');
  const payload = JSON.parse(readFileSync(`${TRANSPORT_ENTRY}.map`, 'utf8')) as { sources: string[] };
  assert.deepEqual(
    payload.sources.filter((s) => !s.startsWith('../../../../src/')),
    [],
    'no source outside src/ (ws and @noble/hashes are in the bundle, not in its map)',
  );
  // ws and @noble/hashes are bundled in: their code is there, before and between papo's.
  assert.ok(bundle.some((line) => line.includes('Sec-WebSocket-Accept')));
  const map = new SourceMap(payload as never);
  // Lines of papo's sources that come after the packages' in the bundle: each maps back to its
  // own line of src/ (the mappings into the removed sources are gone, the rest moved with them).
  const cases: Array<[string, string, string]> = [
    ['src/client/transport/transport-child.ts', "tell({ t: 'ready' });", 'tell({ t: "ready" });'],
    [
      'src/client/net/signal-client.ts',
      'this.#opener = new SignalOpener(',
      'this.#opener = new SignalOpener(',
    ],
    ['src/client/net/signal-seal.ts', 'export class SignalOpener {', 'var SignalOpener = class {'],
    [
      'src/client/net/network-stack.ts',
      'static async open(options: NetworkStackOptions)',
      'static async open(options) {',
    ],
  ];
  for (const [source, inSource, inBundle] of cases) {
    const line = bundle.findIndex((l) => l.includes(inBundle));
    assert.notEqual(line, -1, `${inBundle} is in the bundle`);
    const column = (bundle[line] as string).indexOf(inBundle);
    const entry = map.findEntry(line, column) as { originalSource?: string; originalLine?: number };
    const sourceLines = readFileSync(`${ROOT}${source}`, 'utf8').split('\n');
    const expected = sourceLines.findIndex((l) => l.includes(inSource));
    assert.ok(entry.originalSource?.endsWith(source), `${inBundle}: mapped to ${entry.originalSource}`);
    assert.equal(entry.originalLine, expected, `${inBundle}: the line in ${source}`);
  }
});
