// What the five tool handlers share: the steps a tool is made of (ToolImplementation), the result
// and context types with the cancellation and unavailability errors the tool server tells apart
// (tool-result.ts, re-exported here), and the room facts more than one tool reads (reviewers, the
// network view, the name-trust view, who papo is still linking to). The wording of every text
// stays in texts.ts.

import type { RoomMember } from '../../client/member-api.js';
import { noPathSummary } from '../../client/net/health.js';
import type { Envelope } from '../../client/wire/messages.js';
import { isLoopbackSignalUrl } from '../../client/wire/signal-url.js';
import type { ChannelPush } from '../channel-pump.js';
import { fitMessages } from '../result-fit.js';
import type { SendWindow } from '../send-rate.js';
import type { NetworkView, TrustView } from '../texts.js';
import type { Args } from '../tool-args.js';
import { CONSUMED, type ToolContext, type ToolResult, textResult, throwIfCancelled } from '../tool-result.js';

// What the handlers share with the tool server.
export * from '../tool-result.js';

export interface ToolDeps {
  /** Resolves to the open member, or rejects with MemberUnavailable. */
  member(signal: AbortSignal): Promise<RoomMember>;
  sendWindow: SendWindow;
  ackTimeoutMs: number;
  progressIntervalMs: number;
  /** PAPO_RELAY is set (a variable this papo does not read; docs/transport.md, "Network health"). */
  papoRelaySet?: boolean;
  /** The session's pushes: which were pushed, and whether pushes reach the model (ADR 0066). */
  channel: ChannelPush;
}

/** A tool call as the tool server makes it (tools.ts wraps each ToolImplementation in one). */
export type ToolHandler = (args: Args, ctx: ToolContext) => Promise<ToolResult>;

/**
 * What a tool does, in the steps tools.ts runs it in. The start every call shares (the check that
 * it takes each argument given, the member's open, the check for a cancellation) is written once
 * there; a tool gives its own steps around it.
 */
export interface ToolImplementation<P> {
  /** The tool's own checks of its arguments, before the member opens: a bad one never opens it. */
  parse(args: Args): P;
  /** A result that ends the call before the member opens (`send` refuses a credential), or null. */
  refuse?(parsed: P): ToolResult | null;
  /** The call itself, on the open member. */
  run(parsed: P, member: RoomMember, ctx: ToolContext): Promise<ToolResult>;
}

/** Formats what fits, consumes exactly that, and says how many stay unread (`wait`, `inbox`). */
export async function deliver(
  deps: Pick<ToolDeps, 'channel'>,
  member: RoomMember,
  messages: Envelope[],
  signal: AbortSignal,
): Promise<ToolResult> {
  // A message pushed in this session says so in its header: the model may have seen it (ADR 0066).
  const fitted = fitMessages(messages, undefined, (id) => deps.channel.pushedMark(id));
  // Consume only if the result will be sent: a cancelled call gets no response, so the
  // messages must stay unread for the next `wait`/`inbox`.
  throwIfCancelled(signal);
  await member.consume(fitted.included.map((m) => m.id));
  // From here the messages are read. A cancellation that arrives during the write, or after the
  // result left, puts them back (tool-server.ts): the client drops the result of a cancelled call.
  const result = textResult(fitted.text);
  CONSUMED.set(result, fitted.included);
  return result;
}

/** Known members whose person reviews incoming messages (ADR 0081), among those `wanted`. */
export function reviewersAmong(member: RoomMember, wanted: (name: string) => boolean): string[] {
  const names = member
    .members()
    .filter((m) => m.reviews === true && m.kind === 'agent' && wanted(m.name))
    .map((m) => m.name);
  return [...new Set(names)];
}

/** The member's network as the warnings need it (`send` when nobody confirmed, `status`). */
export async function networkView(member: RoomMember): Promise<NetworkView> {
  const health = await member.network();
  let loopback = false;
  try {
    loopback = health.signalUrl !== '' && isLoopbackSignalUrl(health.signalUrl);
  } catch {
    // not a URL: nothing to say about it
  }
  return {
    signalUrl: health.signalUrl,
    loopback,
    knowsMembers: member.members().length > 0,
    signal: health.signal,
    transport: health.transport,
    noPath: noPathSummary(health.signal, member.members()),
  };
}

/**
 * Known members offline to this one but on the signal server's topic, whom papo is linking to now
 * (not yet past NO_PATH_AFTER_MS: then the no-path warning says why no link forms): they are not
 * "offline" (issue 40). Names once each, none that is online under another key.
 */
export function linkingNames(member: RoomMember, network: NetworkView): string[] {
  const onTopic = new Set(network.signal.peers ?? []);
  const online = new Set(member.onlineNames().map((n) => n.toLowerCase()));
  const noPath = new Set((network.noPath?.names ?? []).map((n) => n.toLowerCase()));
  const names: string[] = [];
  for (const m of member.members()) {
    const key = m.name.toLowerCase();
    if (m.online || !onTopic.has(m.node) || online.has(key) || noPath.has(key)) continue;
    if (!names.some((n) => n.toLowerCase() === key)) names.push(m.name);
  }
  return names;
}

/**
 * What the agent must know of names in the room: its own taken, or another's claimed (ADR 0064).
 * Copied as it is now: the member counts an impostor's frames in the same object.
 */
export function trustView(member: RoomMember): TrustView {
  const impostors = member.impostors().map(({ name, kind, node, frames }) => ({ name, kind, node, frames }));
  return { name: member.name, takenBy: member.nameTakenBy(), impostors };
}
