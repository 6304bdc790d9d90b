// The JSON-lines codec (ADR 0079): the exact splitter the tests' client reads with, the lenient
// reading the server and papo's stdio client share, and one message written as one line.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { jsonLine, LineSplitter, parseJsonLine, readLines } from '../../src/mcp/json-lines.js';

test('LineSplitter hands on each line exactly as it came, across chunks; what follows the last newline waits', () => {
  const lines: string[] = [];
  const splitter = new LineSplitter((l) => lines.push(l));
  splitter.push('{"a":1}\r\n\n  \n{"b"');
  assert.deepEqual(lines, ['{"a":1}\r', '', '  ']);
  assert.equal(splitter.rest, '{"b"');
  splitter.push(':2}\n{"c":');
  assert.deepEqual(lines, ['{"a":1}\r', '', '  ', '{"b":2}']);
  assert.equal(splitter.rest, '{"c":');
});

test('readLines: "\\r\\n" too, blank lines skipped, a last line without its newline served at EOF', async () => {
  const input = new PassThrough();
  const lines: string[] = [];
  const ended = new Promise<void>((resolve) => readLines(input, (l) => lines.push(l), resolve));
  input.write('{"a":1}\r\n\n   \r\n{"b":');
  input.write('2}\n  {"c":3}  ');
  input.end();
  await ended;
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
});

test('jsonLine writes one line whatever the value holds; parseJsonLine reads it back and never throws', () => {
  const message = { jsonrpc: '2.0', method: 'x', params: { body: 'two\nlines\r\u2028end' } };
  const line = jsonLine(message);
  assert.equal(line.indexOf('\n'), line.length - 1);
  assert.ok(!line.includes('\r'));
  assert.deepEqual(parseJsonLine(line.slice(0, -1)), { value: message });
  assert.equal(parseJsonLine('{"jsonrpc":'), undefined);
  assert.deepEqual(parseJsonLine('null'), { value: null });
});
