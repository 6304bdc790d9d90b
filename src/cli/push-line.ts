// The line `papo status` and `papo doctor` print of how room messages reach the agent: the push
// route its running papo mcp chose (ADR 0118), in the person's language. The detail of a door
// that is off comes from that papo mcp (the model's words for it, in English) and is escaped.
import type { PushSeen } from '../client/person/handed-say.js';
import { inertText } from '../client/wire/inert-text.js';
import type { Messages } from './i18n.js';

export function pushLine(t: Messages, push: PushSeen): string {
  const name = (door: string) => t.pushDoorNames[door] ?? inertText(door, 'line');
  if (push.route !== 'channel' && push.route !== 'none') return t.pushDoor(name(push.route));
  if (push.route === 'channel' && (push.channelsAsked || push.proven)) return t.pushChannels;
  const off = push.doorOff;
  if (push.door === undefined || off === undefined) return t.pushPull(t.pushNoDoor);
  const detail = inertText(off.detail ?? off.why, 'line');
  return t.pushPull(`${name(push.door)}: ${off.why === 'failed' ? t.pushFailed(detail) : detail}`);
}
