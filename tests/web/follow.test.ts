// papo web as a page a person keeps open (issue 44, item 1), in headless chromium with two real
// `papo mcp` on loopback: at the bottom, a new message scrolls into view; scrolled up, the view holds
// still and a "new messages ↓" marker counts what came (a click goes to the bottom); a hidden tab
// counts new messages in its title until it is seen again (issue 44, item 5) the say box stays at the
// bottom of the window however far the conversation scrolls, Ctrl+Enter sends, and "To" is chosen
// from the room's members.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { msgIdIn } from '../support/papo.js';
import { callText, makeRoom, pushOf, type Room } from '../support/room.js';
import { chromium, launchChromium, linkedAgents, startWeb, type WebServer } from '../support/web.js';

// The page's globals as the callbacks run in the browser see them (no DOM types here).
interface PageElement {
  hidden: boolean;
  textContent: string | null;
  getBoundingClientRect(): { top: number; bottom: number };
}
interface Scroller {
  scrollHeight: number;
  scrollTop: number;
  clientHeight: number;
  getBoundingClientRect(): { top: number; bottom: number };
}
declare const document: {
  title: string;
  hidden: boolean;
  visibilityState: string;
  querySelector(selector: string): { className: string } | null;
  scrollingElement: { scrollTop: number };
  dispatchEvent(e: unknown): void;
};

const browserAt = chromium();
const skip = 'skip' in browserAt ? browserAt.skip : false;

/** voce and colega, both agents online for each other; papo web on voce's profile. */
async function linkedRoom(t: Parameters<typeof makeRoom>[0]) {
  const room: Room = await makeRoom(t, { label: 'web-follow' });
  // 200 sends in a test: more than the anti-loop limit lets an agent send in 10 minutes.
  const { voce, colega } = await linkedAgents(room, { PAPO_MAX_SENDS_PER_10MIN: '1000' });
  const web = await startWeb(t, room.members.voce.home);
  return { room, voce, colega, web };
}

async function open(browser: Browser, web: WebServer, height = 600): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1000, height });
  await page.goto(web.url);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

/** How far the view is from the bottom of the page, in px. */
const belowView = (page: Page) =>
  page.$eval('#scroller', (e) => {
    const r = e as unknown as Scroller;
    return r.scrollHeight - (r.scrollTop + r.clientHeight);
  });

const lines = (n: number, what: string) =>
  Array.from({ length: 6 }, (_, i) => `${what} ${n}, line ${i + 1}`).join('\n\n');

test('papo web follows the conversation at the bottom, holds still with a "new messages" marker when scrolled up, and counts unread in a hidden tab’s title', {
  skip,
  timeout: 240_000,
}, async (t) => {
  const { colega, web } = await linkedRoom(t);
  const browser = await launchChromium(t);
  const page = await open(browser, web);
  const baseTitle = await page.title();
  assert.match(baseTitle, /^papo — voce in room [0-9a-f]{8}$/);

  // At the bottom: each message of a burst scrolls into view as it comes.
  let last = '';
  for (let i = 0; i < 8; i++)
    last = msgIdIn(await callText(colega.client, 'send', { message: lines(i, 'first') }));
  await page.waitForSelector(`#m-${last}`);
  assert.ok((await belowView(page)) <= 48, `followed: ${await belowView(page)} px below the view`);
  assert.equal(await page.$eval('#new-below', (e) => (e as unknown as PageElement).hidden), true);

  // Scrolled up: a burst of 5 leaves the view where it was, and the marker counts them.
  await page.$eval('#scroller', (e) => {
    (e as unknown as Scroller).scrollTop = 0;
  });
  await new Promise((r) => setTimeout(r, 100));
  const burst: string[] = [];
  for (let i = 0; i < 5; i++)
    burst.push(msgIdIn(await callText(colega.client, 'send', { message: lines(i, 'burst') })));
  await page.waitForSelector(`#m-${burst[4]}`);
  assert.equal(
    await page.$eval('#scroller', (e) => (e as unknown as Scroller).scrollTop),
    0,
    'the view held still',
  );
  assert.equal(await page.$eval('#new-below', (e) => e.textContent), '5 new messages ↓');
  assert.equal(await page.$eval('#new-below', (e) => (e as unknown as PageElement).hidden), false);
  // The marker takes the person to the bottom, and goes.
  await page.click('#new-below');
  assert.ok((await belowView(page)) <= 48);
  assert.equal(await page.$eval('#new-below', (e) => (e as unknown as PageElement).hidden), true);
  // The newest card is in view, above the say box.
  const newest = await page.$eval(
    `#m-${burst[4]}`,
    (e) => (e as unknown as PageElement).getBoundingClientRect().bottom,
  );
  const box = await page.$eval('#scroller', (e) => {
    const r = (e as unknown as Scroller).getBoundingClientRect();
    return { top: r.top, bottom: r.bottom };
  });
  assert.ok(
    newest <= box.bottom && newest > box.top,
    `the newest in view: ${newest} in ${JSON.stringify(box)}`,
  );

  // A hidden tab: its title counts what came, and is itself again once the tab is seen.
  const setVisibility = (state: 'hidden' | 'visible') =>
    page.evaluate((s) => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => s === 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    }, state);
  await setVisibility('hidden');
  const unseen: string[] = [];
  for (let i = 0; i < 3; i++)
    unseen.push(msgIdIn(await callText(colega.client, 'send', { message: `while away ${i}` })));
  await page.waitForSelector(`#m-${unseen[2]}`);
  assert.equal(await page.title(), `(3) ${baseTitle}`);
  await setVisibility('visible');
  assert.equal(await page.title(), baseTitle);
});

test('papo web’s say box stays in the window with 200 messages scrolled to the top, offers the room’s members as "To", and Ctrl+Enter sends', {
  skip,
  timeout: 300_000,
}, async (t) => {
  const { colega, web } = await linkedRoom(t);
  let last = '';
  for (let i = 0; i < 200; i++)
    last = msgIdIn(await callText(colega.client, 'send', { message: `message ${i}` }));
  const browser = await launchChromium(t);
  const page = await open(browser, web, 700);
  await page.waitForSelector(`#m-${last}`);
  await page.waitForSelector('body[data-all="true"]');
  assert.equal(await page.$$eval('#cards .card', (l) => l.length), 200);

  // Scrolled to the very top: the say box is still all in the window; the page itself never scrolls.
  await page.$eval('#scroller', (e) => {
    (e as unknown as Scroller).scrollTop = 0;
  });
  const inView = async (selector: string) =>
    page.$eval(selector, (e) => {
      const r = (e as unknown as PageElement).getBoundingClientRect();
      return { top: r.top, bottom: r.bottom };
    });
  for (const selector of ['#say-body', '#say-send', '#say-to']) {
    const r = await inView(selector);
    assert.ok(r.top >= 0 && r.bottom <= 700, `${selector} in the window: ${JSON.stringify(r)}`);
  }
  assert.equal(await page.evaluate(() => document.scrollingElement.scrollTop), 0);

  // "To": everyone, or a member of the room; not a name typed by hand.
  assert.deepEqual(
    await page.$$eval('#say-to option', (o) =>
      o.map((x) => [(x as unknown as { value: string }).value, x.textContent]),
    ),
    [
      ['', 'everyone (the whole room)'],
      ['colega', 'colega'],
    ],
  );
  await page.select('#say-to', 'colega');
  await page.type('#say-body', 'sent with ctrl+enter');
  await page.keyboard.down('Control');
  await page.keyboard.press('Enter');
  await page.keyboard.up('Control');
  await page.waitForFunction(() => document.querySelector('#say-outcome')?.className === 'ok', {
    timeout: 60_000,
  });
  const said = msgIdIn(await page.$eval('#say-outcome', (e) => e.textContent ?? ''));
  const push = await pushOf(colega.client, said);
  assert.equal(push.meta.sender_kind, 'human');
  assert.match(String(push.content), /sent with ctrl\+enter/);
  // Sent: the body is empty again, and the person's words are in view at the bottom.
  assert.equal(await page.$eval('#say-body', (e) => (e as unknown as { value: string }).value), '');
  await page.waitForSelector(`#m-${said}`);
  assert.ok((await belowView(page)) <= 48);
});
