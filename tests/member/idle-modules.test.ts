// What a linked papo mcp holds while idle (issue 28): the parent loads no module it does not use
// (the signal server only when it hosts it, never Redis, the doctor's or install's code) and its
// transport process loads the network and the wire, nothing of the store, the room or the MCP
// layer. Read from the modules each real process loaded (tests/support/module-log.ts), in a room
// on loopback whose local signal server the other member hosts; the transport process loads one
// file of papo's (ADR 0110), whose contents are read from its source map.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../support/files.js';
import { loadedModules, moduleLogEnv } from '../support/module-log.js';
import { makeRoom, startAgent, statusUntil } from '../support/room.js';

test('a linked papo mcp loads neither the signal server someone else hosts, nor doctor, install or commander; its transport process nothing of the store, room or MCP', {
  timeout: 90_000,
}, async (t) => {
  const room = await makeRoom(t);
  const host = startAgent(room, room.members.voce);
  await host.client.initialize();
  await statusUntil(host.client, /voce/);
  const dir = makeTempDir('papo-modules-');
  t.after(() => import('node:fs').then((fs) => fs.rmSync(dir, { recursive: true, force: true })));
  const colega = startAgent(room, room.members.colega, moduleLogEnv(dir));
  await colega.client.initialize();
  await statusUntil(colega.client, /voce \([a-z]+\): online/);

  const processes = [...loadedModules(dir).values()];
  const parent = processes.find((m) => m.some((u) => u.endsWith('/src/cli/main.js')));
  const transport = processes.find((m) => m.some((u) => u.endsWith('/transport/transport-child.bundle.js')));
  assert.ok(parent, 'the parent wrote its modules');
  assert.ok(transport, 'the transport process wrote its modules');
  // The list is real: each loaded what it works with.
  assert.ok(parent.some((u) => u.endsWith('/room/room-node.js')));
  assert.ok(transport.some((u) => u.includes('/node-datachannel/')));

  const loaded = (modules: string[], pattern: RegExp) => modules.filter((u) => pattern.test(u));
  assert.deepEqual(
    loaded(parent, /\/src\/signal-server\/|\/ioredis\/|\/hono\/|\/cli\/install\/|\/doctor/),
    [],
  );
  // Started as agent CLIs start it, papo mcp goes to the server without commander or the CLI's
  // texts (src/cli/mcp-args.ts).
  assert.deepEqual(loaded(parent, /\/commander\/|\/cli\/i18n\.js|\/cli\/context\.js|\/cli\/commands\//), []);
  assert.deepEqual(loaded(transport, /\/client\/store\/|\/client\/room\/|\/src\/mcp\/|\/src\/cli\//), []);
  // Of papo's files, the transport process loads its bundle alone; what the bundle holds is the
  // network and the wire, read from its source map (the sources it was made of).
  assert.deepEqual(
    transport.filter((u) => u.includes('/dist/src/')).map((u) => u.slice(u.indexOf('/dist/src/'))),
    ['/dist/src/client/transport/transport-child.bundle.js'],
  );
  const bundle = transport.find((u) => u.endsWith('/transport-child.bundle.js')) as string;
  const { sources } = JSON.parse(readFileSync(`${fileURLToPath(bundle)}.map`, 'utf8')) as {
    sources: string[];
  };
  assert.ok(
    sources.some((s) => s.endsWith('/src/client/net/mesh.ts')),
    'the map lists the sources',
  );
  assert.deepEqual(
    sources.filter((s) =>
      /\/client\/store\/|\/client\/room\/|\/src\/mcp\/|\/src\/cli\/|\/src\/signal-server\//.test(s),
    ),
    [],
  );
});
