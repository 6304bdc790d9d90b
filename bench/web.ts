// papo web, measured (not a test): the time from opening its address to the cards of a room whose
// log holds 1,000 messages rendered (goal ≤ 300 ms), and the RSS of `papo web` idle (goal
// ≤ 60 MB), once started and once a page has loaded and stays open. The built binary and Debian's
// chromium through puppeteer-core, as tests/web drives them.
// Usage: npm run build && node dist/bench/web.js [rounds=10]
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from 'puppeteer-core';
import { LogFile } from '../src/client/store/log-file.js';
import { createProfile } from '../src/client/store/profile-store.js';
import { generateSecret } from '../src/client/wire/room-crypto.js';
import { makeTempDir } from '../tests/support/files.js';
import { chromium, startWeb } from '../tests/support/web.js';

const ROUNDS = Number(process.argv[2] ?? 10);
const MESSAGES = 1000;

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1]) / 1024;
}
const summary = (v: number[], unit: string) => {
  const s = [...v].sort((a, b) => a - b);
  const at = (p: number) => (s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0).toFixed(1);
  return `p50 ${at(0.5)} ${unit}, p90 ${at(0.9)} ${unit}, min ${s[0]?.toFixed(1)}, max ${s.at(-1)?.toFixed(1)} (n=${s.length})`;
};

const at = chromium();
if ('skip' in at) {
  process.stderr.write(`${at.skip}\n`);
  process.exit(1);
}
const home = makeTempDir('papo-bench-web-');
try {
  const { profile } = await createProfile({
    home,
    profile: 'default',
    name: 'voce',
    secret: generateSecret(),
    force: false,
  });
  const log = new LogFile(join(profile.dir, 'log.jsonl'));
  const t0 = Date.now() - MESSAGES * 60_000;
  for (let i = 0; i < MESSAGES; i++) {
    const body =
      i % 3 === 0
        ? `## Step ${i}\n\nThe **payments** service, then \`notifications\`:\n\n\`\`\`ts\nconst n = ${i};\n\`\`\`\n\n| a | b |\n| - | - |\n| ${i} | ok |`
        : `message ${i}: a line of plain text with a [link](https://example.com/${i}) and *emphasis*`;
    const id = i.toString(16).padStart(10, '0');
    const msg = {
      id,
      from: i % 2 ? 'colega' : 'voce',
      node: 'ab'.repeat(32),
      kind: 'agent' as const,
      ts: t0 + i * 60_000,
      body,
    };
    await log.append(i % 2 ? { ev: 'in', msg } : { ev: 'out', msg });
  }
  const web = await startWeb(null, home);
  await new Promise((r) => setTimeout(r, 2000));
  const started = rssMb(web.pid);
  const browser = await launch({
    executablePath: at.path,
    headless: true,
    args: ['--no-sandbox', '--headless=new'],
  });
  const times: number[] = [];
  const stateAt: number[] = [];
  const allTimes: number[] = [];
  const renderedAt: number[] = [];
  const firstAt: number[] = [];
  try {
    // A first page, then each round a fresh one: a new tab, which trades the secret for its
    // session (ADR 0120) before it reads the state.
    const first = await browser.newPage();
    await first.goto(web.url);
    await first.waitForSelector('body[data-all="true"]');
    await new Promise((r) => setTimeout(r, 5000));
    const onePage = rssMb(web.pid);
    for (let r = 0; r < ROUNDS; r++) {
      const page = await browser.newPage();
      const begin = performance.now();
      await page.goto(web.url);
      // The first screen: the newest cards, built before the page shows; then all of them.
      await page.waitForSelector('body[data-ready="true"]');
      times.push(performance.now() - begin);
      await page.waitForSelector('body[data-all="true"]');
      allTimes.push(performance.now() - begin);
      assert.equal(await page.$$eval('#cards .card', (l) => l.length), MESSAGES);
      // Where the time went, by the page's own clock (0 = the navigation's start).
      const [state, first, all] = (await page.evaluate(
        (u) =>
          [u, 'papo-first-cards', 'papo-all-cards'].map((name) => {
            const e = performance.getEntriesByName(name)[0] as unknown as
              | { responseEnd?: number; startTime: number }
              | undefined;
            return e?.responseEnd ?? e?.startTime ?? 0;
          }),
        `${web.base}/api/state`,
      )) as [number, number, number];
      stateAt.push(state);
      firstAt.push(first);
      renderedAt.push(all);
      await page.close();
    }
    await new Promise((r) => setTimeout(r, 5000));
    const withPage = rssMb(web.pid);
    process.stdout.write(
      [
        `papo web, ${MESSAGES} messages in the log (a third with a heading, code and a table)`,
        `  open → the newest cards on screen: ${summary(times, 'ms')}`,
        `  open → all ${MESSAGES} cards in the page: ${summary(allTimes, 'ms')}`,
        "  by the page's clock, from the navigation's start:",
        `    the room's state received ${summary(stateAt, 'ms')}`,
        `    the newest ${50} cards built and scrolled to ${summary(firstAt, 'ms')}`,
        `    all ${MESSAGES} cards built ${summary(renderedAt, 'ms')}`,
        `  RSS idle: ${started.toFixed(1)} MB started, ${onePage.toFixed(1)} MB 5 s after one page loaded (open),`,
        `    ${withPage.toFixed(1)} MB 5 s after ${ROUNDS} more loads`,
        '',
      ].join('\n'),
    );
  } finally {
    await browser.close();
    await web.stop();
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}

declare const document: { querySelectorAll(selector: string): { length: number } };
