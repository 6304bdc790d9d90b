// One client socket: what the server knows of it, its rate control, and the dispatch of its
// messages to the hub, one at a time and in the order they came (a join finishes before the signal
// after it is checked; with Redis both are round trips). Nothing here logs message contents.
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { ErrorMessage, SignalErrorCode } from '../signal-protocol.js';
import type { SignalConfig } from './config.js';
import type { Hub, Member } from './hub.js';
import { TokenBucket } from './limits.js';
import type { Metrics } from './metrics.js';
import { parseClientMessage } from './parse.js';

/** Close codes (RFC 6455 section 7.4.1). */
export const CLOSE = {
  goingAway: 1001,
  policy: 1008,
  tooBig: 1009,
  internal: 1011,
  tryAgainLater: 1013,
} as const;

/** What every connection of one server shares. */
export interface ConnectionContext {
  readonly config: Pick<
    SignalConfig,
    'messagesPerSecond' | 'messageBurst' | 'maxMessageBytes' | 'maxTopicsPerSocket' | 'maxBufferedBytes'
  >;
  readonly hub: Hub;
  readonly metrics: Metrics;
  readonly log: (line: string) => void;
}

export class Connection implements Member {
  readonly topics = new Map<string, string>();
  /** Pings sent and not answered yet (the app's heartbeat). */
  unanswered = 0;
  /** Set once the socket is gone: nothing more is dispatched but its drop from the hub. */
  closed = false;
  /** Refused messages since the last accepted one (a flood that does not stop is closed). */
  #strikes = 0;
  readonly #bucket: TokenBucket;
  /**
   * Steps waiting for the one running, in the order their messages came; undefined when none
   * waits (made on the second step of a burst: an idle socket holds no array).
   */
  #queue: Array<() => void | Promise<void>> | undefined;
  /** The running drain; undefined when no step runs. */
  #draining: Promise<void> | undefined;
  /** True while this socket's frames are held back until the end of this turn of the event loop. */
  #corked = false;
  /** Bytes of the frames held since the cork. */
  #heldBytes = 0;

  constructor(
    readonly id: number,
    readonly ws: WebSocket,
    /** The socket ws writes to (the one the upgrade came on). */
    readonly socket: Duplex,
    readonly address: string,
    private readonly context: ConnectionContext,
  ) {
    this.#bucket = new TokenBucket(context.config.messagesPerSecond, context.config.messageBurst);
  }

  sendText(text: string): void {
    if (this.ws.readyState !== 1) return;
    // Every frame for this socket in one turn of the event loop (all the signals forwarded from
    // the reads of this turn) leaves in one write, one system call, instead of one write each
    // (ADR 0077). The write waits for setImmediate, after this turn's reads and the promise
    // continuations of their hub steps (ADR 0083). ws corks and uncorks around each frame, which
    // nests inside this.
    if (!this.#corked) {
      this.#corked = true;
      this.socket.cork();
      setImmediate(flush, this);
    }
    this.ws.send(text);
    const bytes = Buffer.byteLength(text);
    this.context.metrics.bytesSent += bytes;
    // A turn can hold many senders' reads for this socket: past the slow-client bound, the held
    // frames go out now and the backlog is checked (ADR 0060, 0077).
    this.#heldBytes += bytes;
    if (this.#heldBytes > this.context.config.maxBufferedBytes) this.flushHeld();
  }

  refuse(code: SignalErrorCode, message: string, close?: number): void {
    this.context.metrics.refuse(code);
    this.sendText(JSON.stringify({ t: 'error', code, message } satisfies ErrorMessage));
    if (close !== undefined) this.ws.close(close, code);
  }

  /** The end of a turn with frames held: they go out, then the socket's backlog is checked. */
  flushHeld(): void {
    if (!this.#corked) return; // flushed early, when the held frames passed the bound
    this.#corked = false;
    this.#heldBytes = 0;
    this.socket.uncork();
    // A client that stops reading fills the kernel's buffers, then ws's: what the socket could not
    // write yet (bufferedAmount: the net.Socket's writable queue plus ws's own). Without a bound, a
    // peer sending it signals grows this process at the peer's rate until the ping timeout.
    if (this.ws.readyState === 1 && this.ws.bufferedAmount > this.context.config.maxBufferedBytes) {
      this.context.metrics.slowClientsClosed++;
      this.ws.terminate();
    }
  }

  /** A message from the socket: the rate, the size and the kind are checked here, then its hub step is queued. */
  receive(data: Buffer, isBinary: boolean): void {
    const { config, metrics } = this.context;
    metrics.messagesReceived++;
    metrics.bytesReceived += data.length;
    if (this.closed) return;
    if (!this.#bucket.take()) {
      // One error per flood, not one per dropped message; a flood that outlasts a second burst
      // is closed.
      if (this.#strikes === 0)
        this.#inOrder(() =>
          this.refuse('rate_limited', `at most ${config.messagesPerSecond} messages per second`),
        );
      else metrics.refuse('rate_limited');
      this.#strikes++;
      if (this.#strikes === config.messageBurst + 1)
        this.#inOrder(() => this.ws.close(CLOSE.policy, 'rate_limited'));
      return;
    }
    this.#strikes = 0;
    if (data.length > config.maxMessageBytes) {
      this.#inOrder(() =>
        this.refuse('too_large', `messages are limited to ${config.maxMessageBytes} bytes`),
      );
      return;
    }
    if (isBinary) {
      this.#inOrder(() => this.refuse('bad_request', 'only text messages are part of the protocol'));
      return;
    }
    const text = data.toString('utf8');
    this.#enqueue(() => this.#dispatch(text));
  }

  /**
   * A refusal or a close decided on arrival (rate, size, kind): at once when no step waits, else
   * after the steps of the messages before it, so the client hears its answers in the order it
   * sent, and a close does not cut the answers owed before it.
   */
  #inOrder(act: () => void): void {
    if (this.#draining === undefined) act();
    else this.#enqueue(act);
  }

  /** The socket is gone: once the steps before it have run, it leaves every topic it was on. */
  drop(): void {
    if (this.closed) return;
    this.closed = true;
    this.#enqueue(() => this.context.hub.dropMember(this));
  }

  /** Resolves when every queued hub step has run (shutdown waits for it). */
  idle(): Promise<void> {
    return this.#draining ?? Promise.resolve();
  }

  async #dispatch(raw: string): Promise<void> {
    const { config, hub } = this.context;
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) return this.refuse('bad_request', parsed.reason);
    const m = parsed.message;
    switch (m.t) {
      case 'join': {
        const current = this.topics.get(m.topic);
        if (current !== undefined && current !== m.peer) {
          return this.refuse('bad_request', 'this socket is already on the topic as another peer');
        }
        if (current === undefined && this.topics.size >= config.maxTopicsPerSocket) {
          return this.refuse('topic_limit', `at most ${config.maxTopicsPerSocket} topics per connection`);
        }
        if ((await hub.join(this, m.topic, m.peer)) === 'room_full')
          this.refuse('room_full', 'this topic has as many peers as the server allows');
        return;
      }
      case 'signal': {
        if (!this.topics.has(m.topic))
          return this.refuse('bad_request', 'join the topic before signalling on it');
        if (!(await hub.signal(this, m.topic, m.to, m.data, parsed.plain)))
          this.refuse('unknown_peer', 'no such peer on this topic');
        return;
      }
      case 'leave':
        return hub.leave(this, m.topic);
    }
  }

  #enqueue(step: () => void | Promise<void>): void {
    if (this.#draining === undefined) this.#draining = this.#drain(step);
    else if (this.#queue === undefined) this.#queue = [step];
    else this.#queue.push(step);
  }

  /** Runs `first`, then every step queued meanwhile, one at a time. */
  async #drain(first: () => void | Promise<void>): Promise<void> {
    for (
      let step: (() => void | Promise<void>) | undefined = first;
      step !== undefined;
      step = this.#queue?.shift()
    ) {
      try {
        await step();
      } catch (err) {
        try {
          this.context.log(
            `socket ${this.id}: hub error: ${err instanceof Error ? err.message : String(err)}`,
          );
        } catch {
          // A log that fails must not stop this socket's queue (its drop from the hub is in it).
        }
        // The client redials with backoff; better than a socket in an unknown state.
        if (!this.closed) this.ws.close(CLOSE.internal, 'internal error');
      }
    }
    this.#queue = undefined;
    this.#draining = undefined;
  }
}

function flush(conn: Connection): void {
  conn.flushHeld();
}
