// The network stack in this very process, unsupervised: the in-process form of MemberTransport.
// The production form runs the same NetworkStack in a supervised child process
// (transport-process.ts, ADR 0057); this one is kept for tests that look inside the stack and for
// the benchmark that measures what the process boundary costs.
import { EventEmitter } from 'node:events';
import type { LinkPath, NetworkHealth, SignalState, TransportEvents } from '../net/health.js';
import { NetworkStack, type NetworkStackOptions } from '../net/network-stack.js';
import type { MemberTransport } from './member-transport.js';

/** The network stack in this very process: no supervision, nothing to restart. */
export class InlineTransport extends EventEmitter<TransportEvents> implements MemberTransport {
  readonly signalUrl: string;
  readonly stack: NetworkStack;
  readonly #signalState = new EventEmitter<{ change: [SignalState] }>();

  private constructor(signalUrl: string, stack: NetworkStack) {
    super();
    this.signalUrl = signalUrl;
    this.stack = stack;
    const { mesh } = stack;
    mesh.on('link-open', (peer) => this.emit('link-open', peer));
    mesh.on('link-message', (peer, data) => this.emit('link-message', peer, data));
    mesh.on('link-close', (peer) => this.emit('link-close', peer));
    mesh.on('peer-left', (peer) => this.emit('peer-left', peer));
    stack.onSignalChange(() => this.#signalState.emit('change', stack.signalState()));
  }

  static async open(options: NetworkStackOptions): Promise<InlineTransport> {
    return new InlineTransport(options.url, await NetworkStack.open(options));
  }

  send(peer: string, data: Uint8Array): boolean {
    return this.stack.mesh.send(peer, data);
  }

  neighbours(): string[] {
    return this.stack.mesh.neighbours();
  }

  path(peer: string): LinkPath | undefined {
    return this.stack.mesh.path(peer);
  }

  signalState(): SignalState {
    return this.stack.signalState();
  }

  onSignalState(listener: (state: SignalState) => void): () => void {
    this.#signalState.on('change', listener);
    return () => this.#signalState.off('change', listener);
  }

  signalServerBack(): void {
    this.stack.signal.dialNow();
  }

  async health(): Promise<NetworkHealth> {
    return {
      signalUrl: this.signalUrl,
      signal: this.stack.signalState(),
      transport: { state: 'running', restarts: 0, failing: false, stallSeconds: 0 },
    };
  }

  close(): Promise<void> {
    return this.stack.close();
  }
}
