// The moments between, across the NAT lab (issue 40, ADR 0115): two members linked direct through
// endpoint-independent NATs, and bob's network starts dropping UDP — as a laptop moving to a
// network that lets only TCP out. His link is still open (it closes when ICE gives up, 14-17 s),
// but it carries nothing: ana's `status` says it is not answering, not "direct"; then papo links
// again through the server's coturn over TCP, and what ana sent meanwhile reaches bob. Every
// namespace and process goes with the test, failing or not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkOf, waitMessage, waitPath } from '../support/members.js';
import { waitFor } from '../support/wait.js';
import { coturnSkipReason, labSkipReason } from './lab.js';
import { publicLab, startPair } from './public-room.js';

const skip = labSkipReason() ?? coturnSkipReason();
if (skip) console.log(`# SKIP the moments between in the NAT lab: ${skip}`);

test('a direct link whose network starts dropping UDP: status says "not answering" (not "direct"), then papo links through TURN over TCP and the message arrives', {
  skip: skip ?? false,
  timeout: 240_000,
}, async (t) => {
  const room = await publicLab([{ nat: 'eim' }, { nat: 'eim' }], true);
  t.after(() => room.close());
  const [ana, bob] = await startPair(room);
  t.after(() => Promise.all([ana.kill(), bob.kill()]));
  await waitPath(ana, 'bob', 'direct');
  await waitPath(bob, 'ana', 'direct');

  await room.lab.setUdpBlocked(room.lab.sites[1], true);
  const sent = await ana.send('sent while the link carries nothing', { to: 'bob' });
  assert.match(sent, /^Not acknowledged yet/);
  const quiet = await waitFor(
    'ana says bob’s link is not answering',
    async () => {
      const status = await ana.status();
      return /^- bob \(agent\): online, .*link: not answering for \d+s \(direct until then\)$/m.test(status)
        ? status
        : '';
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  t.diagnostic(quiet);
  assert.notEqual(linkOf(quiet, 'bob'), 'direct');

  // papo links again by itself, through the server's coturn over TCP, and the queued message goes.
  await waitPath(ana, 'bob', 'relay', 120_000);
  await waitMessage(bob, 'sent while the link carries nothing', 60_000);
});
