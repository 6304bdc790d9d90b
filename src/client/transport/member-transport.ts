// What a room member needs from its network side: the room's links (NodeTransport) plus the signal
// server's state and the network's health. Two forms implement it: the supervised transport process
// (transport-process.ts, ADR 0057) and the network stack in this process (inline-transport.ts).
import type { NetworkHealth, SignalState } from '../net/health.js';
import type { NodeTransport } from '../room/links.js';

export interface MemberTransport extends NodeTransport {
  readonly signalUrl: string;
  /** The signal server connection as last known (never waits). */
  signalState(): SignalState;
  /**
   * Calls `listener` whenever the signal server connection changes (joined, lost, refused, peers);
   * returns what stops it.
   */
  onSignalState(listener: (state: SignalState) => void): () => void;
  /**
   * The signal server is there again (this machine's local one, just taken over by the member's
   * process): the signal client dials now rather than after its backoff (SignalClient.dialNow).
   */
  signalServerBack(): void;
  /** The network now; asks the transport, at most `probeMs`, whether it still answers. */
  health(probeMs?: number): Promise<NetworkHealth>;
  close(): Promise<void>;
}
