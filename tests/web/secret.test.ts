// papo web's secret, where it goes and where it does not (ADR 0120), in a real headless browser
// (Debian's chromium) and the built `papo web` opening it as a person's machine would:
// - W1: no command line carries the secret: papo web hands the browser a file of the profile's
//   (0600, in a 0700 folder) that goes on to the page, and removes it when it stops;
// - W2: the browser holds no credential it would send by itself: no cookie, which a browser sends
//   to every port of 127.0.0.1; a page of another server on loopback receives nothing of papo's.
// A reload keeps the tab's session; another tab opened without the address is told what to do.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { chromium, launchChromium, startWeb } from '../support/web.js';

interface PageElement {
  hidden: boolean;
  textContent: string | null;
}
declare const document: { querySelector(selector: string): PageElement | null };

const browserAt = chromium();
const skip = 'skip' in browserAt ? browserAt.skip : false;

test('papo web opens the browser with no secret on its command line, and leaves the browser nothing it would send elsewhere', {
  skip,
}, async (t) => {
  const room = await makeRoom(t, { label: 'web-secret' });
  const home = room.members.voce.home;
  // The xdg-open papo web runs: it writes down the command line it was given, as anyone on the
  // machine could read it from /proc/PID/cmdline.
  const bin = mkdtempSync(join(tmpdir(), 'papo-xdg-'));
  t.after(() => rmSync(bin, { recursive: true, force: true }));
  const argvFile = join(bin, 'argv');
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}'\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const web = await startWeb(t, home, { PATH: `${bin}:${process.env.PATH ?? ''}` }, true);

  // Read once written whole (the shell creates the file before printf writes it).
  const written = () => (existsSync(argvFile) ? readFileSync(argvFile, 'utf8') : '');
  await waitFor('papo web running xdg-open', () => written().endsWith('\n') || undefined, 10_000);
  const argv = written().trim().split('\n');
  assert.equal(argv.length, 1);
  assert.ok(!argv[0]?.includes(web.secret), `the secret on a command line: ${argv[0]}`);
  assert.match(argv[0] ?? '', /^file:\/\//);
  const opener = fileURLToPath(argv[0] as string);
  assert.equal(statSync(opener).mode & 0o777, 0o600, 'the file only this user reads');
  assert.equal(statSync(dirname(opener)).mode & 0o777, 0o700, 'in a folder only this user enters');
  assert.ok(readFileSync(opener, 'utf8').includes(`#k=${web.secret}`), 'the file leads to the page');

  // Another server on loopback, as any local account could run: what the browser sends it.
  const seen: string[] = [];
  const other = createServer((req, res) => {
    seen.push(JSON.stringify(req.headers));
    res.end('elsewhere');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', () => resolve()));
  t.after(() => new Promise<void>((resolve) => other.close(() => resolve())));
  const otherPort = (other.address() as AddressInfo).port;

  const browser = await launchChromium(t, ['--allow-file-access-from-files']);
  const page = await browser.newPage();
  // What the browser was given: the file, which goes on to the page, which signs in.
  await page.goto(argv[0] as string);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
  assert.equal(page.url(), `${web.base}/`, 'the secret left the address bar');
  const session = (await page.evaluate('sessionStorage.getItem("papo-web-session")')) as string;
  assert.match(session, /^[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(await page.cookies(web.base), [], 'no cookie for papo web');

  // The same browser, on another port of 127.0.0.1: nothing of papo's goes with it.
  await page.goto(`http://127.0.0.1:${otherPort}/`);
  assert.ok(seen.length >= 1, 'the other server was asked');
  for (const request of seen)
    for (const secret of [web.secret, session])
      assert.ok(!request.includes(secret), `sent to another port: ${request}`);

  // Back, and a reload: the tab kept its session.
  await page.goto(`${web.base}/`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
  // Another tab, opened without the address papo web printed: told what to do, shown nothing.
  const tab = await browser.newPage();
  await tab.goto(`${web.base}/`);
  await tab.waitForFunction(() => document.querySelector('#signed-out')?.hidden === false);
  const note = await tab.evaluate(() => document.querySelector('#signed-out')?.textContent ?? '');
  assert.match(note, /open the address papo web printed in your terminal/);
  assert.equal(await tab.evaluate(() => document.querySelector('#cards')?.textContent ?? ''), '');

  // papo web stops: the file that held the way in is gone.
  await web.stop();
  assert.equal(existsSync(opener), false);
});
