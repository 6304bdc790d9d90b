// The IPC choices for the transport process (ADR 0057), measured (not a test): the round trip of
// a 300-byte frame between a parent and a forked child, 5,000 times each, through Node's IPC
// channel with JSON serialization (the frame as base64, papo's choice), with "advanced"
// serialization (the frame as a Uint8Array), and through a socketpair on an extra stdio fd with
// the bytes as they are (the framing a real use would need is left out: a lower bound).
// Usage: npm run build && node dist/bench/ipc.js [rounds=5000]
import { fork } from 'node:child_process';
import type { Socket } from 'node:net';

const N = Number(process.argv[2] ?? 5000);

if (process.argv[2] === 'child') {
  // The echoing end.
  if (process.argv[3] === 'pipe') {
    const { Socket: NetSocket } = await import('node:net');
    const s = new NetSocket({ fd: 3, readable: true, writable: true });
    s.on('data', (d) => s.write(d));
    s.on('error', () => process.exit(0));
    s.on('close', () => process.exit(0));
  } else {
    process.on('message', (m) => process.send?.(m));
    process.on('disconnect', () => process.exit(0));
  }
} else {
  const self = new URL(import.meta.url).pathname;
  const pct = (a: number[], p: number) => {
    const s = [...a].sort((x, y) => x - y);
    return (s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0).toFixed(3);
  };
  const frame = new Uint8Array(300).fill(7);
  const run = async (label: string, serialization: 'json' | 'advanced' | 'pipe') => {
    const pipe = serialization === 'pipe';
    const child = fork(self, ['child', pipe ? 'pipe' : 'ipc'], {
      execArgv: [],
      serialization: pipe ? 'json' : serialization,
      stdio: pipe ? ['ignore', 'inherit', 'inherit', 'pipe', 'ipc'] : ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const times: number[] = [];
    const stream = pipe ? (child.stdio[3] as Socket) : undefined;
    for (let i = 0; i < N; i++) {
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        if (stream) {
          stream.once('data', () => resolve());
          stream.write(frame);
        } else {
          child.once('message', () => resolve());
          child.send(
            serialization === 'json'
              ? { t: 'send', peer: 'p', data: Buffer.from(frame).toString('base64') }
              : { t: 'send', peer: 'p', data: frame },
          );
        }
      });
      times.push(performance.now() - t0);
    }
    console.log(`${label.padEnd(38)} round trip p50 ${pct(times, 0.5)} ms, p99 ${pct(times, 0.99)} ms`);
    stream?.destroy();
    child.kill();
  };
  console.log(
    `IPC round trip of a 300-byte frame, ${N} times — ${new Date().toISOString()}, node ${process.version}`,
  );
  for (let round = 0; round < 2; round++) {
    await run('fork IPC, JSON + base64 (papo)', 'json');
    await run('fork IPC, advanced serialization', 'advanced');
    await run('socketpair on stdio fd 3, raw bytes', 'pipe');
  }
  process.exit(0);
}
