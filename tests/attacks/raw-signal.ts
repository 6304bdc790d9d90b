// A bare WebSocket client of a signal server, for attacks that speak the protocol by hand: it
// records every message it hears. Shared by the signal-server attacks in this folder.
import { WebSocket } from 'ws';
import { SIGNAL_PATH } from '../../src/signal-protocol.js';

export interface RawSignalClient {
  ws: WebSocket;
  heard: { t: string; code?: string; peer?: string; peers?: string[] }[];
}

export async function rawSignalClient(
  url: string,
  headers: Record<string, string> = {},
): Promise<RawSignalClient> {
  const ws = new WebSocket(`${url}${SIGNAL_PATH}`, { headers });
  const heard: RawSignalClient['heard'] = [];
  ws.on('message', (d) => heard.push(JSON.parse(String(d)) as RawSignalClient['heard'][number]));
  ws.on('error', () => {});
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, heard };
}
