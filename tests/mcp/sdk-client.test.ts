// A real MCP client that nobody here wrote: the official TypeScript SDK connects to `papo mcp`
// over stdio, initializes, lists the tools and calls one.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makeTempDir } from '../support/files.js';
import { PAPO_BIN } from '../support/papo.js';

test('the official SDK client connects, lists the five tools and gets a tool error', async (t) => {
  const home = makeTempDir();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PAPO_BIN, 'mcp'],
    env: { PATH: process.env.PATH ?? '', PAPO_HOME: home },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sdk-test', version: '0' });
  t.after(async () => {
    await client.close();
    rmSync(home, { recursive: true, force: true });
  });
  await client.connect(transport);
  assert.equal(client.getServerVersion()?.name, 'papo');
  assert.deepEqual(client.getServerCapabilities()?.experimental, { 'claude/channel': {} });
  assert.match(client.getInstructions() ?? '', /papo/);
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((x) => x.name),
    ['send', 'wait', 'inbox', 'history', 'status'],
  );
  const result = await client.callTool({ name: 'status', arguments: {} });
  assert.equal(result.isError, true);
  assert.match(JSON.stringify(result.content), /is not configured/);
});
