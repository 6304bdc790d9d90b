// A peer built by hand from the transport pieces (signal client + mesh), without a room node: it
// can speak raw frames to members (to forge an ack, replay a message), and, given a wrong secret
// but the room's topic, plays the outsider who knows where the room meets but not its keys.
import { type Frame, openFrame, sealFrame } from '../../src/client/frames.js';
import { generateIdentity } from '../../src/client/identity.js';
import { Mesh } from '../../src/client/mesh.js';
import { deriveRoomKeys, generateSecret } from '../../src/client/room-crypto.js';
import { SignalClient } from '../../src/client/signal-client.js';
import { waitFor } from './helpers.js';

export interface RawPeerOptions {
  /** The room secret the frame and signal keys come from. */
  secret: Uint8Array;
  url: string;
  /** Join this topic instead of the secret's (the outsider: the room's topic, another secret). */
  topic?: string;
}

export class RawPeer {
  readonly nodeId = generateIdentity().nodeId;
  readonly signal: SignalClient;
  readonly mesh: Mesh;
  readonly frameKey: Uint8Array;
  /** Frames that opened, as received (forwarded copies included). */
  readonly frames: Frame[] = [];
  /** Every data-channel message, opened or not. */
  readonly raw: Uint8Array[] = [];
  /** Payloads of sealed signal blobs that opened. */
  readonly signals: unknown[] = [];
  readonly linkOpens: string[] = [];

  constructor(options: RawPeerOptions) {
    const keys = deriveRoomKeys(options.secret);
    this.frameKey = keys.frameKey;
    this.signal = new SignalClient({
      url: options.url,
      topic: options.topic ?? keys.topic,
      localId: this.nodeId,
      signalKey: keys.signalKey,
      backoffMs: [200],
    });
    this.signal.on('signal', (_from, payload) => this.signals.push(payload));
    this.mesh = new Mesh({ signal: this.signal, ice: { servers: [], policy: 'all', source: 'env' } });
    this.mesh.on('link-open', (peer) => this.linkOpens.push(peer));
    this.mesh.on('link-message', (_peer, data) => {
      this.raw.push(data);
      try {
        this.frames.push(openFrame(this.frameKey, data));
      } catch {
        // not sealed with our key
      }
    });
    this.signal.start();
  }

  /** A peer with a secret of its own. */
  static outsider(url: string, topic: string): RawPeer {
    return new RawPeer({ secret: generateSecret(), url, topic });
  }

  async linkTo(nodeId: string, timeoutMs = 15_000): Promise<void> {
    await waitFor(
      `a raw link to ${nodeId.slice(0, 10)}`,
      () => this.mesh.neighbours().includes(nodeId),
      timeoutMs,
    );
  }

  sendFrame(nodeId: string, frame: Frame): boolean {
    return this.mesh.send(nodeId, sealFrame(this.frameKey, frame));
  }

  async close(): Promise<void> {
    await this.mesh.close();
    await this.signal.close();
  }
}
