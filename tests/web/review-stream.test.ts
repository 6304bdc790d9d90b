// papo web's review queue in its event stream: a decision is logged before its message leaves
// held/ (src/client/store/review-decisions.ts), so a page told the queue at the moment the log line
// arrives must not be sent the decided message as still held — it would stay on the page, held
// for good, until the next line of the log (the approve from the page that "did nothing" in CI).
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { heldMessage, profileWithHeld } from '../support/held.js';
import { startWeb, webSession } from '../support/web.js';

interface Sse {
  next(event: string, timeoutMs?: number): Promise<string>;
  close(): void;
}

/** The page's event stream, read event by event. */
function events(port: number, session: string): Promise<Sse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/api/events?s=${session}`,
        headers: { Host: `127.0.0.1:${port}` },
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`events: ${res.statusCode}`));
        res.setEncoding('utf8');
        let buffered = '';
        const seen: { event: string; data: string }[] = [];
        let waiting: (() => void) | undefined;
        res.on('data', (d: string) => {
          buffered += d;
          let end = buffered.indexOf('\n\n');
          while (end !== -1) {
            const block = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            end = buffered.indexOf('\n\n');
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
            if (event !== undefined) seen.push({ event, data });
          }
          waiting?.();
        });
        resolve({
          next: async (event, timeoutMs = 15_000) => {
            const until = Date.now() + timeoutMs;
            for (;;) {
              const at = seen.findIndex((e) => e.event === event);
              if (at !== -1) return (seen.splice(0, at + 1).pop() as { data: string }).data;
              if (Date.now() > until) throw new Error(`no ${event} event in ${timeoutMs} ms`);
              await new Promise<void>((r) => {
                waiting = r;
                setTimeout(r, 100);
              });
            }
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('papo web: a message whose decision the log shows is not sent to the page as held, even while held/ still has it', async (t) => {
  // Two messages held, through the real store, as papo mcp holds them.
  const keep = heldMessage('bbbbbbbbb1', 'approve me');
  const other = heldMessage('bbbbbbbbb2', 'still held');
  const { home, state } = await profileWithHeld(t, [keep, other]);

  const web = await startWeb(t, home);
  const sse = await events(web.port, (await webSession(web)).session);
  t.after(() => sse.close());
  await sse.next('following');

  // The first half of an approve, as papo mcp does it: the decision in the log, the file not yet gone.
  await state.appendLog({ ev: 'review', id: keep.id, decision: 'approved', ts: Date.now() });
  const told = JSON.parse(await sse.next('entries'));
  assert.ok(
    told.entries.some((e: { ev: string; id?: string }) => e.ev === 'review' && e.id === keep.id),
    'the decision reached the page',
  );
  assert.deepEqual(
    told.review.held.map((m: { id: string }) => m.id),
    [other.id],
    'the decided message is not held on the page',
  );

  // A later line of the log, the file still there: the page is not given it back.
  await state.appendLog({ ev: 'delivered', id: 'ccccccccc1', by: 'colega', ts: Date.now() });
  const later = JSON.parse(await sse.next('entries'));
  assert.deepEqual(
    later.review.held.map((m: { id: string }) => m.id),
    [other.id],
  );
  await state.removeFromHeld([keep.id]);
});
