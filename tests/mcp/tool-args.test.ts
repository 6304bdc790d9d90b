// The checks every tool's arguments pass (src/mcp/tool-args.ts), on their own: which arguments are
// refused, which bounds hold at their edges, and what an error shows of a hostile value. The
// tools drive them end to end in tools.test.ts; these are the fast tests mutation testing runs
// against each change of the module (ADR 0080).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ArgumentError,
  CLIENT_ADDED_ARGUMENTS,
  checkKnown,
  optionalInteger,
  optionalString,
  shownValue,
} from '../../src/mcp/tool-args.js';

function refused(fn: () => unknown, message: string): void {
  assert.throws(fn, (e) => e instanceof ArgumentError && e.name === 'ArgumentError' && e.message === message);
}

test('an argument the tool does not take is refused, naming it and the ones it takes', () => {
  refused(
    () => checkKnown('send', { message: 'hi', body: 'hi' }, ['message', 'to']),
    '`send` has no argument `body`. Its arguments are: `message`, `to`.',
  );
  refused(() => checkKnown('status', { x: 1 }, []), '`status` takes no arguments, but got `x`.');
  // The first unknown one is named, whatever follows.
  refused(() => checkKnown('wait', { a: 1, b: 2 }, []), '`wait` takes no arguments, but got `a`.');
  checkKnown('send', { message: 'hi', to: 'ana' }, ['message', 'to']);
  checkKnown('status', {}, []);
});

test('an argument a client adds by itself is ignored, whatever its value; only that one', () => {
  assert.deepEqual(CLIENT_ADDED_ARGUMENTS, ['wait_for_previous']);
  for (const value of [true, false, null, 'x', { a: 1 }]) {
    checkKnown('status', { wait_for_previous: value }, []);
    checkKnown('send', { message: 'hi', wait_for_previous: value }, ['message']);
  }
  refused(
    () => checkKnown('status', { wait_for_next: true }, []),
    '`status` takes no arguments, but got `wait_for_next`.',
  );
});

test('an optional string: absent or null is undefined; any other type is the caller’s error', () => {
  assert.equal(optionalString({}, 'to', 'bad'), undefined);
  assert.equal(optionalString({ to: null }, 'to', 'bad'), undefined);
  assert.equal(optionalString({ to: '' }, 'to', 'bad'), '');
  assert.equal(optionalString({ to: 'ana' }, 'to', 'bad'), 'ana');
  for (const value of [1, true, ['ana'], { name: 'ana' }]) {
    refused(() => optionalString({ to: value }, 'to', '`to` must be a name'), '`to` must be a name');
  }
});

test('an optional integer: the fallback when absent, both bounds included, a float refused unless whole', () => {
  const get = (v: unknown) => optionalInteger({ n: v }, 'n', 1, 300, 30, 'n out of range');
  assert.equal(optionalInteger({}, 'n', 1, 300, 30, 'x'), 30);
  assert.equal(get(null), 30);
  assert.equal(get(undefined), 30);
  assert.equal(get(1), 1);
  assert.equal(get(300), 300);
  assert.equal(get(300.0), 300);
  assert.equal(get(150), 150);
  for (const bad of [0, 301, -1, 1.5, 299.9, Number.NaN, Number.POSITIVE_INFINITY, '30', true, [30]]) {
    refused(() => get(bad), 'n out of range');
  }
});

test('a value shown in an error is text for any input, and never throws', () => {
  assert.equal(shownValue('plain'), 'plain');
  assert.equal(shownValue(42), '42');
  assert.equal(shownValue({ a: [1] }), '{"a":[1]}');
  assert.equal(shownValue(undefined), 'undefined');
  assert.equal(
    shownValue(() => 1),
    '() => 1',
  );
  assert.equal(shownValue(Symbol('s')), 'Symbol(s)');
  // JSON.stringify throws on these; String() of the first throws too.
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(shownValue(cyclic), 'object');
  assert.equal(shownValue(10n), 'bigint');
  assert.equal(
    shownValue({
      toJSON: () => {
        throw new Error('no');
      },
    }),
    'object',
  );
});
