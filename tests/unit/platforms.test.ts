// What papo decides per system (docs/status.md, "Platforms: macOS and Windows"), asked on Linux of
// the functions that take the platform as an argument: where the running member takes says, and
// how a browser is opened. Windows and macOS themselves are not here: no test of this file ran
// there.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openUrlCommand } from '../../src/cli/open-url.js';
import { toLog } from '../../src/client/log.js';
import {
  handSay,
  listenForSays,
  maxSocketPathBytes,
  type SayHost,
  sayEndpoint,
} from '../../src/client/room/handed-say.js';
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
  const url = 'http://127.0.0.1:4321/?k=0f&x=1';
  assert.deepEqual(openUrlCommand(url, 'darwin'), ['open', [url]]);
  assert.deepEqual(openUrlCommand(url, 'win32'), ['rundll32.exe', ['url.dll,FileProtocolHandler', url]]);
  assert.deepEqual(openUrlCommand(url, 'linux'), ['xdg-open', [url]]);
  assert.deepEqual(openUrlCommand(url, 'freebsd'), ['xdg-open', [url]]);
});
