// Channel push (the book, "Mensagens empurradas", where its own ADR 0002 decided it): every message the member receives
// becomes a `notifications/claude/channel`, which Claude Code renders as
//   <channel source="papo" from=".." msg_id=".." sender_kind="..">body</channel>
// The pump starts only after notifications/initialized and once the member is open; it first
// pushes the unread messages left from earlier sessions, then each new one. A push never marks
// anything read: Claude Code drops channel events silently when channels are off, so `wait` and
// `inbox` must still find the message.
import { inertText } from '../client/inert-text.js';
import type { RoomMember } from '../client/member-api.js';
import type { Envelope } from '../client/messages.js';

export const CHANNEL_METHOD = 'notifications/claude/channel';

export interface ChannelParams {
  content: string;
  /** Keys only letters, digits and underscores (Claude Code turns them into tag attributes). */
  meta: Record<string, string>;
}

export function channelParams(msg: Envelope): ChannelParams {
  const meta: Record<string, string> = { from: msg.from, msg_id: msg.id, sender_kind: msg.kind };
  if (msg.reply_to !== undefined) meta.reply_to = msg.reply_to;
  if (msg.to !== undefined) meta.to = msg.to;
  // The body is room text: its control and invisible characters are escaped (ADR 0059). It keeps
  // its lines as they are: the <channel> tag frames it, and Claude Code escapes a </channel> in it.
  return { content: inertText(msg.body), meta };
}

export interface ChannelPump {
  stop(): void;
}

export function startChannelPump(member: RoomMember, push: (params: ChannelParams) => void): ChannelPump {
  // Ids pushed in this session: the startup sweep and a live event can see the same message.
  const pushed = new Set<string>();
  const pushOnce = (msg: Envelope) => {
    if (pushed.has(msg.id)) return;
    pushed.add(msg.id);
    push(channelParams(msg));
  };
  // Subscribe before the sweep so a message arriving in between is not missed.
  member.on('message', pushOnce);
  for (const msg of member.unread()) pushOnce(msg);
  return {
    stop: () => {
      member.off('message', pushOnce);
    },
  };
}
