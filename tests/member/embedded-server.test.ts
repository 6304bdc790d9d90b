// Which rooms host the local signal server (docs/architecture.md, "The local signal server"): a
// room on a plain ws:// loopback URL does, given the CLI's function; a wss:// one on this machine
// (a TLS proxy's port, down for a moment) and a room on another host never do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '../../src/cli/free-port.js';
import { type HostSignalServer, openMember } from '../../src/client/open-member.js';
import { startSignalServer } from '../../src/signal-server/server.js';
import { memberEnv } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
// For its side effect: node-datachannel's cleanup stays off in this process (helpers.ts says why).
import './helpers.js';

test('the local signal server is hosted for a ws:// loopback room only: not for wss:// on this machine, not for another host', {
  timeout: 60_000,
}, async (t) => {
  const port = await freePort();
  const asked: string[] = [];
  const host: HostSignalServer = (at) => {
    asked.push(`${at.host}:${at.port}`);
    return startSignalServer({ host: at.host, port: at.port, env: {} });
  };
  const open = async (url: string) => {
    const room = await makeRoom(t, { names: ['Ana'], signalUrl: url, make: 'store' });
    const opened = await openMember({
      home: room.members.Ana.home,
      profile: 'default',
      env: memberEnv(),
      mode: 'agent',
      hostSignalServer: host,
    });
    t.after(() => opened.member.close());
    return opened;
  };

  for (const url of [`wss://127.0.0.1:${port}`, `wss://localhost:${port}`, `ws://192.0.2.1:${port}`]) {
    const opened = await open(url);
    assert.equal(opened.probe.hostsSignalServer(), false, url);
    await opened.member.close();
  }
  assert.deepEqual(asked, [], 'nothing was hosted for those rooms');

  const local = await open(`ws://127.0.0.1:${port}`);
  assert.deepEqual(asked, [`127.0.0.1:${port}`]);
  assert.equal(local.probe.hostsSignalServer(), true);
});

test('a member whose room already has its local signal server does not load the server to find the port taken, and takes it over when its host goes', {
  timeout: 60_000,
}, async (t) => {
  const port = await freePort();
  const asked: string[] = [];
  const host: HostSignalServer = (at) => {
    asked.push(`${at.host}:${at.port}`);
    return startSignalServer({ host: at.host, port: at.port, env: {} });
  };
  const room = await makeRoom(t, {
    names: ['Ana', 'Bia'],
    signalUrl: `ws://127.0.0.1:${port}`,
    make: 'store',
  });
  const open = async (name: 'Ana' | 'Bia') => {
    const opened = await openMember({
      home: room.members[name].home,
      profile: 'default',
      env: memberEnv(),
      mode: 'agent',
      hostSignalServer: host,
    });
    t.after(() => opened.member.close());
    return opened;
  };
  const ana = await open('Ana');
  assert.equal(ana.probe.hostsSignalServer(), true);
  const bia = await open('Bia');
  // Before: Bia called the host function too, and was told EADDRINUSE (the server's modules
  // loaded for nothing: 100-170 ms of a papo say, docs/performance.md).
  assert.deepEqual(asked, [`127.0.0.1:${port}`], 'only Ana was asked to host it');
  assert.equal(bia.probe.hostsSignalServer(), false);
  await ana.member.close();
  const deadline = Date.now() + 30_000;
  while (!bia.probe.hostsSignalServer() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(bia.probe.hostsSignalServer(), true, 'Bia took the port over');
  assert.equal(asked.length, 2);
});
