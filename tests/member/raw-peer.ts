// A peer built by hand from the transport pieces (signal client + mesh), without a room node: it
// can speak raw frames to members (to forge an ack, replay a message), signed by its own key or by
// any identity it is given (a member's, to play a member; ADR 0064), or as raw bytes; and, given a
// wrong secret but the room's topic, plays the outsider who knows where the room meets but not its
// keys.

import { Mesh } from '../../src/client/net/mesh.js';
import { SignalClient } from '../../src/client/net/signal-client.js';
import { FrameCodec, type SignedFrame } from '../../src/client/wire/frame-codec.js';
import type { Frame } from '../../src/client/wire/frames.js';
import { generateIdentity, type Identity } from '../../src/client/wire/identity.js';
import { deriveRoomKeys, generateSecret } from '../../src/client/wire/room-crypto.js';
import { waitFor } from '../support/wait.js';

export interface RawPeerOptions {
  /** The room secret the frame and signal keys come from. */
  secret: Uint8Array;
  url: string;
  /** Join this topic instead of the secret's (the outsider: the room's topic, another secret). */
  topic?: string;
}

export class RawPeer {
  readonly identity = generateIdentity();
  readonly nodeId = this.identity.nodeId;
  readonly signal: SignalClient;
  readonly mesh: Mesh;
  readonly frameKey: Uint8Array;
  readonly topic: string;
  /** Frames that opened and were signed by their `node`, as received (forwarded copies included). */
  readonly frames: SignedFrame[] = [];
  #codecs = new Map<string, FrameCodec>();
  /** Every data-channel message, opened or not. */
  readonly raw: Uint8Array[] = [];
  /** Payloads of sealed signal blobs that opened. */
  readonly signals: unknown[] = [];
  readonly linkOpens: string[] = [];

  constructor(options: RawPeerOptions) {
    const keys = deriveRoomKeys(options.secret);
    this.frameKey = keys.frameKey;
    this.topic = keys.topic;
    this.signal = new SignalClient({
      url: options.url,
      topic: options.topic ?? keys.topic,
      localId: this.nodeId,
      signalKey: keys.signalKey,
      backoffMs: [200],
    });
    this.signal.on('signal', (_from, payload) => this.signals.push(payload));
    this.mesh = new Mesh({ signal: this.signal }, { ice: { servers: [], policy: 'all', source: 'env' } });
    this.mesh.on('link-open', (peer) => this.linkOpens.push(peer));
    this.mesh.on('link-message', (_peer, data) => {
      this.raw.push(data);
      try {
        this.frames.push(this.codec().open(data));
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

  /** The room's codec signing as `signer` (our own key by default). */
  codec(signer: Identity = this.identity): FrameCodec {
    let codec = this.#codecs.get(signer.nodeId);
    if (codec === undefined) {
      codec = new FrameCodec(this.frameKey, this.topic, signer);
      this.#codecs.set(signer.nodeId, codec);
    }
    return codec;
  }

  /** Signs (as `signer`, whose node id the frame must name) and seals a frame, and sends it. */
  sendFrame(nodeId: string, frame: Frame, signer: Identity = this.identity): boolean {
    return this.mesh.send(nodeId, this.codec(signer).signAndSeal(frame));
  }

  /** Sends bytes as they are (a frame sealed, signed or altered by hand). */
  sendBytes(nodeId: string, bytes: Uint8Array): boolean {
    return this.mesh.send(nodeId, bytes);
  }

  async close(): Promise<void> {
    await this.mesh.close();
    await this.signal.close();
  }
}
