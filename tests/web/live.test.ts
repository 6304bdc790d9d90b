// papo web says when the page is not live, and comes back by itself (issue 44, item 2; ADR 0122),
// in headless chromium with two real `papo mcp` on loopback: papo web stopped with the page open
// puts a banner up and a Send says in words that it was not sent (never "TypeError: Failed to
// fetch"); started again on the same port, the page says the tab's session ended with the old
// process and to open the new address (never a bare 401, a reload neither); a network that comes
// back (chromium's offline mode, the one failure injected: a request that fails) brings the stream
// back by itself, with what was said meanwhile.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { msgIdIn } from '../support/papo.js';
import { callText, makeRoom, type Room } from '../support/room.js';
import { chromium, launchChromium, linkedAgents, startWeb } from '../support/web.js';

declare const document: {
  querySelector(s: string): { textContent: string | null; hidden: boolean; className: string } | null;
  body: { textContent: string | null };
};

const browserAt = chromium();
const skip = 'skip' in browserAt ? browserAt.skip : false;

async function linkedRoom(t: Parameters<typeof makeRoom>[0]) {
  const room: Room = await makeRoom(t, { label: 'web-live' });
  const { voce, colega } = await linkedAgents(room);
  return { room, voce, colega };
}

const banner = (page: Page) =>
  page.evaluate(() => {
    const b = document.querySelector('#banner');
    return b === null || b.hidden ? '' : (b.textContent ?? '');
  });

async function bannerSays(page: Page, pattern: RegExp, timeout = 30_000): Promise<string> {
  await page.waitForFunction(
    (source) => {
      const b = document.querySelector('#banner');
      return b !== null && !b.hidden && new RegExp(source).test(b.textContent ?? '');
    },
    { timeout },
    pattern.source,
  );
  return banner(page);
}

test('papo web stopped: a banner and a Send that says it was not sent; started again on the same port: the page says to open the new address, a reload too', {
  skip,
  timeout: 180_000,
}, async (t) => {
  const { room, colega } = await linkedRoom(t);
  const home = room.members.voce.home;
  const first = await startWeb(t, home);
  const browser = await launchChromium(t);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(first.url);
  await page.waitForSelector('body[data-ready="true"]');
  const said = msgIdIn(await callText(colega.client, 'send', { message: 'before the stop' }));
  await page.waitForSelector(`#m-${said}`);
  assert.equal(await banner(page), '');

  await first.stop();
  assert.match(await bannerSays(page, /not reachable/), /^papo web is not reachable — reconnecting…/);
  await page.type('#say-body', 'are you there?');
  await page.click('#say-send');
  await page.waitForFunction(() => document.querySelector('#say-outcome')?.className === 'bad');
  const outcome = await page.$eval('#say-outcome', (e) => e.textContent ?? '');
  assert.match(outcome, /^not sent: papo web is not reachable\. The page reconnects by itself/);
  // The body stays, to be sent again.
  assert.equal(
    await page.$eval('#say-body', (e) => (e as unknown as { value: string }).value),
    'are you there?',
  );

  // Started again on the same port: a new secret, so this tab's session is gone; the page says so.
  const second = await startWeb(t, home, {}, false, ['--port', String(first.port)]);
  assert.equal(second.port, first.port);
  assert.match(await bannerSays(page, /started again/), /open the address papo web printed/);
  await page.click('#say-send');
  await page.waitForFunction(() =>
    /started again/.test(document.querySelector('#say-outcome')?.textContent ?? ''),
  );
  // A reload keeps saying it (it was a bare 401).
  await page.reload();
  assert.match(await bannerSays(page, /started again/), /open the address papo web printed/);
  const text = await page.evaluate(() => document.body.textContent ?? '');
  assert.doesNotMatch(text, /TypeError|SyntaxError|Failed to fetch|\b401\b/);
  // The new address signs the tab in again, and the banner goes.
  await page.goto(second.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector(`#m-${said}`);
  assert.equal(await banner(page), '');
  assert.deepEqual(errors, []);
});

test('papo web: a page that lost its connection says so, comes back by itself, and shows what was said meanwhile', {
  skip,
  timeout: 180_000,
}, async (t) => {
  const { room, colega } = await linkedRoom(t);
  const web = await startWeb(t, room.members.voce.home);
  const browser = await launchChromium(t);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(web.url);
  await page.waitForSelector('body[data-ready="true"]');

  // Offline (chromium's network emulation keeps an open stream open): the next request fails.
  await page.setOfflineMode(true);
  await page.type('#say-body', 'lost on the way');
  await page.click('#say-send');
  await bannerSays(page, /not reachable/);
  assert.match(
    await page.$eval('#say-outcome', (e) => e.textContent ?? ''),
    /^not sent: papo web is not reachable/,
  );
  const meanwhile = msgIdIn(
    await callText(colega.client, 'send', { message: 'said while the page was away' }),
  );
  await page.setOfflineMode(false);
  // Back by itself (the first retry comes within 1.25 s, then 2.5, 5…), with what was said.
  await page.waitForSelector(`#m-${meanwhile}`, { timeout: 30_000 });
  assert.equal(await banner(page), '');
  // And live again: the next message comes by the stream.
  const after = msgIdIn(await callText(colega.client, 'send', { message: 'and after' }));
  await page.waitForSelector(`#m-${after}`, { timeout: 10_000 });
  assert.equal(await page.$$eval(`#m-${meanwhile}`, (l) => l.length), 1, 'shown once');
  assert.deepEqual(errors, []);
});
