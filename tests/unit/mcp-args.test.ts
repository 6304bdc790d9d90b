// The MCP server's command lines read without commander (src/cli/mcp-args.ts, issue 28): the
// shapes agent CLIs start it with are read as commander reads them; every other line is left to
// commander (undefined), which answers it as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chosenProfile, mcpArgs, sayArgs } from '../../src/cli/mcp-args.js';

test('the lines papo install, the plugin and the docs write are read as commander reads them', () => {
  assert.deepEqual(mcpArgs(['mcp']), {});
  assert.deepEqual(mcpArgs(['mcp', '--profile', 'work']), { profile: 'work' });
  assert.deepEqual(mcpArgs(['--profile', 'work', 'mcp']), { profile: 'work' });
  assert.deepEqual(mcpArgs(['--profile=work', 'mcp', '--about=payments api']), {
    profile: 'work',
    about: 'payments api',
  });
  assert.deepEqual(mcpArgs(['mcp', '--about', 'x', '--profile', 'a', '--profile', 'b']), {
    about: 'x',
    profile: 'b',
  });
  // A value is taken as it is, as commander takes it: checked later.
  assert.deepEqual(mcpArgs(['mcp', '--about=--profile']), { about: '--profile' });
  assert.deepEqual(mcpArgs(['mcp', '--profile', '-x']), { profile: '-x' });
  assert.deepEqual(mcpArgs(['mcp', '--about=']), { about: '' });
  assert.deepEqual(mcpArgs(['mcp', '--about', 'a=b']), { about: 'a=b' });
});

test('every other line is commander’s', () => {
  for (const line of [
    [],
    ['say', 'hello'],
    ['mcp', '--help'],
    ['mcp', '-h'],
    ['--version', 'mcp'],
    ['mcp', '--about'],
    // commander reads a program option after --about: `--profile`'s value missing, or the version.
    ['mcp', '--about', '--profile'],
    ['mcp', '--about', '--profile=p'],
    ['mcp', '--about', '-V'],
    ['mcp', '--about', '-x'],
    ['mcp', '--profile'],
    ['--about', 'x', 'mcp'],
    ['mcp', 'extra'],
    ['mcp', 'mcp'],
    ['mcp', '--abouts', 'x'],
    ['mcp', '--unknown'],
    ['--profile', 'a'],
  ]) {
    assert.equal(mcpArgs(line), undefined, line.join(' '));
  }
});

test('a plain papo say line is read as commander reads it: words, with --to and --profile among them', () => {
  assert.deepEqual(sayArgs(['say', 'hello']), { words: ['hello'] });
  assert.deepEqual(sayArgs(['say', 'deploy', 'at', '5']), { words: ['deploy', 'at', '5'] });
  assert.deepEqual(sayArgs(['--profile', 'work', 'say', 'hi', '--to', 'Bia', 'there']), {
    profile: 'work',
    to: 'Bia',
    words: ['hi', 'there'],
  });
  assert.deepEqual(sayArgs(['say', '--to=Bia', 'a=b', '--profile=x', '--to', 'Caio', 'say']), {
    to: 'Caio',
    profile: 'x',
    words: ['a=b', 'say'],
  });
  // A word is taken as it is, as commander takes it: checked later (empty, too long).
  assert.deepEqual(sayArgs(['say', '   ']), { words: ['   '] });
});

test('every other say line is commander’s', () => {
  for (const line of [
    ['say'],
    ['say', '--to', 'Bia'],
    ['say', '--', 'hello'],
    ['say', 'hello', '--help'],
    ['say', '-h'],
    ['say', 'hello', '-x'],
    ['say', 'hello', '--to'],
    ['say', 'hello', '--to', '-x'],
    ['say', 'hello', '--to=-x'],
    ['say', 'hello', '--profile', '--to'],
    ['--to', 'Bia', 'say', 'hello'],
    ['hello', 'say'],
    ['status'],
    ['--version', 'say', 'x'],
    ['say', 'hello', '--unknown=1'],
  ]) {
    assert.equal(sayArgs(line), undefined, line.join(' '));
  }
});

test('the profile: --profile, else PAPO_PROFILE (unless empty), else "default"', () => {
  assert.equal(chosenProfile('a', { PAPO_PROFILE: 'b' }), 'a');
  assert.equal(chosenProfile('', { PAPO_PROFILE: 'b' }), '');
  assert.equal(chosenProfile(undefined, { PAPO_PROFILE: 'b' }), 'b');
  assert.equal(chosenProfile(undefined, { PAPO_PROFILE: '' }), 'default');
  assert.equal(chosenProfile(undefined, {}), 'default');
});
