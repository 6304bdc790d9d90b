// papo web in a real headless browser (Debian's chromium through puppeteer-core), with two real
// `papo mcp` members on loopback and the built `papo web --no-open` on voce's profile: what
// colega's agent sends is rendered (a code block, a table); a say from the page reaches colega's
// agent as a person's; held messages are approved or rejected from the page; hostile bodies stay
// inert text (no script runs, no request leaves 127.0.0.1, no CSP violation). Without chromium the
// tests skip and say why. PAPO_WEB_SCREENSHOTS=DIR saves the pictures docs/web.md shows.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { msgIdIn, runPapo, userEnv } from '../support/papo.js';
import { childPids, holdsWebRtc, webRtcChildren } from '../support/processes.js';
import { callText, channelPushes, makeRoom, pushOf, type Room } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { chromium, launchChromium, linkedAgents, startWeb, type WebServer } from '../support/web.js';

// The page's globals as the callbacks run in the browser see them (the tests compile without the
// DOM's types).
interface PageElement {
  className: string;
  textContent: string | null;
}
declare const window: { cspViolations: string[]; pwned?: unknown };
declare const document: {
  addEventListener(
    type: 'securitypolicyviolation',
    f: (e: { violatedDirective: string; blockedURI: string }) => void,
  ): void;
  querySelector(selector: string): PageElement | null;
  documentElement: { scrollWidth: number; lang: string };
};

const browserAt = chromium();
const skip = 'skip' in browserAt ? browserAt.skip : false;
const SHOTS = process.env.PAPO_WEB_SCREENSHOTS;

interface Watched {
  page: Page;
  /** Requests to anywhere but the server (aborted). */
  foreign: string[];
  errors: string[];
}

/** The page at papo web's address, every request counted, CSP violations counted in the page. */
async function open(browser: Browser, web: WebServer, width = 1100): Promise<Watched> {
  const page = await browser.newPage();
  await page.setViewport({ width, height: 900 });
  const foreign: string[] = [];
  const errors: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (r) => {
    if (r.url().startsWith(`${web.base}/`)) void r.continue();
    else {
      foreign.push(r.url());
      void r.abort();
    }
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.evaluateOnNewDocument(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await page.goto(web.url);
  assert.equal(page.url(), `${web.base}/`, 'the secret left the address bar');
  await page.waitForSelector('body[data-ready="true"]');
  return { page, foreign, errors };
}

/** voce and colega, both agents online for each other; papo web on voce's profile. */
async function linkedRoom(t: Parameters<typeof makeRoom>[0], review = false) {
  const room: Room = await makeRoom(t, { label: 'web' });
  if (review) {
    const on = await runPapo(['review', 'on'], { env: userEnv(room.members.voce.home) });
    assert.equal(on.code, 0, on.stderr);
  }
  const { voce, colega } = await linkedAgents(room);
  const web = await startWeb(t, room.members.voce.home);
  return { room, voce, colega, web };
}

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, name), fullPage: true });
}

async function textOf(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (e) => e.textContent ?? '');
}

test('papo web shows what the room says, rendered, and a say from the page reaches the colleague’s agent as a person’s', {
  skip,
  timeout: 180_000,
}, async (t) => {
  const { voce, colega, web } = await linkedRoom(t);
  const browser = await launchChromium(t);
  const { page, foreign, errors } = await open(browser, web);

  const body = [
    '## Deploy plan',
    '',
    'The **payments** service moves first, then `notifications`:',
    '',
    '```ts',
    'const order = ["payments", "notifications"];',
    '```',
    '',
    '| service | when |',
    '| --- | --- |',
    '| payments | 14:00 |',
    '| notifications | 14:30 |',
    '',
    '- one',
    '- two',
  ].join('\n');
  const id = msgIdIn(await callText(colega.client, 'send', { message: body }));
  const card = `#m-${id}`;
  await page.waitForSelector(`${card} pre code`);
  assert.equal(await textOf(page, `${card} pre code`), 'const order = ["payments", "notifications"];');
  assert.equal(await textOf(page, `${card} pre .lang`), 'ts');
  assert.deepEqual(
    await page.$$eval(`${card} table tr`, (rows) =>
      rows.map((r) => [...r.children].map((c) => `${c.tagName}:${c.textContent}`)),
    ),
    [
      ['TH:service', 'TH:when'],
      ['TD:payments', 'TD:14:00'],
      ['TD:notifications', 'TD:14:30'],
    ],
  );
  assert.equal(await textOf(page, `${card} h4`), 'Deploy plan');
  assert.equal(await textOf(page, `${card} strong`), 'payments');
  assert.equal(await page.$$eval(`${card} ul li`, (l) => l.length), 2);
  assert.equal(await textOf(page, `${card} .who`), 'colega');
  assert.equal(await textOf(page, `${card} .kind`), 'agent');
  assert.equal(await textOf(page, `${card} .to`), '→ room');

  // colega's agent answers it: the answer carries a "reply to" link to the card it answers.
  const reply = msgIdIn(await callText(colega.client, 'send', { message: 'and a reply', reply_to: id }));
  await page.waitForSelector(`#m-${reply} .reply-link`);
  assert.equal(await textOf(page, `#m-${reply} .reply-link`), `reply to ${id}`);

  // A say from the page, to colega: handed to voce's papo mcp, pushed to colega's agent as a
  // person's words; the page tells who has it.
  await page.select('#say-to', 'colega');
  await page.type('#say-body', 'hello from the page');
  await page.click('#say-send');
  await page.waitForFunction(() => document.querySelector('#say-outcome')?.className === 'ok', {
    timeout: 60_000,
  });
  const outcome = await textOf(page, '#say-outcome');
  assert.match(outcome, /^delivered to colega \(msg [0-9a-f]{10}\)$/);
  const said = msgIdIn(outcome);
  const push = await pushOf(colega.client, said);
  assert.equal(push.meta.sender_kind, 'human');
  assert.equal(push.meta.from, 'voce');
  assert.match(String(push.content), /hello from the page/);
  // And the conversation shows it, from the person.
  await page.waitForSelector(`#m-${said}`);
  assert.equal(await textOf(page, `#m-${said} .kind`), 'person');
  assert.equal(await textOf(page, `#m-${said} .to`), '→ colega');
  // Handed to the running papo mcp: papo web itself loaded no WebRTC and started no transport.
  assert.equal(holdsWebRtc(web.pid), false);
  assert.deepEqual(childPids(web.pid), []);

  // The room panel, papo status's way, with no click: who is online and by which path (here,
  // loopback: direct), as voce's running papo mcp sees them (asked over member.sock).
  await page.waitForFunction(() => /colega/.test(document.querySelector('#members')?.textContent ?? ''), {
    timeout: 30_000,
  });
  const members = await textOf(page, '#members');
  assert.deepEqual(webRtcChildren(web.pid), []);
  assert.match(members, /colega \(agent\) online, direct — notifications/);
  // Its own agent, as voce’s papo mcp sees itself: online, no link to itself.
  assert.match(members, /voce \(agent\) online — your agent/);
  await shot(page, 'web-conversation.png');

  // Narrow (a phone's 390 px): nothing wider than the screen.
  const phone = await open(browser, web, 390);
  await phone.page.waitForSelector(`#m-${id} table`);
  const wide = await phone.page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `the page is ${wide} px wide at 390`);
  await shot(phone.page, 'web-phone.png');

  assert.deepEqual(foreign, []);
  assert.deepEqual(errors, []);
  assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
  void voce;
});

test('papo web: a held message approved from the page reaches the agent once; one rejected with a reason never does, and its sender is told why', {
  skip,
  timeout: 180_000,
}, async (t) => {
  const { voce, colega, web } = await linkedRoom(t, true);
  const browser = await launchChromium(t);
  const { page, foreign, errors } = await open(browser, web);

  const keep = msgIdIn(await callText(colega.client, 'send', { message: 'please review **this** one' }));
  const drop = msgIdIn(await callText(colega.client, 'send', { message: 'run `rm -rf /tmp/x` now' }));
  await page.waitForSelector(`#held article[data-id="${drop}"]`);
  assert.ok(await page.$(`#held article[data-id="${keep}"] strong`), 'the held body is rendered in full');
  assert.match(await textOf(page, '#review-state'), /Review is on: 2 held/);
  await shot(page, 'web-review.png');

  await page.click(`#held article[data-id="${keep}"] button.approve`);
  await waitFor(
    'approved on the page',
    async () => !(await page.$(`#held article[data-id="${keep}"]`)),
    30_000,
  );
  await pushOf(voce.client, keep, 30_000);
  await page.waitForFunction(
    (id) => document.querySelector(`#m-${id} .state`)?.textContent?.startsWith('you approved it'),
    {},
    keep,
  );

  // A reason half typed when another message comes in for review stays as typed, focus and all.
  await page.type(`#held article[data-id="${drop}"] input.reason`, 'not on a ');
  const later = msgIdIn(await callText(colega.client, 'send', { message: 'and one more' }));
  await page.waitForSelector(`#held article[data-id="${later}"]`);
  await page.keyboard.type('shared machine');
  assert.equal(
    await page.$eval(
      `#held article[data-id="${drop}"] input.reason`,
      (i) => (i as unknown as { value: string }).value,
    ),
    'not on a shared machine',
  );
  await page.click(`#held article[data-id="${drop}"] button.reject`);
  // colega's agent is told why, in reply to the message its person rejected.
  const told = await colega.client.waitFor(
    (m) =>
      m.method === 'notifications/claude/channel' &&
      String(m.params?.content).includes('not on a shared machine'),
    60_000,
    'the reason pushed to colega',
  );
  assert.equal(told.params.meta.sender_kind, 'human');
  assert.match(String(told.params.content), new RegExp(drop));
  await page.waitForFunction(
    (id) => document.querySelector(`#m-${id} .state`)?.textContent?.startsWith('you rejected it'),
    {},
    drop,
  );
  assert.match(await textOf(page, `#m-${drop} .state`), /reason: not on a shared machine/);

  const pushed = channelPushes(voce.client).map((p) => String(p.meta?.msg_id));
  assert.equal(pushed.filter((x) => x === keep).length, 1, 'the approved message, once');
  assert.equal(pushed.filter((x) => x === drop).length, 0, 'the rejected message, never');
  assert.deepEqual(foreign, []);
  assert.deepEqual(errors, []);
});

test('papo web: hostile bodies render as inert text — no script runs, nothing is fetched from elsewhere, no CSP violation', {
  skip,
  timeout: 180_000,
}, async (t) => {
  const { room, colega, web } = await linkedRoom(t);
  // A second profile in voce's home: the page offers a picker (checked at the end).
  const second = await runPapo(
    ['new', '--name', 'ana', '--profile', 'work', '--signal', 'ws://127.0.0.1:9'],
    {
      env: userEnv(room.members.voce.home),
    },
  );
  assert.equal(second.code, 0, second.stderr);
  const browser = await launchChromium(t);
  const { page, foreign, errors } = await open(browser, web);

  const hostile = [
    '<img src=x onerror="window.pwned=1">',
    '<script>window.pwned=2</script>',
    '[click me](javascript:window.pwned=3)',
    '[or me](data:text/html,<script>window.pwned=4</script>)',
    '![tracker](http://203.0.113.9/pixel.png)',
    '<a href="http://203.0.113.9/">a</a> <iframe src="http://203.0.113.9/"></iframe>',
    'terminal: \u001b]52;c;cGF5bG9hZA==\u0007 and \u001b[2J cleared',
    'bidi: abc\u202edcba\u202c and \u2066isolate\u2069',
  ];
  const ids: string[] = [];
  for (const body of hostile) ids.push(msgIdIn(await callText(colega.client, 'send', { message: body })));
  for (const id of ids) await page.waitForSelector(`#m-${id} .body`);

  const bodies = await Promise.all(ids.map((id) => textOf(page, `#m-${id} .body`)));
  assert.equal(bodies[0], '<img src=x onerror="window.pwned=1">');
  assert.equal(bodies[1], '<script>window.pwned=2</script>');
  assert.equal(bodies[2], 'click me (javascript:window.pwned=3)');
  assert.equal(bodies[4], '[image: tracker] (http://203.0.113.9/pixel.png)');
  // Escapes and bidi controls arrive as their visible forms (ADR 0059), never as the characters.
  assert.ok(bodies[6]?.includes('\\x1b]52;c;cGF5bG9hZA==\\x07'), bodies[6]);
  assert.ok(bodies[7]?.includes('abc\\u202edcba\\u202c'), bodies[7]);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must not reach the page
  for (const b of bodies) assert.doesNotMatch(b, /[\u001b\u0007\u202a-\u202e\u2066-\u2069]/u);
  // No element came from a body: only what the renderer makes.
  const made = await page.$$eval('#cards .body *', (all) => [...new Set(all.map((e) => e.tagName))].sort());
  assert.deepEqual(
    made.filter((tag) => !['P', 'SPAN', 'CODE', 'EM', 'STRONG'].includes(tag)),
    [],
  );
  assert.equal(await page.$$eval('a, img, iframe, script:not([src="/app.js"])', (l) => l.length), 0);
  // Give an image or a handler time to fire, if one had been made.
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.deepEqual(foreign, []);
  assert.deepEqual(errors, []);
  assert.deepEqual(await page.evaluate(() => window.cspViolations), []);

  // The picker: the other profile opens in the tab, its own room and name.
  await page.waitForSelector('#profiles:not([hidden])');
  assert.deepEqual(
    await page.$$eval('#profile option', (o) => o.map((x) => (x as unknown as { value: string }).value)),
    ['default', 'work'],
  );
  await Promise.all([page.waitForNavigation(), page.select('#profile', 'work')]);
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(await textOf(page, '#where'), /^you are ana in room [0-9a-f]{8} \(profile work\)$/);
  assert.equal(await page.$$eval('#cards .card', (l) => l.length), 0);
});

test('papo web speaks the person’s language: pt-BR with LANG=pt_BR.UTF-8', {
  skip,
  timeout: 60_000,
}, async (t) => {
  const room = await makeRoom(t, { label: 'web-pt' });
  const web = await startWeb(t, room.members.voce.home, { LANG: 'pt_BR.UTF-8' });
  const browser = await launchChromium(t);
  const { page, errors } = await open(browser, web);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'pt-BR');
  assert.match(await textOf(page, '#where'), /^você é voce na sala [0-9a-f]{8} \(perfil default\)$/);
  assert.equal(await textOf(page, '#say-send'), 'Enviar');
  assert.equal(await textOf(page, 'label[for="say-body"]'), 'Mensagem');
  assert.equal(await textOf(page, '#conversation-title'), 'Conversa');
  // The say's outcome is papo say's own, in Portuguese too: nobody is known in this room yet.
  await page.type('#say-body', 'olá');
  await page.click('#say-send');
  await page.waitForFunction(() => document.querySelector('#say-outcome')?.className === 'bad', {
    timeout: 60_000,
  });
  assert.doesNotMatch(await textOf(page, '#say-outcome'), /\b(the|nobody|room)\b/);
  assert.deepEqual(errors, []);
});
