// `papo signal` in the lab's public namespace, optionally handing out TURN REST credentials for a
// lab coturn in its welcome (what an operator's Docker bundle does).
import type { ChildProcess } from 'node:child_process';
import { PAPO_BIN } from '../support/papo.js';
import type { Coturn, NatLab } from './lab.js';

export const LAB_SIGNAL_PORT = 8451;

export async function startLabSignal(
  lab: NatLab,
  coturn: Coturn | null,
  extraEnv: NodeJS.ProcessEnv = {},
  port = LAB_SIGNAL_PORT,
): Promise<ChildProcess> {
  const turn = coturn
    ? {
        PAPO_TURN_SECRET: coturn.secret,
        PAPO_TURN_URLS: `turn:${coturn.host}:${coturn.port}?transport=udp,turn:${coturn.host}:${coturn.port}?transport=tcp`,
        PAPO_STUN_URLS: `stun:${coturn.host}:${coturn.port}`,
      }
    : {};
  const child = lab.spawn(
    lab.publicNs,
    process.execPath,
    [PAPO_BIN, 'signal', '--host', lab.publicIp, '--port', String(port)],
    { env: { PATH: process.env.PATH, ...turn, ...extraEnv } },
  );
  child.stdout?.resume();
  child.stderr?.resume();
  await lab.waitTcp(lab.publicNs, lab.publicIp, port);
  return child;
}
