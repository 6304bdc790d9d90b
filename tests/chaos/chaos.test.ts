// The short chaos runs: 2 and then 4 members in the NAT lab with kill -9 and restarts, sites cut
// off and restored, the signal server restarted, and transports frozen, while numbered messages flow. Nothing may be
// lost, nothing handed twice to an agent, nothing left queued once healed. The long run is
// bench/chaos.ts (docs/reliability.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coturnSkipReason, labSkipReason } from '../nat/lab.js';
import { runChaos } from './chaos.js';

const skip = labSkipReason() ?? coturnSkipReason();
if (skip) console.log(`# SKIP chaos: ${skip}`);
const seed = process.env.PAPO_CHAOS_SEED ? Number(process.env.PAPO_CHAOS_SEED) : Date.now() % 2 ** 31;

// The four members send one message in two to the whole room: each must reach the three others.
for (const [members, messages, faults, roomEvery] of [
  [2, 40, 5, 0],
  [4, 60, 6, 2],
] as const) {
  test(`chaos: ${members} members, ${messages} messages${roomEvery ? ' (half to the room)' : ''}, ${faults} faults`, {
    skip: skip ?? false,
  }, async () => {
    const report = await runChaos({
      members,
      messages,
      faults,
      seed,
      roomEvery,
      sendIntervalMs: 150,
      faultIntervalMs: 1500,
      faultDurationMs: 2500,
      settleMs: 90_000,
      log: (l) => console.log(`# ${l}`),
    });
    console.log(`# seed ${seed} (PAPO_CHAOS_SEED): ${JSON.stringify(report)}`);
    assert.equal(
      report.faults.kill + report.faults.cut + report.faults.signal + report.faults.freeze,
      faults,
    );
    assert.ok(report.faults.freeze >= 1, 'at least one transport freeze');
    assert.ok(report.sent >= messages - report.interruptedSends, 'the senders logged their messages');
    if (roomEvery > 0) assert.ok(report.roomMessages > 0, 'messages to the room were sent');
    assert.deepEqual(report.lostIds, [], 'lost messages');
    assert.equal(report.duplicatesToAgent, 0, 'duplicates handed to an agent');
    assert.equal(report.duplicatesStored, 0, 'duplicates stored');
    assert.equal(report.leftQueued, 0, 'left queued');
  });
}
