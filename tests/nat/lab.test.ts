// Self-tests of the NAT lab: the scenarios in tests/nat/ rely on these behaviours, so they are
// measured here rather than assumed (reachability, the mapping each NAT kind really gives, UDP
// blocking, coturn answering, and that nothing is left behind).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import {
  type Coturn,
  createNatLab,
  labSkipReason,
  type NatLab,
  removeStaleLabs,
  runProbe,
  startProbe,
} from './lab.js';
import { turnRestCredential } from './stun.js';

const skip = labSkipReason();
if (skip) console.log(`# SKIP NAT lab self-test: ${skip}`);

function namespaces(): string[] {
  return spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => l.split(' ')[0] ?? '');
}

describe('NAT lab', { skip: skip ?? false }, () => {
  let lab: NatLab;
  let coturn: Coturn;

  before(async () => {
    lab = await createNatLab({ sites: [{ nat: 'eim' }, { nat: 'symmetric' }] });
    await startProbe(lab, lab.publicNs, ['echo', '4000', '4001', '4002']);
    await startProbe(lab, lab.publicNs, ['tcp-echo', '4100']);
    coturn = await lab.startCoturn({ secret: 'lab-only-secret', port: 3478 });
  });
  after(async () => {
    await lab?.close();
  });

  test('each site reaches the public segment through its router', async () => {
    for (const site of lab.sites) {
      const seen = (await runProbe(lab, site.ns, ['mapping', lab.publicIp, '4000'])) as (string | null)[];
      assert.equal(
        seen[0]?.split(':')[0],
        site.publicIp,
        `${site.ns} is seen as its router's public address`,
      );
    }
  });

  test('private addresses are not routed between the sites', async () => {
    const echo = await startProbe(lab, lab.sites[1].ns, ['echo', '4000']);
    try {
      const seen = (await runProbe(lab, lab.sites[0].ns, [
        'mapping',
        lab.sites[1].privateIp,
        '4000',
      ])) as unknown[];
      assert.deepEqual(seen, [null]);
    } finally {
      echo.kill('SIGKILL');
    }
  });

  test('plain MASQUERADE keeps one mapping for every destination (endpoint-independent)', async () => {
    const seen = (await runProbe(lab, lab.sites[0].ns, [
      'mapping',
      lab.publicIp,
      '4000',
      '4001',
      '4002',
    ])) as string[];
    assert.equal(seen.length, 3);
    assert.ok(seen.every((s) => s !== null));
    assert.equal(new Set(seen).size, 1, `one mapped address:port, got ${seen.join(', ')}`);
  });

  test('MASQUERADE --random-fully gives another mapped port per destination (symmetric)', async () => {
    const seen = (await runProbe(lab, lab.sites[1].ns, [
      'mapping',
      lab.publicIp,
      '4000',
      '4001',
      '4002',
    ])) as string[];
    assert.ok(seen.every((s) => s?.startsWith(`${lab.sites[1].publicIp}:`)));
    assert.equal(new Set(seen).size, 3, `three different mapped ports, got ${seen.join(', ')}`);
  });

  test('UDP hole punching between the two sites: both ways with EIM on both, not with a symmetric side', async () => {
    // Site 1 is EIM and site 2 symmetric in this lab: punching fails; the same probe between two EIM
    // sites (below, in its own lab) succeeds.
    const [s1, s2] = lab.sites;
    const [r1, r2] = await Promise.all([
      runProbe(lab, s1.ns, ['punch', s2.publicIp, '5000', '2000']),
      runProbe(lab, s2.ns, ['punch', s1.publicIp, '5000', '2000']),
    ]);
    assert.ok(r1 === null || r2 === null, `no two-way punching through a symmetric NAT: ${r1} / ${r2}`);
  });

  test('blocking UDP on a router drops UDP and keeps TCP; unblocking restores UDP', async () => {
    const site = lab.sites[0];
    await lab.setUdpBlocked(site, true);
    try {
      assert.deepEqual(await runProbe(lab, site.ns, ['mapping', lab.publicIp, '4000']), [null]);
      const tcp = (await runProbe(lab, site.ns, ['tcp-reach', lab.publicIp, '4100'])) as string;
      assert.match(tcp, new RegExp(`^${site.publicIp.replaceAll('.', '\\.')}:\\d+$`));
    } finally {
      await lab.setUdpBlocked(site, false);
    }
    const seen = (await runProbe(lab, site.ns, ['mapping', lab.publicIp, '4000'])) as string[];
    assert.ok(seen[0]?.startsWith(site.publicIp));
  });

  test('taking a site offline drops everything; back online restores it', async () => {
    const site = lab.sites[1];
    await lab.setSiteOffline(site, true);
    try {
      assert.deepEqual(await runProbe(lab, site.ns, ['mapping', lab.publicIp, '4000']), [null]);
      assert.equal(await runProbe(lab, site.ns, ['tcp-reach', lab.publicIp, '4100']), null);
    } finally {
      await lab.setSiteOffline(site, false);
    }
    const seen = (await runProbe(lab, site.ns, ['mapping', lab.publicIp, '4000'])) as string[];
    assert.ok(seen[0]?.startsWith(site.publicIp));
  });

  test('coturn answers STUN over UDP and TCP with the mapped address, and allocates with REST credentials', async () => {
    const site = lab.sites[0];
    for (const transport of ['udp', 'tcp']) {
      const mapped = (await runProbe(lab, site.ns, [
        'stun-binding',
        coturn.host,
        String(coturn.port),
        transport,
      ])) as {
        address: string;
      };
      assert.equal(mapped.address, site.publicIp, `binding over ${transport}`);
    }
    const cred = turnRestCredential(coturn.secret, 'selftest');
    const r = (await runProbe(lab, site.ns, [
      'turn-permissions',
      JSON.stringify({
        server: { address: coturn.host, port: coturn.port },
        transport: 'udp',
        ...cred,
        peers: [],
      }),
    ])) as { relayed: { address: string } };
    assert.equal(r.relayed.address, lab.publicIp);
  });
});

test('UDP hole punching works both ways between two endpoint-independent NATs', {
  skip: skip ?? false,
}, async () => {
  const lab = await createNatLab({ sites: [{ nat: 'eim' }, { nat: 'eim' }] });
  try {
    const [s1, s2] = lab.sites;
    // Staggered start: site 2's first probes reach site 1's router before site 1 sends anything.
    const p2 = runProbe(lab, s2.ns, ['punch', s1.publicIp, '5000', '3000']);
    await new Promise((r) => setTimeout(r, 500));
    const r1 = await runProbe(lab, s1.ns, ['punch', s2.publicIp, '5000', '2000']);
    const r2 = await p2;
    assert.equal(r1, `${s2.publicIp}:5000 punch`);
    assert.equal(r2, `${s1.publicIp}:5000 punch`);
  } finally {
    await lab.close();
  }
});

test('close() removes every namespace and process; stale labs of dead processes are removed', {
  skip: skip ?? false,
}, async () => {
  const lab = await createNatLab({ sites: [{ nat: 'eim' }, { nat: 'eim' }] });
  const echo = await startProbe(lab, lab.sites[0].ns, ['echo', '4000']);
  const pid = echo.pid as number;
  const ours = namespaces().filter((n) => n.startsWith(lab.prefix));
  assert.equal(ours.length, 5);
  await lab.close();
  assert.deepEqual(
    namespaces().filter((n) => n.startsWith(lab.prefix)),
    [],
  );
  assert.throws(() => process.kill(pid, 0), /ESRCH/);

  // A lab left by a crashed run: its name carries a pid that no longer exists.
  const stale = 'papolab-999999999-1-pub';
  spawnSync('ip', ['netns', 'add', stale]);
  assert.ok(namespaces().includes(stale));
  const removed = removeStaleLabs();
  assert.ok(removed.includes(stale));
  assert.ok(!namespaces().includes(stale));
});
