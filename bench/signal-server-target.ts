// One server under test in its own process, so its memory is measured alone. Started by
// bench/signal-server.ts; prints `port <n>` then answers `mem` and `cpu` lines on stdin with a JSON
// line each.
// Usage: node --expose-gc dist/bench/signal-server-target.js papo|peerjs [peer package folder]
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { startSignalServer } from '../src/signal-server/server.js';

const [kind, peerDir] = process.argv.slice(2);

async function start(): Promise<number> {
  if (kind === 'papo') {
    const s = await startSignalServer({
      host: '127.0.0.1',
      port: 0,
      env: {
        // The benchmark measures the forwarding path, so the per-socket limits are lifted.
        PAPO_SIGNAL_RATE: '1000000',
        PAPO_SIGNAL_BURST: '1000000',
        PAPO_SIGNAL_MAX_CONNECTIONS: '100000',
        PAPO_SIGNAL_MAX_CONNECTIONS_PER_IP: '100000',
        PAPO_SIGNAL_MAX_PEERS_PER_TOPIC: '1000',
      },
    });
    return s.port;
  }
  if (kind === 'peerjs' && peerDir !== undefined) {
    const entry = pathToFileURL(`${peerDir}/node_modules/peer/dist/module.mjs`).href;
    const { PeerServer } = (await import(entry)) as {
      PeerServer: (o: object, cb: (server: { address(): { port: number } }) => void) => unknown;
    };
    return new Promise((resolve) => {
      PeerServer(
        { port: 0, host: '127.0.0.1', concurrent_limit: 100_000, alive_timeout: 600_000 },
        (server) => resolve(server.address().port),
      );
    });
  }
  throw new Error('usage: signal-server-target papo|peerjs [peer folder]');
}

const port = await start();
process.stdout.write(`port ${port}\n`);
const gc = (globalThis as { gc?: () => void }).gc;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'cpu') {
    // CPU time this process has used, in microseconds: per signal, it is a measure that a machine
    // shared with other jobs disturbs far less than a rate.
    const c = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpuMicros: c.user + c.system })}\n`);
    return;
  }
  if (line !== 'mem') return;
  gc?.();
  setTimeout(() => {
    gc?.();
    const m = process.memoryUsage();
    process.stdout.write(`${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed })}\n`);
  }, 300);
});
process.stdin.on('end', () => process.exit(0));
