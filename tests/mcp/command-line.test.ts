// `papo mcp` from the lines agent CLIs start it with goes straight to the server, without commander
// (issue 28, src/cli/mcp-args.ts); the real binary shows that both ways in serve the same profile
// and that every other line still gets commander's answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeTempDir } from '../support/files.js';
import { cleanEnv, runPapo } from '../support/papo.js';

const INIT = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } })}\n`;

async function instructionsOf(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const r = await runPapo(args, { env, input: INIT });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '', 'a clean stop prints nothing');
  return JSON.parse(r.stdout.split('\n')[0] as string).result.instructions;
}

// The answers below are those the commander path gave: this test passed on the tree before ADR 0107.
test('papo mcp serves the profile of --profile (either side, = form) or PAPO_PROFILE', async (t) => {
  const home = makeTempDir('papo-mcp-args-');
  t.after(() => import('node:fs').then((fs) => fs.rmSync(home, { recursive: true, force: true })));
  const env = cleanEnv({ PAPO_HOME: home });
  const named = (p: string) => new RegExp(`The papo profile '${p}' is not configured`);
  assert.match(await instructionsOf(['mcp'], env), named('default'));
  assert.match(await instructionsOf(['mcp', '--profile', 'work'], env), named('work'));
  assert.match(await instructionsOf(['--profile=work', 'mcp', '--about', 'api'], env), named('work'));
  assert.match(await instructionsOf(['mcp'], { ...env, PAPO_PROFILE: 'other' }), named('other'));
  assert.match(await instructionsOf(['mcp', '--profile', 'a', '--profile', 'b'], env), named('b'));
});

test('other papo mcp lines get commander’s answers', async (t) => {
  const home = makeTempDir('papo-mcp-args-');
  t.after(() => import('node:fs').then((fs) => fs.rmSync(home, { recursive: true, force: true })));
  const env = cleanEnv({ PAPO_HOME: home });
  const help = await runPapo(['mcp', '--help'], { env });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: papo mcp \[options\]/);
  const unknown = await runPapo(['mcp', '--nope'], { env, input: INIT });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /unknown option '--nope'/);
  assert.equal(unknown.stdout, '');
  const missing = await runPapo(['mcp', '--about'], { env, input: INIT });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /option '--about <text>' argument missing/);
  // After --about, commander reads the program's options: the version, not a server.
  const version = await runPapo(['mcp', '--about', '-V'], { env, input: INIT });
  assert.equal(version.code, 0);
  assert.equal(
    version.stdout,
    `papo 0.1.0 on Node.js ${process.version} (${process.platform} ${process.arch})\n`,
  );
  const noProfile = await runPapo(['mcp', '--about', '--profile'], { env, input: INIT });
  assert.equal(noProfile.code, 1);
  assert.match(noProfile.stderr, /option '--profile <profile>' argument missing/);
});
