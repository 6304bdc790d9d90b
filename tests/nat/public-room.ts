// A room made the way issue 26 says two people on two machines make it, in the NAT lab: the
// operator runs only `papo signal --public <the public host's address>` (coturn on its PATH or not),
// the room's creator runs the `papo new --signal '…'` line it printed, as it is, in her namespace,
// and the colleague joins in his with the invite on stdin. No papo variable on either member: they
// take their STUN and TURN servers from the welcome. Shared by tests/nat/public.test.ts and
// bench/lab-first-message.ts.
import assert from 'node:assert/strict';
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../support/files.js';
import { type Member, startMember } from '../support/members.js';
import { cleanEnv, inviteIn, PAPO_BIN, runPapo } from '../support/papo.js';
import { waitFor } from '../support/wait.js';
import { createNatLab, type NatLab, type SiteOptions } from './lab.js';

/** A PATH with node and ip (the lab runs commands with `ip netns exec`) only: no turnserver. */
function pathWithoutCoturn(dir: string): string {
  const bin = join(dir, 'bin-without-coturn');
  mkdirSync(bin, { recursive: true });
  symlinkSync(process.execPath, join(bin, 'node'));
  const ip = spawnSync('sh', ['-c', 'command -v ip'], { encoding: 'utf8' }).stdout.trim();
  symlinkSync(ip, join(bin, 'ip'));
  return bin;
}

export interface PublicLab {
  lab: NatLab;
  signal: ChildProcess;
  /** What papo signal printed on stdout: the creator's command line. */
  line: string;
  /** What it wrote on stderr so far. */
  operatorLog(): string;
  /** ana's and bob's homes. */
  homes: [string, string];
  /** Ends every process of the lab and removes it and the homes. */
  close(): Promise<void>;
}

/**
 * Where `papo signal --public` runs: 'public' on the public segment's own host (its address is on
 * an interface there), 'oneToOne' on a host with only a private address behind 1:1 NAT (ADDR is the
 * router's public address), 'vpn' on ana's own machine with ADDR its VPN address (issue 40).
 */
export type ServerPlace = 'public' | 'oneToOne' | 'oneToOneName' | 'vpn';

/** The DNS name of 'oneToOneName': an A record for the 1:1 NAT's public address, in each namespace's hosts. */
export const LAB_SIGNAL_NAME = 'signal.lab.test';

function serverOf(lab: NatLab, place: ServerPlace): { ns: string; address: string } {
  if (place === 'oneToOne' && lab.oneToOne !== undefined) {
    return { ns: lab.oneToOne.ns, address: lab.oneToOne.publicIp };
  }
  if (place === 'oneToOneName' && lab.oneToOne !== undefined) {
    return { ns: lab.oneToOne.ns, address: LAB_SIGNAL_NAME };
  }
  if (place === 'vpn' && lab.vpn !== undefined) return { ns: lab.sites[0].ns, address: lab.vpn[0] };
  return { ns: lab.publicNs, address: lab.publicIp };
}

/** The lab, `papo signal --public` in its public namespace, and the room made from its line. */
export async function publicLab(
  sites: [SiteOptions, SiteOptions],
  coturn = true,
  place: ServerPlace = 'public',
): Promise<PublicLab> {
  const named = place === 'oneToOneName';
  const lab = await createNatLab({ sites, oneToOne: place === 'oneToOne' || named, vpn: place === 'vpn' });
  const server = serverOf(lab, place);
  const dir = makeTempDir('papo-public-lab-');
  // `ip netns exec NS` mounts /etc/netns/NS/hosts over /etc/hosts: the name resolves in the lab only.
  const hostsDirs = named ? [server.ns, ...lab.sites.map((x) => x.ns)].map((ns) => `/etc/netns/${ns}`) : [];
  const close = async () => {
    await lab.close();
    rmSync(dir, { recursive: true, force: true });
    for (const d of hostsDirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    for (const d of hostsDirs) {
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'hosts'), `127.0.0.1 localhost\n${lab.oneToOne?.publicIp} ${LAB_SIGNAL_NAME}\n`);
    }
    const signal = lab.spawn(
      server.ns,
      process.execPath,
      [PAPO_BIN, 'signal', '--public', server.address, '--state', join(dir, 'operator')],
      { env: { PATH: coturn ? (process.env.PATH ?? '') : pathWithoutCoturn(dir), LANG: 'C' } },
    );
    let out = '';
    let err = '';
    signal.stdout?.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    signal.stderr?.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    const line = await waitFor(
      'papo signal --public to print the creator’s line',
      () => /^papo new .*$/m.exec(out)?.[0] ?? '',
      {
        timeoutMs: 30_000,
        last: () => `stdout: ${out}\nstderr: ${err}`,
      },
    );

    const homes: [string, string] = [join(dir, 'ana'), join(dir, 'bob')];
    const env = (home: string, user: string) => cleanEnv({ HOME: home, PAPO_HOME: home, USER: user });
    // The creator runs the printed line as it is (its one argument is quoted for a shell).
    const args = [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '').slice(1);
    const made = await runPapo(args, {
      env: env(homes[0], 'ana'),
      wrap: ['ip', 'netns', 'exec', lab.sites[0].ns],
    });
    assert.equal(made.code, 0, made.stderr);
    const joined = await runPapo(['join', '--name', 'bob'], {
      env: env(homes[1], 'bob'),
      input: `${inviteIn(made.stdout)}\n`,
      wrap: ['ip', 'netns', 'exec', lab.sites[1].ns],
      timeoutMs: 30_000,
    });
    assert.equal(joined.code, 0, joined.stderr);
    // papo join asked the server at once, through bob's NAT, with the pin and the token.
    assert.match(joined.stdout, /accepts this room's token/);
    return { lab, signal, line, operatorLog: () => err, homes, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** ana's and bob's `papo mcp`, each in its site's namespace, initialized. */
export async function startPair(room: PublicLab, env: NodeJS.ProcessEnv = {}): Promise<[Member, Member]> {
  const started = await Promise.all(
    (['ana', 'bob'] as const).map((name, i) =>
      startMember(name, room.homes[i] as string, {
        ns: room.lab.sites[i]?.ns as string,
        env: { USER: name, PAPO_ICE_SERVERS: undefined, ...env },
      }),
    ),
  );
  return started as [Member, Member];
}
