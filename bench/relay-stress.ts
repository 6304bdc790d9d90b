// The relayed-path stress run (not a test): a relay-only `papo mcp` behind a real coturn, and
// people running `papo say` in parallel loops, each say a new relayed link on both ends. It counts
// the says delivered, the transport processes that froze (the native deadlock of ADR 0055) and
// were started again by papo itself (ADR 0057), and coturn's relay sockets at the end (ADR 0058).
// Usage: npm run build && node dist/bench/relay-stress.js [says=1000] [parallel=4] [user-quota]
// With a user-quota (coturn's allocations at once per username; the Docker bundle's is 12), the
// TURN-allocation check's relay-only scenario: `15 1 12` is issue 40's 15 says one after another.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/cli/free-port.js';
import { McpStdioClient } from '../src/cli/stdio-client.js';
import { startCoturn } from '../tests/support/coturn.js';
import { runPapo } from '../tests/support/papo.js';

const PAPO = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const says = Number(process.argv[2] ?? 1000);
const parallel = Number(process.argv[3] ?? 4);
const userQuota = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
const FROZEN = /the transport process \(WebRTC\) stopped answering/g;
const FROZEN_LINE = /the transport process \(WebRTC\) stopped answering/;

const root = mkdtempSync(join(tmpdir(), 'papo-relay-stress-'));
const user = { name: 'stress', password: 'test-only-password' };
const turn = await startCoturn({ user, ...(userQuota === undefined ? {} : { userQuota }) });
const env = (home: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  LANG: 'C',
  PAPO_HOME: home,
  PAPO_ICE_POLICY: 'relay',
  PAPO_ICE_SERVERS: JSON.stringify([
    { urls: `turn:127.0.0.1:${turn.port}`, username: user.name, credential: user.password },
  ]),
});
const homes = { agent: join(root, 'agent'), person: join(root, 'person') };
for (const h of Object.values(homes)) mkdirSync(h, { recursive: true });
const signal = `ws://127.0.0.1:${await freePort()}`;
const made = await runPapo(['new', '--name', 'agent', '--signal', signal], {
  env: env(homes.agent),
});
const invite = /^ {2}(papo1[a-z2-7]+)$/m.exec(made.stdout)?.[1] as string;
await runPapo(['join', invite, '--name', 'person'], { env: env(homes.person) });

const agent = new McpStdioClient(process.execPath, [PAPO, 'mcp'], {
  env: env(homes.agent),
  cwd: homes.agent,
});
let agentErr = '';
agent.child.stderr.setEncoding('utf8').on('data', (c: string) => {
  agentErr += c;
});
await agent.initialize();
await agent.callTool('status');

console.log(
  `relay stress: ${says} says, ${parallel} in parallel, user-quota ${userQuota ?? 'none'}, ${new Date().toISOString()}`,
);
const started = Date.now();
let next = 0;
let delivered = 0;
let failed = 0;
let sayFreezes = 0;
const failures: string[] = [];
await Promise.all(
  Array.from({ length: parallel }, async () => {
    while (next < says) {
      const i = ++next;
      const r = await runPapo(['say', `stress ${i}`], {
        env: env(homes.person),
        timeoutMs: 120_000,
      });
      sayFreezes += (r.stderr.match(FROZEN) ?? []).length;
      if (r.code === 0) delivered += 1;
      else {
        failed += 1;
        failures.push(`say ${i}: ${r.stderr.trim().split('\n').at(-1)}`);
      }
      if (i % 100 === 0) console.log(`${i}/${says} in ${Math.round((Date.now() - started) / 1000)} s`);
    }
  }),
);
const agentFreezes = (agentErr.match(FROZEN) ?? []).length;
const status = await agent.callTool('status');
await new Promise((r) => setTimeout(r, 5000));
const after5s = turn.relaySockets();
// The agent sweeps allocations no link claims every 10 s (ADR 0058).
await new Promise((r) => setTimeout(r, 20_000));
const report = {
  says,
  delivered,
  failed,
  transportFreezesRecovered: { agent: agentFreezes, says: sayFreezes },
  // Each says what /proc showed of the frozen main thread (sleeping: a lock, as in the deadlock).
  agentFreezeLines: agentErr.split('\n').filter((l) => FROZEN_LINE.test(l)),
  agentRestartsLine: JSON.stringify(status).match(/Network process: [^"\\]*/)?.[0] ?? 'none',
  relaySocketsAfterLastSay: { after5s, after25s: turn.relaySockets(), liveLinks: 0 },
  seconds: Math.round((Date.now() - started) / 1000),
  failures: failures.slice(0, 10),
};
console.log(JSON.stringify(report, null, 2));
await agent.close();
await turn.close();
rmSync(root, { recursive: true, force: true });
process.exit(failed === 0 ? 0 : 1);
