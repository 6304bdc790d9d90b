// Counters for GET /metrics (on the metrics listener, ADR 0075), in the Prometheus text exposition
// format (version 0.0.4). Plain numbers in one object: no client library, nothing allocated per
// message.
import type { SignalErrorCode } from '../signal-protocol.js';

export interface Gauges {
  connections: number;
  topics: number;
  peers: number;
}

export class Metrics {
  connectionsAccepted = 0;
  messagesReceived = 0;
  signalsForwarded = 0;
  bytesReceived = 0;
  bytesSent = 0;
  pingTimeouts = 0;
  slowClientsClosed = 0;
  /** Welcomes that carried TURN credentials, and those that did not for the per-address limit. */
  turnIssued = 0;
  turnLimited = 0;
  /** Events on papo's Redis channels that no replica wrote, dropped (RedisHub). */
  redisEventsDropped = 0;
  readonly refused = new Map<SignalErrorCode, number>();

  refuse(code: SignalErrorCode): void {
    this.refused.set(code, (this.refused.get(code) ?? 0) + 1);
  }

  /** The exposition text; `gauges` are read at scrape time from the live state. */
  render(gauges: Gauges): string {
    const lines: string[] = [];
    const metric = (name: string, type: 'counter' | 'gauge', help: string, samples: [string, number][]) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`);
    };
    metric('papo_signal_connections', 'gauge', 'Open WebSocket connections.', [['', gauges.connections]]);
    metric('papo_signal_topics', 'gauge', 'Topics with at least one member on this replica.', [
      ['', gauges.topics],
    ]);
    metric('papo_signal_peers', 'gauge', 'Topic memberships held by sockets on this replica.', [
      ['', gauges.peers],
    ]);
    metric('papo_signal_connections_accepted_total', 'counter', 'WebSocket connections accepted.', [
      ['', this.connectionsAccepted],
    ]);
    metric('papo_signal_messages_received_total', 'counter', 'Messages received from clients.', [
      ['', this.messagesReceived],
    ]);
    metric('papo_signal_messages_forwarded_total', 'counter', 'Signal messages delivered to a socket.', [
      ['', this.signalsForwarded],
    ]);
    const codes: SignalErrorCode[] = [
      'bad_request',
      'too_large',
      'rate_limited',
      'topic_limit',
      'room_full',
      'unknown_peer',
      'unauthorized',
    ];
    metric(
      'papo_signal_messages_refused_total',
      'counter',
      'Messages and connections refused, by error code.',
      codes.map((code) => [`{code="${code}"}`, this.refused.get(code) ?? 0]),
    );
    metric('papo_signal_ping_timeouts_total', 'counter', 'Sockets closed for missing two pings.', [
      ['', this.pingTimeouts],
    ]);
    metric(
      'papo_signal_slow_clients_closed_total',
      'counter',
      'Sockets closed because what waited to be sent to them passed PAPO_SIGNAL_MAX_BUFFERED_BYTES (a client that stops reading).',
      [['', this.slowClientsClosed]],
    );
    metric(
      'papo_signal_turn_credentials_total',
      'counter',
      'Welcomes by TURN outcome: issued (credentials), limited (the per-address limit; STUN only).',
      [
        ['{outcome="issued"}', this.turnIssued],
        ['{outcome="limited"}', this.turnLimited],
      ],
    );
    metric(
      'papo_signal_redis_events_dropped_total',
      'counter',
      "Events on papo's Redis channels that no replica wrote (malformed or not papo's), dropped.",
      [['', this.redisEventsDropped]],
    );
    metric('papo_signal_bytes_received_total', 'counter', 'WebSocket payload bytes received.', [
      ['', this.bytesReceived],
    ]);
    metric('papo_signal_bytes_sent_total', 'counter', 'WebSocket payload bytes sent.', [
      ['', this.bytesSent],
    ]);
    metric('papo_signal_resident_memory_bytes', 'gauge', 'Resident set size of this process.', [
      ['', process.memoryUsage.rss()],
    ]);
    return `${lines.join('\n')}\n`;
  }
}
