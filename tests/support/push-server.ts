// papo's MCP server in process, on streams of the test's own, over an in-memory member, for the
// push-route and push-door tests of tests/mcp/: the environment and ancestors a client would give
// papo are the test's, and so may be the doors. What it wrote on stderr is kept, and the channel
// events it wrote are listed.
import { PassThrough } from 'node:stream';
import type { TestContext } from 'node:test';
import type { Ancestor, Door } from '../../src/mcp/push-contract.js';
import { startMcpServer } from '../../src/mcp/server.js';
import { MemoryMember } from './memory-member.js';
import { RpcClient } from './rpc-client.js';

/**
 * The server with `env`, papo's ancestors (command lines, nearest first, or whole Ancestor rows)
 * and, when given, its doors; stopped after `t`.
 */
export function servePush(
  t: TestContext,
  env: NodeJS.ProcessEnv,
  ancestors: string[][] | Ancestor[] = [],
  doors?: readonly Door[],
): { member: MemoryMember; client: RpcClient; stderr: () => string } {
  const member = new MemoryMember();
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let errText = '';
  stderr.on('data', (c) => {
    errText += String(c);
  });
  const rows = ancestors.map((a, i) => (Array.isArray(a) ? { pid: 1000 + i, args: a } : a));
  const server = startMcpServer({
    profile: 'default',
    serverVersion: 'test',
    openMember: async () => member,
    describe: () => ({ name: member.name, roomId: member.roomId }),
    stdin,
    stdout,
    stderr,
    env,
    ancestors: () => rows,
    ...(doors !== undefined && { doors }),
  });
  const client = new RpcClient(stdin, stdout);
  t.after(async () => {
    await server.shutdown(50);
    stdin.end();
  });
  return { member, client, stderr: () => errText };
}

/** The msg_ids of the channel events the server wrote, in order. */
export const channelPushes = (client: RpcClient): string[] =>
  client.messages.filter((m) => m.method === 'notifications/claude/channel').map((m) => m.params.meta.msg_id);
