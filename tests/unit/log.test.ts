// The ground floor's Log (src/client/log.ts): a plain function becomes a Log, children prefix their
// lines, a Log is passed on as it is, and a missing log is silent. And shortId, the short form of a
// node id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shortId, silentLog, toLog } from '../../src/client/log.js';
import { shortId as fromIdentity } from '../../src/client/wire/identity.js';

test('a plain function becomes a Log whose lines are unchanged', () => {
  const lines: string[] = [];
  const log = toLog((line) => lines.push(line));
  log('signal server connection lost (closed (1006)); redialling');
  assert.deepEqual(lines, ['signal server connection lost (closed (1006)); redialling']);
});

test('children prefix their lines, and their children add to the prefix', () => {
  const lines: string[] = [];
  const log = toLog((line) => lines.push(line));
  const mesh = log.child('papo: ');
  const turn = log.child('TURN relay: ');
  mesh('link to b0eb25083d closed (failed)');
  turn('ECONNREFUSED');
  mesh.child('ICE ').child('server ')('skipped');
  log('plain');
  assert.deepEqual(lines, [
    'papo: link to b0eb25083d closed (failed)',
    'TURN relay: ECONNREFUSED',
    'papo: ICE server skipped',
    'plain',
  ]);
});

test('a Log is passed on as it is; no log is the silent one', () => {
  const log = toLog(() => {});
  assert.equal(toLog(log), log);
  assert.equal(toLog(undefined), silentLog);
  assert.equal(silentLog.child('x: '), silentLog);
  silentLog('dropped');
});

test('shortId is the first 10 hex characters of a node id, from the ground floor or the identity', () => {
  const node = 'b0eb25083d'.padEnd(64, 'f');
  assert.equal(shortId(node), 'b0eb25083d');
  assert.equal(fromIdentity, shortId);
});
