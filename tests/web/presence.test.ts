// papo web shows who is online without being asked, and keeps it true (issue 44, item 4), in
// headless chromium with two real `papo mcp` on loopback: the room panel lists the colleague online
// and by which path with no click (the page asks the profile's running papo mcp over member.sock,
// which opens nothing, every 10 s while the tab is seen); the colleague's papo mcp stopped, the panel
// says offline by itself. Without the profile's papo mcp the panel lists the remembered members,
// says why, and keeps "Check who is online" (a look that opens a member of its own).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSignalServer } from '../../src/signal-server/server.js';
import { childPids, webRtcChildren } from '../support/processes.js';
import { callText, makeRoom, type Room, startAgent, statusUntil } from '../support/room.js';
import { chromium, launchChromium, linkedAgents, startWeb } from '../support/web.js';

declare const document: {
  querySelector(s: string): { textContent: string | null; hidden: boolean } | null;
};

const browserAt = chromium();
const skip = 'skip' in browserAt ? browserAt.skip : false;

const membersMatch = (source: string) => {
  const found = document.querySelector('#members');
  return new RegExp(source).test(found?.textContent ?? '');
};

test('papo web’s room panel shows who is online with no click, and a colleague who stops as offline, by itself', {
  skip,
  timeout: 180_000,
}, async (t) => {
  const room: Room = await makeRoom(t, { label: 'web-presence' });
  const { voce, colega } = await linkedAgents(room);
  const web = await startWeb(t, room.members.voce.home);
  const browser = await launchChromium(t);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(web.url);
  await page.waitForSelector('body[data-ready="true"]');

  await page.waitForFunction(
    membersMatch,
    { timeout: 15_000 },
    'colega \\(agent\\) online, direct — notifications',
  );
  assert.match(
    await page.$eval('#members', (e) => e.textContent ?? ''),
    /voce \(agent\) online — your agent/,
  );
  // papo mcp answered: no button to press, and papo web opened no member of its own for it.
  assert.equal(await page.$eval('#room-check', (e) => (e as unknown as { hidden: boolean }).hidden), true);
  assert.deepEqual(childPids(web.pid), []);

  await colega.stop();
  // Within a poll or two (10 s each) of voce's papo mcp seeing colega gone.
  await page.waitForFunction(membersMatch, { timeout: 40_000 }, 'colega \\(agent\\) offline');
  assert.match(
    await page.$eval('#members', (e) => e.textContent ?? ''),
    /voce \(agent\) online — your agent/,
  );

  // voce's papo mcp stopped too: the remembered members, and why there is no more.
  await voce.stop();
  await page.waitForFunction(
    () => /papo mcp is not running/.test(document.querySelector('#room-state')?.textContent ?? ''),
    { timeout: 30_000 },
  );
  assert.equal(await page.$eval('#room-check', (e) => (e as unknown as { hidden: boolean }).hidden), false);
  assert.match(await page.$eval('#members', (e) => e.textContent ?? ''), /colega \(agent\)/);
  assert.deepEqual(errors, []);
});

test('papo web’s room panel says why a colleague cannot be reached: a link not answering, then on the signal server with no link yet', {
  skip,
  timeout: 240_000,
}, async (t) => {
  // As tests/mcp/e2e-between.test.ts: the room's signal server in this process (its pings far
  // apart, so a frozen member stays on the topic), colega's papo mcp and transport frozen.
  const room: Room = await makeRoom(t, { label: 'web-presence-why' });
  const server = await startSignalServer({
    host: '127.0.0.1',
    port: Number(new URL(room.signalUrl).port),
    env: {},
    config: { pingIntervalMs: 600_000 },
  });
  t.after(() => server.close());
  const voce = startAgent(room, room.members.voce);
  const colega = startAgent(room, room.members.colega);
  await Promise.all([voce.client.initialize(), colega.client.initialize()]);
  await statusUntil(voce.client, /colega \(agent\): online, .*link: direct$/m, 60_000);
  const web = await startWeb(t, room.members.voce.home);
  const browser = await launchChromium(t);
  const page = await browser.newPage();
  await page.goto(web.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(membersMatch, { timeout: 15_000 }, 'colega \\(agent\\) online, direct');

  const parent = colega.child.pid as number;
  const frozen = [parent, ...webRtcChildren(parent)];
  for (const pid of frozen) process.kill(pid, 'SIGSTOP');
  t.after(() => {
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
  });
  await callText(voce.client, 'send', { message: 'Still there?' });
  await page.waitForFunction(
    membersMatch,
    { timeout: 40_000 },
    'colega \\(agent\\) online, not answering for \\d+s',
  );
  await page.waitForFunction(
    membersMatch,
    { timeout: 120_000 },
    'colega \\(agent\\) offline: on the signal server, no link yet',
  );
});
