// What papo decides per system (docs/status.md, "Platforms: macOS and Windows"), asked on Linux of
// the functions that take the platform as an argument: where the running member takes says, how
// a browser is opened, which agent CLI file is run and how its words reach it through cmd.exe, and
// what a client starts for papo. Windows and macOS themselves are not here: no test of this file
// ran there.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { clientCommand, cmdWord, executableNames } from '../../src/cli/install/client-process.js';
import { papoCommand } from '../../src/cli/install/entry.js';
import { openUrlCommand } from '../../src/cli/open-url.js';
import { toLog } from '../../src/client/log.js';
import {
  handSay,
  listenForSays,
  maxSocketPathBytes,
  type SayHost,
  sayEndpoint,
} from '../../src/client/person/handed-say.js';
import { makeTempDir } from '../support/files.js';

const KEY = `${'ab'.repeat(32)}\n`;
const noKey = () => null;

/** A folder whose member.sock path is exactly `bytes` long, under `root`. */
function dirForSocketPath(root: string, bytes: number): string {
  const fill = bytes - Buffer.byteLength(join(root, 'x', 'member.sock')) + 1;
  assert.ok(fill >= 1, `${root} is too long for a ${bytes}-byte path`);
  const dir = join(root, 'd'.repeat(fill));
  assert.equal(Buffer.byteLength(join(dir, 'member.sock')), bytes);
  return dir;
}

test('member.sock: in the profile folder while its path fits the system’s socket address (107 bytes on Linux, 103 on macOS)', () => {
  assert.equal(maxSocketPathBytes('linux'), 107);
  assert.equal(maxSocketPathBytes('darwin'), 103);
  assert.equal(maxSocketPathBytes('freebsd'), 103);
  const root = '/home/ana/.papo/profiles';
  for (const [bytes, linux, darwin] of [
    [103, true, true],
    [104, true, false],
    [107, true, false],
    [108, false, false],
  ] as const) {
    const dir = dirForSocketPath(root, bytes);
    const path = join(dir, 'member.sock');
    assert.deepEqual(sayEndpoint(dir, 'linux', noKey), linux ? { path, pipe: false } : undefined, `${bytes}`);
    assert.deepEqual(
      sayEndpoint(dir, 'darwin', noKey),
      darwin ? { path, pipe: false } : undefined,
      `${bytes}`,
    );
  }
  // Counted in bytes, not characters: a name in another script takes more of them.
  const dir = join(root, 'ç'.repeat(40));
  assert.equal(sayEndpoint(dir, 'linux', noKey), undefined);
});

test('member.sock on Windows: a named pipe named after the member’s secret key, the same from any spelling of the folder, nothing of the key in it', () => {
  const at = sayEndpoint('C:\\Users\\Ana\\.papo\\profiles\\default', 'win32', () => KEY);
  assert.ok(at?.pipe);
  assert.match(at.path, /^\\\\\.\\pipe\\papo-[0-9a-f]{32}$/);
  // The folder plays no part (NTFS compares names without case): the key alone names the pipe.
  assert.deepEqual(
    sayEndpoint('c:\\users\\ana\\.PAPO\\profiles\\default', 'win32', () => KEY.trim()),
    at,
  );
  const other = sayEndpoint('C:\\Users\\Ana\\.papo\\profiles\\default', 'win32', () => 'cd'.repeat(32));
  assert.notEqual(other?.path, at.path);
  // Every user can list the pipes of the machine: the name gives away no part of the key.
  const hex = at.path.slice(-32);
  for (let i = 0; i + 8 <= 64; i += 8) assert.ok(!hex.includes(KEY.slice(i, i + 8)));
  // No key to name it by (unreadable, empty): no pipe, papo say links by itself.
  assert.equal(sayEndpoint('C:\\p', 'win32', noKey), undefined);
  assert.equal(
    sayEndpoint('C:\\p', 'win32', () => ' \n'),
    undefined,
  );
});

test('a profile whose socket path is too long: no member.sock, said in the log, and papo say finds nobody to hand to', async (t) => {
  const root = makeTempDir('papo-long-');
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = dirForSocketPath(root, maxSocketPathBytes(process.platform) + 1);
  mkdirSync(dir);
  const lines: string[] = [];
  // Never asked: with no socket nothing reaches it.
  const host = {} as SayHost;
  const stop = await listenForSays(
    dir,
    host,
    toLog((line) => lines.push(line)),
  );
  assert.deepEqual(lines, [
    "no member.sock: the profile's path is too long for a socket; papo say links by itself",
  ]);
  const say = { id: '0123456789', ts: Date.now(), body: 'hello' };
  assert.equal(await handSay(dir, say, 1_000), 'none');
  await stop();
});

test('papo web opens the browser with open (macOS), rundll32 (Windows), xdg-open (elsewhere), the address one argument, no shell', () => {
  const url = 'file:///home/a%20b&c/.papo/default/web-open.html';
  assert.deepEqual(openUrlCommand(url, 'darwin'), ['open', [url]]);
  assert.deepEqual(openUrlCommand(url, 'win32'), ['rundll32.exe', ['url.dll,FileProtocolHandler', url]]);
  assert.deepEqual(openUrlCommand(url, 'linux'), ['xdg-open', [url]]);
  assert.deepEqual(openUrlCommand(url, 'freebsd'), ['xdg-open', [url]]);
});

test('agent CLIs on PATH: the .exe or .cmd on Windows, never npm’s extensionless sh script; the name elsewhere', () => {
  assert.deepEqual(executableNames('claude', 'win32'), ['claude.exe', 'claude.cmd']);
  assert.deepEqual(executableNames('claude', 'linux'), ['claude']);
  assert.deepEqual(executableNames('codex', 'darwin'), ['codex']);
});

test('a client’s command: started directly, but a Windows .cmd through cmd.exe as one line, each word quoted when it needs it', () => {
  const args = ['mcp', 'add', '-e', 'PAPO_HOME=C:\\Users\\Ana Maria\\.papo', '--', 'C:\\node.exe', 'x&y'];
  // Linux and macOS, and a Windows .exe: as they are, no shell.
  assert.deepEqual(clientCommand('/usr/bin/claude', args, 'linux'), {
    command: '/usr/bin/claude',
    args,
    shell: false,
  });
  assert.deepEqual(clientCommand('C:\\bin\\claude.exe', args, 'win32'), {
    command: 'C:\\bin\\claude.exe',
    args,
    shell: false,
  });
  // A .cmd: one line and no argument list (Node 24 warns of arguments with a shell, DEP0190).
  assert.deepEqual(clientCommand('C:\\Users\\Ana Maria\\AppData\\Roaming\\npm\\claude.CMD', args, 'win32'), {
    command:
      '"C:\\Users\\Ana Maria\\AppData\\Roaming\\npm\\claude.CMD" mcp add -e "PAPO_HOME=C:\\Users\\Ana Maria\\.papo" -- C:\\node.exe "x&y"',
    args: [],
    shell: true,
  });
  // A word cmd.exe changes even inside quotes: not run at all.
  for (const bad of ['50%', '%PATH%', 'a"b', 'wow!', 'a^b', 'two\nlines'])
    assert.equal(clientCommand('C:\\npm\\gemini.cmd', ['mcp', bad], 'win32'), null, JSON.stringify(bad));
  assert.equal(clientCommand('C:\\100%\\gemini.cmd', ['mcp'], 'win32'), null);
  // A closing backslash stays one: doubled before the closing quote.
  assert.equal(cmdWord('C:\\My Folder\\'), '"C:\\My Folder\\\\"');
  assert.equal(cmdWord(''), '""');
});

/**
 * How a Windows program built with the C runtime (node.exe, which runs npm's .cmd shims) splits
 * its command line into words (Microsoft's "Parsing C command-line arguments"); the line reaches
 * it as written here, since cmdWord lets through no character cmd.exe acts on inside quotes and
 * none outside them.
 */
function windowsArgv(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (c === '\\') {
      let n = 0;
      while (line.charAt(i) === '\\') {
        n++;
        i++;
      }
      if (line.charAt(i) === '"') {
        word += '\\'.repeat(Math.floor(n / 2));
        if (n % 2 === 1) word += '"';
        else quoted = !quoted;
      } else {
        word += '\\'.repeat(n);
        i--;
      }
      inWord = true;
    } else if (c === '"') {
      quoted = !quoted;
      inWord = true;
    } else if ((c === ' ' || c === '\t') && !quoted) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

test('through cmd.exe, every word a .cmd is given reaches the program as it was (the C runtime’s splitting)', () => {
  const refused = /["%!^\r\n\0]/;
  const word = fc
    .string({ unit: fc.constantFrom(..."aZ09 _-.:/\\=,;&|<>()[]{}'`~@#$+*?\té"), maxLength: 24 })
    .filter((w) => !refused.test(w));
  fc.assert(
    fc.property(fc.array(word, { maxLength: 6 }), (args) => {
      const how = clientCommand('C:\\Program Files\\nodejs\\npx.cmd', args, 'win32');
      assert.ok(how !== null);
      assert.deepEqual(windowsArgv(how.command), ['C:\\Program Files\\nodejs\\npx.cmd', ...args]);
    }),
    { numRuns: 2_000 },
  );
});

test('what a client starts for papo: main.js itself where its #! line is read, node with main.js on Windows', () => {
  assert.deepEqual(papoCommand('/usr/lib/node_modules/papo/dist/src/cli/main.js', 'linux', '/usr/bin/node'), [
    '/usr/lib/node_modules/papo/dist/src/cli/main.js',
    [],
  ]);
  assert.deepEqual(papoCommand('/opt/papo/dist/src/cli/main.js', 'darwin', '/opt/homebrew/bin/node'), [
    '/opt/papo/dist/src/cli/main.js',
    [],
  ]);
  const script = 'C:\\Users\\Ana\\AppData\\Roaming\\npm\\node_modules\\papo\\dist\\src\\cli\\main.js';
  assert.deepEqual(papoCommand(script, 'win32', 'C:\\Program Files\\nodejs\\node.exe'), [
    'C:\\Program Files\\nodejs\\node.exe',
    [script],
  ]);
});
