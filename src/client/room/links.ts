// The links to neighbours, as the room node sees them: the contract between the room and whatever
// carries its sealed frames (the transport process, or the network stack in this process; the MCP
// SDK's src/shared/transport.ts is the model). The room node imports this, and so do the
// transports that implement it; neither imports the other.
import type { EventEmitter } from 'node:events';
import type { LinkPath, TransportEvents } from '../net/health.js';

/** The events of the links (one definition, in the network's plain types). */
export type { TransportEvents } from '../net/health.js';

/**
 * The links to neighbours, as the node sees them (the mesh, in this process or in the transport
 * process: src/client/transport/inline-transport.ts).
 */
export interface NodeTransport extends EventEmitter<TransportEvents> {
  send(peer: string, data: Uint8Array): boolean;
  neighbours(): string[];
  path(peer: string): LinkPath | undefined;
}
