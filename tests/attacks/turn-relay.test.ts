// The coturn configuration shipped in docker/turnserver.conf, run for real in the NAT lab (only the
// secret, ports and addresses adapted on the command line): a member cannot use the relay to reach
// loopback, link-local, private (RFC 1918), carrier-grade NAT or other special addresses, while two
// members behind their NATs relay to each other. A control run of coturn without that file shows
// that the refusals come from the file, not from coturn's defaults.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type Coturn,
  coturnSkipReason,
  createNatLab,
  labSkipReason,
  type NatLab,
  PROBE,
  runProbe,
} from '../nat/lab.js';
import { startLabSignal } from '../nat/lab-signal.js';
import { turnRestCredential } from '../nat/stun.js';

const SHIPPED_CONF = fileURLToPath(new URL('../../../docker/turnserver.conf', import.meta.url));
const skip = labSkipReason() ?? coturnSkipReason();
if (skip) console.log(`# SKIP TURN relay attacks: ${skip}`);

/** Peers the relay must refuse, one per denied range, including the other site's private address. */
const DENIED = [
  '127.0.0.1',
  '127.10.20.30',
  '169.254.169.254',
  '10.0.0.1',
  '10.2.0.2',
  '172.16.0.1',
  '172.31.255.254',
  '192.168.1.1',
  '100.64.0.1',
  '100.127.255.254',
  '0.0.0.1',
  '192.0.0.8',
  '198.18.0.1',
  '224.0.0.251',
];

describe('TURN relay with docker/turnserver.conf', { skip: skip ?? false }, () => {
  let lab: NatLab;
  let shipped: Coturn;
  let control: Coturn;

  before(async () => {
    lab = await createNatLab({ sites: [{ nat: 'eim' }, { nat: 'symmetric' }] });
    shipped = await lab.startCoturn({ configFile: SHIPPED_CONF, secret: 'lab-shipped-secret', port: 3478 });
    control = await lab.startCoturn({
      secret: 'lab-control-secret',
      port: 3479,
      minRelayPort: 49400,
      maxRelayPort: 49440,
    });
  });
  after(async () => {
    await lab?.close();
  });

  for (const transport of ['udp', 'tcp'] as const) {
    test(`CreatePermission to a denied peer is refused with 403 (${transport})`, async () => {
      const cred = turnRestCredential(shipped.secret, 'attacker');
      const r = (await runProbe(lab, lab.sites[0].ns, [
        'turn-permissions',
        JSON.stringify({
          server: { address: shipped.host, port: shipped.port },
          transport,
          ...cred,
          peers: [...DENIED, lab.sites[1].publicIp],
        }),
      ])) as { permissions: Record<string, string | number> };
      const refused = Object.fromEntries(DENIED.map((p) => [p, r.permissions[p]]));
      assert.deepEqual(refused, Object.fromEntries(DENIED.map((p) => [p, 403])));
      assert.equal(r.permissions[lab.sites[1].publicIp], 'ok', 'a public peer is allowed');
    });
  }

  test('control: coturn without the shipped file lets the same private peers through', async () => {
    const cred = turnRestCredential(control.secret, 'control');
    const r = (await runProbe(lab, lab.sites[0].ns, [
      'turn-permissions',
      JSON.stringify({
        server: { address: control.host, port: control.port },
        transport: 'udp',
        ...cred,
        peers: ['10.2.0.2', '192.168.1.1', '100.64.0.1', '172.16.0.1'],
      }),
    ])) as { permissions: Record<string, string | number> };
    assert.deepEqual(Object.values(r.permissions), ['ok', 'ok', 'ok', 'ok']);
  });

  test('two members behind their NATs relay data to each other through it', async () => {
    const peers: {
      child: ChildProcess;
      lines: unknown[];
      wait(pred: (v: unknown) => boolean): Promise<unknown>;
    }[] = [];
    for (const [i, site] of lab.sites.entries()) {
      const cred = turnRestCredential(shipped.secret, `member${i}`);
      const child = lab.spawn(site.ns, process.execPath, [
        PROBE,
        'turn-peer',
        JSON.stringify({
          server: { address: shipped.host, port: shipped.port },
          transport: 'udp',
          ...cred,
          name: `member${i}`,
        }),
      ]);
      const lines: unknown[] = [];
      const waiters = new Set<() => void>();
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (l) => {
        lines.push(JSON.parse(l));
        for (const w of waiters) w();
      });
      peers.push({
        child,
        lines,
        wait: (pred) =>
          new Promise((resolve, reject) => {
            const timer = setTimeout(
              () => reject(new Error(`timeout; lines ${JSON.stringify(lines)}`)),
              10_000,
            );
            const check = () => {
              const hit = lines.find(pred);
              if (hit !== undefined) {
                clearTimeout(timer);
                waiters.delete(check);
                resolve(hit);
              }
            };
            waiters.add(check);
            check();
          }),
      });
    }
    const [p1, p2] = peers as [(typeof peers)[0], (typeof peers)[0]];
    const a1 = (await p1.wait((v) => (v as { relayed?: unknown }).relayed !== undefined)) as {
      relayed: unknown;
    };
    const a2 = (await p2.wait((v) => (v as { relayed?: unknown }).relayed !== undefined)) as {
      relayed: unknown;
    };
    p1.child.stdin?.write(`${JSON.stringify(a2.relayed)}\n`);
    p2.child.stdin?.write(`${JSON.stringify(a1.relayed)}\n`);
    await p1.wait((v) => (v as { data?: string }).data === 'member1');
    await p2.wait((v) => (v as { data?: string }).data === 'member0');
    for (const p of peers) p.child.kill('SIGKILL');
  });
});

describe('TURN credentials handed out by the signal server', { skip: skip ?? false }, () => {
  let lab: NatLab;
  let coturn: Coturn;

  before(async () => {
    lab = await createNatLab({ sites: [{ nat: 'eim' }, { nat: 'eim' }] });
    coturn = await lab.startCoturn({ configFile: SHIPPED_CONF, secret: 'lab-welcome-secret' });
  });
  after(async () => {
    await lab?.close();
  });

  test('without a token, any WebSocket client gets working TURN credentials (to public peers only)', async () => {
    await startLabSignal(lab, coturn, {}, 8461);
    const welcome = (await runProbe(lab, lab.sites[0].ns, [
      'welcome',
      `ws://${lab.publicIp}:8461/v1/ws`,
    ])) as {
      t: string;
      iceServers: { urls: string | string[]; username?: string; credential?: string }[];
    };
    assert.equal(welcome.t, 'welcome');
    const turn = welcome.iceServers.find((s) => s.username !== undefined);
    assert.ok(turn?.username && turn.credential, JSON.stringify(welcome));
    const r = (await runProbe(lab, lab.sites[0].ns, [
      'turn-permissions',
      JSON.stringify({
        server: { address: coturn.host, port: coturn.port },
        transport: 'udp',
        username: turn.username,
        password: turn.credential,
        peers: [lab.sites[1].publicIp, '10.2.0.2'],
      }),
    ])) as { permissions: Record<string, string | number> };
    // An outsider who never joined a room can relay to any public address, never to private ones.
    assert.deepEqual(r.permissions, { [lab.sites[1].publicIp]: 'ok', '10.2.0.2': 403 });
  });

  test('with PAPO_SIGNAL_TOKEN, a client without the token gets no welcome and no credentials', async () => {
    await startLabSignal(lab, coturn, { PAPO_SIGNAL_TOKEN: 'lab-token-for-tests' }, 8462);
    const first = (await runProbe(lab, lab.sites[0].ns, ['welcome', `ws://${lab.publicIp}:8462/v1/ws`])) as {
      t: string;
      code?: string;
    } | null;
    assert.ok(
      first === null || (first.t === 'error' && first.code === 'unauthorized'),
      JSON.stringify(first),
    );
    const withToken = (await runProbe(lab, lab.sites[0].ns, [
      'welcome',
      `ws://${lab.publicIp}:8462/v1/ws?token=lab-token-for-tests`,
    ])) as { t: string };
    assert.equal(withToken.t, 'welcome');
  });
});
