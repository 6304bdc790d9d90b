// Who a queued message is still owed to (ADR 0063, docs/delivery.md). Were the first ack to clear a
// message to the whole room, a member that was offline might never get it. So a message without
// `to` is owed to every member the sender knows when it sends; each one's ack takes that name off,
// and the message leaves the outbox once nobody is owed. With `to` it is owed to the recipient
// alone. When the sender knows nobody, `owed` is absent and the first ack clears it
// (docs/delivery.md, "The rules").

import { checkedEnvelope } from '../wire/frames.js';
import type { Envelope } from '../wire/messages.js';
import { isMemberName, sameName } from '../wire/names.js';

/** One entry of outbox.json: the envelope exactly as sent, and who has not acked it yet. */
export interface QueuedMessage extends Envelope {
  /** Names still owed (compared case-insensitively); absent = the first valid ack clears it. */
  owed?: string[];
}

/**
 * Who a message is owed to when it is sent: the recipient with `to`; else every known member
 * other than the sender itself (each name once); undefined when that leaves nobody.
 */
export function owedAtSend(known: Iterable<string>, self: string, to?: string): string[] | undefined {
  if (to !== undefined) return [to];
  const owed: string[] = [];
  for (const name of known) {
    if (sameName(name, self) || owed.some((n) => sameName(n, name))) continue;
    owed.push(name);
  }
  return owed.length > 0 ? owed : undefined;
}

/** The envelope of a queued message (what goes on the wire and in the log). */
export function envelopeOfQueued(queued: QueuedMessage): Envelope {
  const { owed: _owed, ...envelope } = queued;
  return envelope;
}

/** Whether `by`'s ack counts for this message: it is owed to `by`, or (no `owed`) it may clear it. */
export function ackCounts(queued: QueuedMessage, by: string): boolean {
  if (queued.owed !== undefined) return queued.owed.some((n) => sameName(n, by));
  return queued.to === undefined || sameName(queued.to, by);
}

/**
 * The message after `by`'s ack: null when nobody is owed any more (it leaves the outbox), the same
 * object when the ack does not count, else a copy without `by`.
 */
export function afterAck(queued: QueuedMessage, by: string): QueuedMessage | null {
  if (!ackCounts(queued, by)) return queued;
  if (queued.owed === undefined) return null;
  const owed = queued.owed.filter((n) => !sameName(n, by));
  return owed.length === 0 ? null : { ...queued, owed };
}

/**
 * The outbox once `name` is no longer waited for (`papo forget`): taken off every `owed` list, and
 * messages owed to it alone removed. A message with `to` = name and no `owed` (an old outbox) goes
 * too. `released` counts the messages that no longer wait for `name`.
 */
export function forgetInOutbox(
  outbox: readonly QueuedMessage[],
  name: string,
): { outbox: QueuedMessage[]; released: number } {
  let released = 0;
  const kept: QueuedMessage[] = [];
  for (const m of outbox) {
    const owedToName =
      m.owed !== undefined
        ? m.owed.some((n) => sameName(n, name))
        : m.to !== undefined && sameName(m.to, name);
    if (!owedToName) {
      kept.push(m);
      continue;
    }
    released++;
    const owed = (m.owed ?? []).filter((n) => !sameName(n, name));
    if (owed.length > 0) kept.push({ ...m, owed });
  }
  return { outbox: kept, released };
}

/** How many queued messages wait for each name, most first ("anyone" for a message with no `owed`). */
export function owedSummary(outbox: readonly QueuedMessage[]): { name: string; count: number }[] {
  const counts = new Map<string, { name: string; count: number }>();
  for (const m of outbox) {
    const names = m.owed ?? [m.to ?? ''];
    for (const name of names) {
      const key = name.toLowerCase();
      const entry = counts.get(key) ?? { name, count: 0 };
      entry.count++;
      counts.set(key, entry);
    }
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}

/**
 * Whether outbox.json holds a list of queued messages: each a well-formed envelope (the checks of
 * a msg frame: checkedEnvelope) whose `owed`, if any, is a list of member names. Anything else
 * would reach the acks, `papo status` and `papo forget` with fields of the wrong type.
 */
export function isQueuedMessageList(value: unknown): value is QueuedMessage[] {
  return (
    Array.isArray(value) &&
    value.every((m) => {
      if (checkedEnvelope(m) === null) return false;
      const owed = (m as QueuedMessage).owed;
      return owed === undefined || (Array.isArray(owed) && owed.every(isMemberName));
    })
  );
}
