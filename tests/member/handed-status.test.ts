// `papo status` asking the profile's running `papo mcp` over member.sock (ADR 0103), with real
// processes: the built papo binary, a real signal server, real `papo mcp` members over real links.
// The same lines as its own look, the socket's contract for kinds it does not know (both ways: a
// member older than "status", an answer the CLI does not know), and a papo mcp killed while it
// holds the request: each time the CLI looks itself, as before.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { memberEnv, runPapo } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import type { ChildRun } from '../support/run-child.js';
import { waitFor } from '../support/wait.js';
import { signalServer, startMcp, waitOnline } from './helpers.js';

function papo(args: string[], home: string): Promise<ChildRun> {
  return runPapo(args, { env: { ...memberEnv(), PAPO_HOME: home }, timeoutMs: 90_000 });
}

const ANA_LINE = /^ {2}Ana \[[0-9a-f]{10}\] (online|offline) — your agent/m;
const BIA_LINE = /^ {2}Bia \[[0-9a-f]{10}\] online — tests \((direct|relay)\)$/m;

/** Ana's and Bia's `papo mcp` on a signal server of their own, Bia online for Ana. */
async function linkedAgents(t: Parameters<typeof signalServer>[0]) {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  const ana = await startMcp(t, room.members.Ana.home);
  const bia = await startMcp(t, room.members.Bia.home);
  await waitOnline(ana, 'Bia');
  await waitOnline(bia, 'Ana');
  return { room, ana, bia, socket: join(room.members.Ana.profile.dir, 'member.sock') };
}

/** One line to a Unix socket and the line it answers. */
function askLine(path: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const s = connect(path, () => s.write(`${line}\n`));
    s.setEncoding('utf8');
    s.on('data', (d: string) => {
      got += d;
    });
    s.on('end', () => resolve(got));
    s.on('error', reject);
  });
}

test('papo status asked the running papo mcp prints the lines its own look prints, the path of every other member included', {
  timeout: 120_000,
}, async (t) => {
  const { ana, socket } = await linkedAgents(t);
  const home = ana.home;
  const asked = await papo(['status', '--timeout', '10'], home);
  assert.equal(asked.code, 0, asked.stderr);
  assert.match(ana.stderr(), /papo status: answered/);
  assert.match(asked.stdout, BIA_LINE);
  // The agent has no link to itself: its own line carries no path.
  assert.match(asked.stdout, /^ {2}Ana \[[0-9a-f]{10}\] online — your agent$/m);
  // Its socket gone (the agent runs on, unreachable): the CLI looks itself, as before.
  rmSync(socket);
  const itself = await papo(['status', '--timeout', '10'], home);
  assert.equal(itself.code, 0, itself.stderr);
  assert.match(itself.stdout, /^ {2}Ana \[[0-9a-f]{10}\] online — your agent \((direct|relay)\)$/m);
  // Line for line the same, but for the path of this run's own link to the agent, and the push
  // route that only the running papo mcp knows (ADR 0118): under no agent client, none.
  const withoutOwnPath = itself.stdout.replace(/( — your agent) \((direct|relay)\)$/m, '$1');
  const push =
    /^Push into your agent: none; it reads room messages when it calls wait or inbox \(its client gave papo no door: .*\)\.\n/m;
  assert.match(asked.stdout, push);
  assert.equal(asked.stdout.replace(push, ''), withoutOwnPath);
  assert.equal(asked.stderr, itself.stderr);
});

test('member.sock answers a kind it does not know with "unknown request", and a status with its view', {
  timeout: 120_000,
}, async (t) => {
  const { room, socket } = await linkedAgents(t);
  assert.deepEqual(JSON.parse(await askLine(socket, '{"hello":{}}')), { error: 'unknown request' });
  assert.deepEqual(JSON.parse(await askLine(socket, 'not json')), { error: 'not a request' });
  const view = JSON.parse(await askLine(socket, '{"status":{"waitMs":0}}')) as {
    status: { name: string; node: string; members: { name: string; online: boolean }[] };
  };
  assert.equal(view.status.name, 'Ana');
  assert.equal(view.status.node, room.members.Ana.profile.identity.nodeId);
  assert.deepEqual(
    view.status.members.map((m) => [m.name, m.online]),
    [
      ['Ana', true],
      ['Bia', true],
    ],
  );
});

test('papo status beside a papo mcp older than "status", or one whose answer it does not know, looks itself', {
  timeout: 120_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  await startMcp(t, room.members.Bia.home);
  // Bia on the topic before Ana's status looks (a status that finds nobody known stops at once):
  // asked through Bia's own member.sock.
  const biaSocket = join(room.members.Bia.profile.dir, 'member.sock');
  await waitFor('Bia on the signal topic', async () => {
    try {
      const view = JSON.parse(await askLine(biaSocket, '{"status":{"waitMs":0}}')) as {
        status?: { signal?: { joined?: boolean } };
      };
      return view.status?.signal?.joined === true || undefined;
    } catch {
      return undefined; // not listening yet
    }
  });
  // In place of Ana's papo mcp, a socket answering as a member older than ADR 0103 does, then
  // an answer of a shape the CLI does not know.
  const heard: string[] = [];
  const answers = ['{"error":"not a say"}', '{"status":{"members":"all"}}'];
  const fake = createServer((s) => {
    s.setEncoding('utf8');
    s.once('data', (line: string) => {
      heard.push(line.trim());
      s.end(`${answers[heard.length - 1] ?? ''}\n`);
    });
  });
  const path = join(room.members.Ana.profile.dir, 'member.sock');
  await new Promise<void>((resolve) => fake.listen(path, resolve));
  t.after(() => new Promise<void>((resolve) => fake.close(() => resolve())));
  for (let i = 0; i < answers.length; i++) {
    const status = await papo(['status', '--timeout', '10'], room.members.Ana.home);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, BIA_LINE);
    assert.doesNotMatch(status.stdout, ANA_LINE, 'no agent of Ana runs: this run knows it only as a name');
  }
  assert.deepEqual(heard, ['{"status":{"waitMs":10000}}', '{"status":{"waitMs":10000}}']);
});

test('the running papo mcp killed while it holds a papo status: the CLI looks itself', {
  timeout: 120_000,
}, async (t) => {
  const { ana, socket } = await linkedAgents(t);
  const home = ana.home;
  // Frozen, Ana's papo mcp accepts nothing: the request waits in the socket's queue.
  process.kill(ana.pid, 'SIGSTOP');
  let stopped = true;
  t.after(() => {
    if (stopped) process.kill(ana.pid, 'SIGCONT');
  });
  const running = papo(['status', '--timeout', '10'], home);
  await waitFor('papo status connected to member.sock', () => {
    // ss: a listening Unix socket's Recv-Q is its queue of connections not yet accepted.
    const line = execFileSync('ss', ['-xlH', 'src', socket], { encoding: 'utf8' }).trim();
    return Number(line.split(/\s+/)[2] ?? 0) > 0;
  });
  await ana.kill();
  stopped = false;
  const status = await running;
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, BIA_LINE);
  // This run's own look: the agent it was asking is gone, and not listed online.
  assert.doesNotMatch(status.stdout, /^ {2}Ana \[[0-9a-f]{10}\] online/m);
});

test("papo status and papo doctor name the running session's push route (ADR 0118): Claude Code's session messages, and pull only once they failed", {
  timeout: 120_000,
}, async (t) => {
  const server = await signalServer(t);
  const room = await makeRoom(t, { names: ['Ana', 'Bia'], signalUrl: server.url, make: 'store' });
  // Where Claude Code's messaging socket would be: a socket that takes what papo writes.
  const dir = mkdtempSync(join(tmpdir(), 'papo-inbox-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const inbox = join(dir, 'inbox.sock');
  const written: string[] = [];
  const sink = createServer((s) => {
    s.setEncoding('utf8');
    s.on('data', (d: string) => written.push(d));
    s.on('end', () => s.end());
  });
  await new Promise<void>((resolve) => sink.listen(inbox, resolve));
  t.after(() => new Promise<void>((resolve) => sink.close(() => resolve())));
  const ana = await startMcp(t, room.members.Ana.home, {
    ...memberEnv(),
    CLAUDE_CODE_MESSAGING_SOCKET: inbox,
    CLAUDE_CODE_MESSAGING_TOKEN: 'not-a-real-token',
  });
  const bia = await startMcp(t, room.members.Bia.home);
  await waitOnline(ana, 'Bia');
  const home = room.members.Ana.home;
  const status = await papo(['status', '--timeout', '10'], home);
  assert.equal(status.code, 0, status.stderr);
  assert.match(
    status.stdout,
    /^Push into your agent: Claude Code's session messages \(no channels flag\): room messages reach it without it calling wait\.$/m,
  );
  const doctor = await papo(['doctor', '--json'], home);
  const checks = JSON.parse(doctor.stdout).checks as {
    id: string;
    status: string;
    data: { route: string };
  }[];
  const pushNow = checks.find((c) => c.id === 'push-now');
  assert.deepEqual([pushNow?.status, pushNow?.data.route], ['ok', 'claude-session']);
  await bia.tool('send', { message: 'through the socket' });
  await waitFor('the push on the socket', () => written.join('').includes('through the socket'));
  // The socket gone, Bia's next message fails to go through it: pull only, and why.
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  rmSync(inbox, { force: true });
  await bia.tool('send', { message: 'after the socket went' });
  await waitFor('the route failed', () => /push through claude-session failed/.test(ana.stderr()));
  const after = await papo(['status', '--timeout', '10'], home);
  assert.match(
    after.stdout,
    /^Push into your agent: none; it reads room messages when it calls wait or inbox \(Claude Code's session messages \(no channels flag\): failed: Claude Code's messaging socket is gone \(ENOENT\)\)\.$/m,
  );
  const doctorAfter = JSON.parse((await papo(['doctor', '--json'], home)).stdout).checks as {
    id: string;
    status: string;
  }[];
  assert.equal(doctorAfter.find((c) => c.id === 'push-now')?.status, 'warn');
});
