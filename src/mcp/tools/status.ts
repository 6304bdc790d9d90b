// `status` (docs/mcp.md, "Tools"): who this member is, the warnings, the peers, the counts.

import { shortId } from '../../client/log.js';
import type { RoomMember } from '../../client/member-api.js';
import { fitStatus } from '../result-fit.js';
import {
  heldForReview,
  type NetworkView,
  networkWarnings,
  PAPO_RELAY_NOTE,
  STATUS_NO_PEERS,
  STATUS_NOTICE,
  STATUS_PEERS,
  STATUS_STILL_CONNECTING,
  statusCounts,
  statusHeader,
  statusPeerLine,
  statusPush,
  statusQueuedFor,
  statusTransportRestarts,
  trustWarnings,
} from '../texts.js';
import {
  networkView,
  type ToolDeps,
  type ToolImplementation,
  textResult,
  throwIfCancelled,
  trustView,
} from './shared.js';

/** How long `status` waits, at most, for a room it has not met yet (see `settled`). */
export const STATUS_SETTLE_MS = 3000;

export function statusTool(deps: ToolDeps): ToolImplementation<void> {
  return {
    parse: () => {},
    run: async (_, member, ctx) => {
      const { network, meeting } = await settled(member, ctx.signal, STATUS_SETTLE_MS);
      throwIfCancelled(ctx.signal);
      const peers = member.members();
      // Who is on the signal server's topic now: an offline member there is not gone (issue 40).
      const onTopic = new Set(network.signal.peers ?? []);
      const head = [statusHeader(member.name, member.roomId, shortId(member.nodeId))];
      head.push(...trustWarnings(trustView(member)), ...networkWarnings(network));
      head.push(peers.length > 0 ? STATUS_PEERS : meeting ? STATUS_STILL_CONNECTING : STATUS_NO_PEERS);
      const tail = [statusCounts(member.unread().length, member.queuedCount())];
      // Its own person's review (ADR 0081): how many messages wait for them, so it can say so.
      const held = member.held().length;
      if (member.reviewing() || held > 0) tail.push(heldForReview(held, member.reviewing()));
      // Who the queue waits for (ADR 0063); in a pair it can only be the other one, so the text stays
      // as docs/mcp.md ("Tools") gives it.
      const waiting = member.queuedFor?.() ?? [];
      if (waiting.length > 0 && new Set(peers.map((p) => p.name.toLowerCase())).size > 1) {
        // `papo forget` is for members who left: not offered when everyone waited for is on the topic.
        const there = new Set(peers.filter((p) => onTopic.has(p.node)).map((p) => p.name.toLowerCase()));
        tail.push(
          statusQueuedFor(
            waiting,
            waiting.some((w) => w.name !== '' && !there.has(w.name.toLowerCase())),
          ),
        );
      }
      const restart = network.transport.lastRestart;
      if (restart !== undefined && network.transport.state === 'running') {
        tail.push(
          statusTransportRestarts(network.transport.restarts, (Date.now() - restart.at) / 1000, restart.why),
        );
      }
      // How messages reach this agent: the route of this session, or pull (ADR 0118).
      tail.push(statusPush(deps.channel.view()));
      if (deps.papoRelaySet === true) tail.push(PAPO_RELAY_NOTE);
      // An `about` is room text: the notice comes first whenever one is shown (ADR 0059).
      if (peers.some((p) => p.about !== undefined && p.about !== '')) head.unshift(STATUS_NOTICE);
      const lines = peers.map((p) => ({ line: statusPeerLine(p, onTopic.has(p.node)), online: p.online }));
      return textResult(fitStatus(head, lines, tail));
    },
  };
}

/**
 * The network for `status`, once the room has shown itself. A member that knows nobody yet may
 * just have started: the signal server has not answered, or those already on the topic have not
 * said hello over their new links (Claude Code asks for status within moments of starting papo).
 * So, knowing nobody, it waits — at most `ms` — until a member is known, the signal server says
 * nobody else is there, or it refuses or cannot be reached (the warnings say so). `meeting` is true
 * when the wait ran out with the room still being met (ADR 0065).
 */
async function settled(
  member: RoomMember,
  signal: AbortSignal,
  ms: number,
): Promise<{ network: NetworkView; meeting: boolean }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const network = await networkView(member);
    if (network.knowsMembers) return { network, meeting: false };
    const s = network.signal;
    const alone = s.joined && (s.peers ?? []).length === 0;
    const refused = !s.joined && s.problem !== undefined;
    const transportDown = network.transport.state !== 'running' && network.transport.state !== 'starting';
    if (alone || refused || transportDown) return { network, meeting: false };
    if (Date.now() >= deadline || signal.aborted) return { network, meeting: true };
    await new Promise((r) => setTimeout(r, 100));
  }
}
