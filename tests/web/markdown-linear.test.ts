// papo web's Markdown in one pass (ADR 0119): the review's bodies (issue 44, W4: eight 48 KiB
// messages of `[[a](`, 12.1 s a load in Chromium with the old regular expression) and the bodies
// that made the old block rules cubic or quadratic (a heading and a table rule with 48 KiB of
// spaces; a list item too) read as the old renderer read them, in Node (markdown-scan.ts, no DOM) and in
// a real page (Debian's chromium, the built `papo web --no-open`). No time is asserted but the
// test's own generous timeout: bench/web-markdown.ts measures.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { headingOf, inlineTokens, isTableRule, listItemOf } from '../../src/cli/web/page/markdown-scan.js';
import { openMemberState } from '../../src/client/store/profile-store.js';
import { MAX_BODY_BYTES } from '../../src/client/wire/limits.js';
import { tempDir } from '../support/files.js';
import { cleanEnv, runPapo } from '../support/papo.js';
import { chromium, launchChromium, startWeb } from '../support/web.js';

/** The review's body: `[[a](` to 48 KiB. */
const LINKS = '[[a]('.repeat(Math.floor(MAX_BODY_BYTES / 5));
const SPACES = ' '.repeat(MAX_BODY_BYTES - 8);
/** A heading, a list item and a table rule whose old rules backtracked on the spaces. */
const HEADING = `# a${SPACES}x`;
const ITEM = `- a${SPACES}\rx`;
const RULE = `| -${SPACES}x`;

test('the review’s bodies and the block rules’ worst lines read as before: text, in one pass', {
  timeout: 30_000,
}, () => {
  for (let i = 0; i < 8; i++) assert.deepEqual(inlineTokens(LINKS), [{ t: 'text', text: LINKS }]);
  assert.deepEqual(headingOf(HEADING), { level: 1, text: `a${SPACES}x` });
  // `.` does not match \r: no list item, as before.
  assert.equal(listItemOf(ITEM, false), null);
  assert.equal(isTableRule(RULE), false);
  assert.equal(isTableRule(`| --- ${SPACES}| :-: |`), true);
});

const browserAt = chromium();
const skip = 'skip' in browserAt ? browserAt.skip : false;

test('papo web shows eight 48 KiB bodies of `[[a](`, and the heading, item and rule of 48 KiB, as the text they are', {
  skip,
  timeout: 120_000,
}, async (t) => {
  // A profile whose log holds them, as papo mcp logs what it receives (no member runs: the page
  // reads the log).
  const home = join(tempDir(t, 'papo-web-md-'), 'home');
  const env = cleanEnv({ PAPO_HOME: home });
  assert.equal((await runPapo(['new', '--name', 'voce', '--signal', 'ws://127.0.0.1:9'], { env })).code, 0);
  const state = await openMemberState(join(home, 'profiles', 'default'));
  const bodies = [...Array(8).fill(LINKS), HEADING, ITEM, `a | b\n${RULE}`] as string[];
  const ids = bodies.map((_, i) => `cccccccc${String(i).padStart(2, '0')}`);
  for (const [i, body] of bodies.entries())
    await state.appendLog({
      ev: 'in',
      msg: {
        id: ids[i] as string,
        from: 'colega',
        node: 'c'.repeat(64),
        kind: 'agent',
        ts: Date.now(),
        body,
      },
    });
  const web = await startWeb(t, home);

  const browser = await launchChromium(t);
  const page = await browser.newPage();
  await page.goto(web.url);
  // Every card built: before, the heading alone held the page for hours (cubic in its spaces).
  await page.waitForSelector('body[data-all="true"]', { timeout: 30_000 });
  for (const id of ids.slice(0, 8))
    assert.equal(await page.$eval(`#m-${id} .body`, (e) => e.textContent), LINKS);
  assert.equal(await page.$eval(`#m-${ids[8]} .body h3`, (e) => e.textContent), `a${SPACES}x`);
  // The server shows \r as the text `\r` (ADR 0059): a list item on the page.
  assert.equal(await page.$eval(`#m-${ids[9]} .body li`, (e) => e.textContent), `a${SPACES}\\rx`);
  assert.equal(await page.$(`#m-${ids[10]} .body table`), null);
});
