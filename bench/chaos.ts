// The long chaos run (not a test; needs root for the NAT lab): members exchange numbered messages
// under kill -9, cut sites and signal-server restarts, and the counts are printed for
// docs/reliability.md. Usage:
//   npm run build && node dist/bench/chaos.js [members=4] [messages=1000] [faults=50] [seed] [roomEvery=2]
// (every roomEvery-th message goes to the whole room and must reach every other member: ADR 0063)
import { runChaos } from '../tests/chaos/chaos.js';
import { coturnSkipReason, labSkipReason } from '../tests/nat/lab.js';

const [members, messages, faults] = [4, 1000, 50].map((d, i) => Number(process.argv[2 + i] ?? d)) as [
  number,
  number,
  number,
];
const seed = process.argv[5] !== undefined ? Number(process.argv[5]) : Date.now() % 2 ** 31;
const roomEvery = Number(process.argv[6] ?? 2);
const skip = labSkipReason() ?? coturnSkipReason();
if (skip) {
  console.error(`cannot run: ${skip}`);
  process.exit(2);
}
console.log(
  `chaos long run: ${members} members, ${messages} messages (one in ${roomEvery} to the room), ${faults} faults, seed ${seed}, ${new Date().toISOString()}`,
);
const report = await runChaos({
  members,
  messages,
  faults,
  seed,
  roomEvery,
  sendIntervalMs: 150,
  faultIntervalMs: 2000,
  faultDurationMs: 3000,
  settleMs: 180_000,
  log: (l) => console.log(`${new Date().toISOString()} ${l}`),
});
console.log(JSON.stringify(report, null, 2));
process.exit(
  report.lost === 0 &&
    report.duplicatesToAgent === 0 &&
    report.duplicatesStored === 0 &&
    report.leftQueued === 0
    ? 0
    : 1,
);
