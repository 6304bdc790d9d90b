// papo web builds each card on its own (ADR 0119): a message the page cannot show becomes one
// placeholder card, and the conversation, the review queue and the live updates go on. The message
// here is dated 9e15 ms, past JavaScript's Date range (its card threw in `new Date(ts)
// .toISOString()`); the wire refuses such a time now, so it is stored as a papo before that stored
// it from a peer: held for review, in held/ and in the log. Then two real `papo mcp` members, the
// built `papo web --no-open` and Debian's chromium (puppeteer-core), as tests/web/browser.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openMemberState } from '../../src/client/store/profile-store.js';
import type { Envelope } from '../../src/client/wire/messages.js';
import { msgIdIn, runPapo, userEnv } from '../support/papo.js';
import { callText, makeRoom } from '../support/room.js';
import { chromium, launchChromium, linkedAgents, startWeb } from '../support/web.js';

declare const document: { querySelector(s: string): { textContent: string | null } | null };

const browserAt = chromium();
const skip = 'skip' in browserAt ? browserAt.skip : false;

test('papo web: a message it cannot show is one placeholder card; the other cards, the review queue and the live updates go on', {
  skip,
  timeout: 180_000,
}, async (t) => {
  const room = await makeRoom(t, { label: 'web' });
  const on = await runPapo(['review', 'on'], { env: userEnv(room.members.voce.home) });
  assert.equal(on.code, 0, on.stderr);
  // Held as papo mcp holds a message: in held/, and an `in` line of the log marked held.
  const bad: Envelope = {
    id: 'bad0000001',
    from: 'colega',
    node: room.members.colega.profile.identity.nodeId,
    kind: 'agent',
    ts: 9e15,
    body: 'dated past what a Date holds',
  };
  const state = await openMemberState(room.members.voce.profile.dir);
  await state.addToHeld(bad);
  await state.appendLog({ ev: 'in', msg: bad, held: true });

  const { colega } = await linkedAgents(room);
  const first = msgIdIn(await callText(colega.client, 'send', { message: 'the **first** one' }));
  const second = msgIdIn(await callText(colega.client, 'send', { message: 'the second one' }));
  const web = await startWeb(t, room.members.voce.home);

  const browser = await launchChromium(t);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(web.url);
  // Before, the first cards threw and the page never said it was ready.
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });

  const cards = () =>
    page.$$eval('#cards article', (list) =>
      list.map((a) => ({
        id: (a as unknown as { dataset: { id?: string } }).dataset.id,
        cls: a.className,
        text: a.textContent ?? '',
      })),
    );
  const shown = await cards();
  assert.deepEqual(
    shown.map((c) => c.id),
    ['bad0000001', first, second],
  );
  const placeholder = shown[0] as { cls: string; text: string };
  assert.match(placeholder.cls, /unshowable/);
  assert.match(placeholder.text, /this message could not be shown/);
  assert.match(placeholder.text, /bad0000001/);
  // It shows none of what it could not show.
  assert.doesNotMatch(placeholder.text, /dated past/);
  assert.match(shown[1]?.text ?? '', /the first one/);
  assert.equal(await page.$eval(`#m-${first} .body strong`, (e) => e.textContent), 'first');

  // The review queue: all three held, the placeholder with Reject and no Approve.
  const held = () => page.$$eval('#held article', (list) => list.map((a) => a.textContent ?? ''));
  await page.waitForFunction(() => document.querySelector('#held')?.textContent?.includes('the second one'));
  assert.equal((await held()).length, 3);
  assert.match(await page.$eval('#review-state', (e) => e.textContent ?? ''), /Review is on: 3 held/);
  assert.equal(await page.$('#held article[data-id="bad0000001"] button.approve'), null);
  assert.ok(await page.$('#held article[data-id="bad0000001"] button.reject'));

  // Live: a decision from the page reaches the card, and a new message arrives as a card.
  await page.click(`#held article[data-id="${first}"] button.approve`);
  await page.waitForFunction(
    (id: string) => /you approved it/.test(document.querySelector(`#m-${id} .state`)?.textContent ?? ''),
    { timeout: 60_000 },
    first,
  );
  const third = msgIdIn(await callText(colega.client, 'send', { message: 'the third one' }));
  await page.waitForSelector(`#m-${third}`, { timeout: 30_000 });
  assert.deepEqual(
    (await cards()).map((c) => c.id),
    ['bad0000001', first, second, third],
  );
  // The one card that could not be built is said on the console, not thrown out of the page.
  assert.deepEqual(errors, []);
});
