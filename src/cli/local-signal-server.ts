// The signal server a member hosts for a room on a loopback URL (open-member.ts, "the embedded
// signal server"): given to the client from here, so the client never imports the server.
import type { HostSignalServer } from '../client/open-member.js';

export const hostLocalSignalServer: HostSignalServer = async ({ host, port }) => {
  // Loaded only when a loopback room needs it.
  const { startSignalServer } = await import('../signal-server/server.js');
  // Settings of an operator's server (tokens, Redis, TURN) are not the local server's.
  return startSignalServer({ host, port, env: {} });
};
