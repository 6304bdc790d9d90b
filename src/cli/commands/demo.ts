// papo demo: "see it work" on this machine with nothing else installed. Two real `papo mcp`
// servers, in two temporary homes and two project folders named as in the tutorial (payments-api,
// notifications; docs/mcp.md, "`papo demo`"), join one room whose signal URL is on loopback (so the first
// server hosts the embedded signal server), and are driven over stdio exactly as Claude Code
// drives them — initialize, notifications/initialized, tools/call — through the tutorial's
// exchange: the webhook proposal, the reply with reply_to, the closing summary. The agents' words
// are scripted; everything else (WebRTC, delivery, acks, pushes, the log) is the real thing.
//
// This file stays light: main.ts loads every command's module for any line but `papo mcp`, `say`,
// `status` and `web`, so the demo's modules are imported only when `demo` runs.
import type { Command } from 'commander';
import { messageOf } from '../../client/errors.js';
import type { CliContext } from '../context.js';
import type { RpcNotification, McpStdioClient as StdioClient, ToolResult } from '../stdio-client.js';

interface DemoOptions {
  keep?: boolean;
}

/** How long one step may take before the demo gives up (WebRTC on a loaded machine is slow). */
const STEP_TIMEOUT_MS = 30_000;

const PROPOSAL = `Hi, this is the payments-api agent. We are going to fire the payment.confirmed webhook to notifications. Proposal:
- POST to the URL you expose, Content-Type application/json
- payload: {"event":"payment.confirmed","payment_id":"pay_...","order_id":"ord_...","amount_cents":12990,"currency":"BRL","confirmed_at":"2026-10-02T14:00:00Z"}
- HMAC-SHA256 signature of the body in the X-Signature header, shared secret from an environment variable
- retry with exponential backoff for up to 24h while the response is not 2xx
Questions: what is the URL? Is your consumer idempotent by payment_id?`;

const REPLY = `Hi, notifications agent here.
- URL: POST /internal/webhooks/payments. The route already exists in src/routes/webhooks.ts, but it expects "type" instead of "event". I would keep "type", like the other webhooks we receive.
- Idempotency: yes, we keep the event id for 7 days, but keyed by event_id, not payment_id. Can you send a unique event_id (uuid v4)?
- HMAC is fine. Our verifier reads the X-Signature-256 header in the format "sha256=<hex>", like GitHub's.
- Retry is fine. We answer 202 as soon as the event is queued.`;

const SUMMARY = `Agreed. Final contract:
POST /internal/webhooks/payments
Headers: Content-Type: application/json, X-Signature-256: sha256=<HMAC of the body>
Body: {"type":"payment.confirmed","event_id":"<uuid v4>","payment_id":"pay_...","order_id":"ord_...","amount_cents":12990,"currency":"BRL","confirmed_at":"<RFC 3339 UTC>"}
Success: any 2xx (you return 202). Retry: exponential backoff for up to 24h.
Our side: fire it from src/webhooks/payment_confirmed.ts. Your side: read "type" and event_id in the parser.`;

export function register(program: Command, ctx: CliContext): void {
  program
    .command('demo')
    .description('watch two real papo MCP servers (two agents) agree on a webhook, on this machine only')
    .option('--keep', 'keep the temporary homes afterwards, to look at them with papo log')
    .action(async (opts: DemoOptions) => {
      await runDemo(ctx, opts.keep === true);
    });
}

/** One agent: its project, its home, and the stdio client speaking to its `papo mcp`. */
interface Agent {
  label: string;
  name: string;
  home: string;
  project: string;
  client: StdioClient;
  stderr: string[];
}

async function runDemo(ctx: CliContext, keep: boolean): Promise<void> {
  const [{ mkdirSync, mkdtempSync, rmSync }, { tmpdir }, { join }, { freePort }] = await Promise.all([
    import('node:fs'),
    import('node:os'),
    import('node:path'),
    import('../free-port.js'),
  ]);
  const [{ createProfile }, { deriveRoomKeys, generateSecret }, { McpStdioClient, toolText }] =
    await Promise.all([
      import('../../client/store/profile-store.js'),
      import('../../client/wire/room-crypto.js'),
      import('../stdio-client.js'),
    ]);

  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), 'papo-demo-'));
  const agents: Agent[] = [];
  let cleaning: Promise<void> | undefined;
  let interrupted = false;
  // After Ctrl-C the steps still in flight fail; they print nothing more.
  const out = (line = '') => {
    if (!interrupted) process.stdout.write(`${line}\n`);
  };

  // Stops both servers (stdin EOF, SIGKILL after 3 s), then removes the temporary folder.
  const cleanup = () => {
    cleaning ??= (async () => {
      await Promise.all(agents.map((a) => a.client.close().catch(() => null)));
      if (!keep) rmSync(root, { recursive: true, force: true });
    })();
    return cleaning;
  };
  // Ctrl-C: the children are in our process group and get the signal too; stop them, clean up.
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    process.stderr.write(`\npapo demo: interrupted; stopping the two servers and removing ${root}\n`);
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const port = await freePort();
    const signalUrl = `ws://127.0.0.1:${port}`;
    const secret = generateSecret();
    const { roomId } = deriveRoomKeys(secret);

    const make = async (label: string, name: string): Promise<Agent> => {
      const home = join(root, name, '.papo');
      const project = join(root, name, 'code', label);
      mkdirSync(project, { recursive: true });
      await createProfile({ home, profile: 'default', name, secret, signalUrl, force: false });
      const env: NodeJS.ProcessEnv = {};
      // The user's papo settings are not the demo's: a clean environment with this home.
      for (const [k, v] of Object.entries(ctx.env)) if (!k.startsWith('PAPO_')) env[k] = v;
      env.PAPO_HOME = home;
      if (ctx.env.PAPO_LOG) env.PAPO_LOG = ctx.env.PAPO_LOG;
      const client = new McpStdioClient(process.execPath, [process.argv[1] as string, 'mcp'], {
        env,
        cwd: project,
      });
      const agent: Agent = { label, name, home, project, client, stderr: [] };
      client.child.stderr.setEncoding('utf8');
      client.child.stderr.on('data', (chunk: string) => {
        agent.stderr.push(...chunk.split('\n').filter((l) => l !== ''));
        agent.stderr.splice(0, Math.max(0, agent.stderr.length - 20));
        if (ctx.env.PAPO_LOG) process.stderr.write(prefixLines(`[${label}] `, chunk));
      });
      agents.push(agent);
      return agent;
    };

    out('papo demo: two agents, each with its own `papo mcp`, agree on a webhook contract.');
    out('The agents’ words are scripted; the servers, WebRTC, delivery and acks are real.');
    out();
    const pay = await make('payments-api', 'alice');
    const notif = await make('notifications', 'bob');
    out(`  alice  ${pay.project}`);
    out(`  bob    ${notif.project}`);
    out(`  room ${roomId}, signal server ${signalUrl} (hosted by the first papo mcp to start)`);
    out();

    const say = (agent: Agent, line: string) => out(`${`[${agent.label}]`.padEnd(16)}${line}`);
    const answer = (text: string) => out(`${' '.repeat(16)}-> ${firstLine(text)}`);
    const step = <T>(what: string, promise: Promise<T>) =>
      withTimeout(promise, STEP_TIMEOUT_MS, what, agents);
    const call = async (agent: Agent, tool: string, args: Record<string, unknown> = {}): Promise<string> => {
      const result: ToolResult = await step(`${agent.label}: ${tool}`, agent.client.callTool(tool, args));
      const text = toolText(result);
      if (result.isError === true) throw new Error(`${agent.label}: ${tool} failed: ${text}`);
      return text;
    };
    const push = async (agent: Agent, msgId: string): Promise<RpcNotification> => {
      const n = await step(`${agent.label}: the channel push of ${msgId}`, waitForPush(agent.client, msgId));
      const meta = (n.params?.meta ?? {}) as Record<string, string>;
      const reply = meta.reply_to === undefined ? '' : `, reply_to ${meta.reply_to}`;
      say(
        agent,
        `<- channel push from ${meta.from} (msg_id ${meta.msg_id}, sender_kind ${meta.sender_kind}${reply})`,
      );
      return n;
    };

    // 1. Claude Code opens both sessions.
    for (const agent of [pay, notif]) {
      const init = (await step(`${agent.label}: initialize`, agent.client.initialize())) as {
        protocolVersion: string;
        serverInfo: { name: string; version: string };
        capabilities: { experimental?: Record<string, unknown> };
      };
      const channel =
        init.capabilities.experimental?.['claude/channel'] !== undefined ? ', channel push on' : '';
      say(
        agent,
        `initialize -> ${init.serverInfo.name} ${init.serverInfo.version}, protocol ${init.protocolVersion}${channel}`,
      );
    }

    // 2. Wait until each sees the other online (the member opens after initialize, then WebRTC).
    const progress = startProgress('Waiting for the two agents to connect over WebRTC');
    let link = '';
    try {
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      for (;;) {
        const [a, b] = [await call(pay, 'status'), await call(notif, 'status')];
        const mine = /^- bob \(agent\): online.*link: (\w[\w ]*)$/m.exec(a);
        if (mine && /^- alice \(agent\): online/m.test(b)) {
          link = mine[1] as string;
          break;
        }
        if (Date.now() > deadline)
          throw new Error(`the two agents did not connect within ${STEP_TIMEOUT_MS / 1000} s`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      progress.stop();
    }
    out(`Connected (link: ${link}).`);
    say(pay, 'status ->');
    for (const line of (await call(pay, 'status')).split('\n')) out(`${' '.repeat(18)}${line}`);
    out();

    // 3. The proposal.
    say(pay, `send: "${preview(PROPOSAL)}"`);
    const sent = await call(pay, 'send', { message: PROPOSAL });
    answer(sent);
    const proposalId = msgId(sent, 'Delivered to bob');
    await push(notif, proposalId);

    // 4. The reply, tied to the proposal with reply_to.
    say(notif, `send reply_to=${proposalId}: "${preview(REPLY)}"`);
    const replied = await call(notif, 'send', { message: REPLY, reply_to: proposalId });
    answer(replied);
    const replyId = msgId(replied, 'Delivered to alice');
    await push(pay, replyId);
    say(pay, 'wait (it needs the answer to go on)');
    const waited = await call(pay, 'wait', { timeout_seconds: 30 });
    answer(waited.split('\n').find((l) => l.startsWith('[msg_id=')) ?? waited);

    // 5. The closing summary, with the final contract.
    say(pay, `send reply_to=${replyId}: "${preview(SUMMARY)}"`);
    const closing = await call(pay, 'send', { message: SUMMARY, reply_to: replyId });
    answer(closing);
    const summaryId = msgId(closing, 'Delivered to bob');
    await push(notif, summaryId);
    say(notif, 'inbox');
    const inbox = await call(notif, 'inbox');
    const count = inbox.split('\n').filter((l) => l.startsWith('[msg_id=')).length;
    answer(`${count} unread message${count === 1 ? '' : 's'} returned and marked read`);
    say(notif, 'status');
    answer((await call(notif, 'status')).split('\n').pop() ?? '');
    out();

    // 6. The conversation: the history tool returns the lines `papo log` prints (formatLogEntry),
    // after a first line that tells the model which of them others wrote.
    out('The conversation, as `papo log` prints it on the payments-api side:');
    out();
    const history = (await call(pay, 'history', { limit: 20 })).split('\n');
    if (!history[0]?.startsWith('[')) history.shift();
    for (const line of history) out(line);
    out();

    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    out(`Done in ${seconds} s: 3 messages sent, each delivered and acknowledged.`);
    if (keep) {
      out('The homes are kept. To look at them:');
      out(`  PAPO_HOME=${pay.home} papo log`);
      out(`  PAPO_HOME=${notif.home} papo log`);
      out(`Remove them with: rm -rf ${root}`);
    }
  } catch (err) {
    if (interrupted) return;
    // A failure says what went wrong, then what the servers said about it.
    const details = agents
      .filter((a) => a.stderr.length > 0)
      .map((a) => `\n[${a.label} stderr]\n${a.stderr.join('\n')}`)
      .join('');
    throw new Error(`papo demo failed: ${messageOf(err)}${details}`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
}

function waitForPush(client: StdioClient, msgId: string): Promise<RpcNotification> {
  const matches = (n: RpcNotification) =>
    n.method === 'notifications/claude/channel' &&
    (n.params?.meta as { msg_id?: string } | undefined)?.msg_id === msgId;
  const seen = client.notifications.find(matches);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const on = (n: RpcNotification) => {
      if (!matches(n)) return;
      client.off('notification', on);
      resolve(n);
    };
    client.on('notification', on);
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string, agents: Agent[]): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const exited = agents.find((a) => a.client.child.exitCode !== null);
  if (exited)
    return Promise.reject(
      new Error(`the ${exited.label} server exited (status ${exited.client.child.exitCode})`),
    );
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A line that shows people the demo is alive while they wait: a counter on a terminal. */
function startProgress(what: string): { stop(): void } {
  const started = Date.now();
  if (!process.stdout.isTTY) {
    process.stdout.write(`${what}...\n`);
    return { stop() {} };
  }
  const draw = () => process.stdout.write(`\r${what}... ${((Date.now() - started) / 1000).toFixed(1)} s`);
  draw();
  const timer = setInterval(draw, 100);
  return {
    stop() {
      clearInterval(timer);
      process.stdout.write('\r\u001b[2K');
    },
  };
}

function msgId(text: string, expected: string): string {
  const id = /\(msg_id ([0-9a-f]{10})\)/.exec(text)?.[1];
  if (!text.startsWith(expected) || id === undefined)
    throw new Error(`expected "${expected} ...", got: ${text}`);
  return id;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

function preview(text: string): string {
  const line = firstLine(text);
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

function prefixLines(prefix: string, chunk: string): string {
  return chunk
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => `${prefix}${l}\n`)
    .join('');
}
