// A person's say run to its end and told as lines, not printed: what papo web answers the page, and
// how papo review tells a rejected message's sender why. The same steps and words as `papo say`
// (commands/say.ts: handed to the running papo mcp, or through an ephemeral member closed here).
import type { OpenedMember } from '../../client/open-member.js';
import { newPersonSay } from '../../client/person/person-say.js';
import { outcomeText, sayOnce } from '../commands/say.js';
import { type CliContext, checkedProfile, lang } from '../context.js';
import { errorText } from '../i18n.js';
import type { ActionResult } from '../web/api.js';

/** How long a closing ephemeral member may take before the answer goes anyway. */
const CLOSE_WAIT_MS = 2000;

/**
 * Says `body` (checked already: actions/say-input.ts) as the person; `ok` with who has it, or the
 * reason nobody does after the network's notes. A delivered say carries its id and who confirmed.
 */
export async function sayResult(
  ctx: CliContext,
  body: string,
  to: string | undefined,
  replyTo: string | undefined,
): Promise<ActionResult> {
  let member: OpenedMember | undefined;
  try {
    const said = await sayOnce(ctx, newPersonSay(body, to, replyTo), (m) => {
      member = m;
    });
    const words = outcomeText(ctx, said.outcome, checkedProfile(ctx));
    if (!words.ok) return { ok: false, lines: [...said.notes, words.message] };
    const o = said.outcome;
    return {
      ok: true,
      lines: words.lines,
      ...(o.t === 'delivered' ? { said: { id: o.id, ackedBy: o.ackedBy } } : {}),
    };
  } catch (err) {
    return { ok: false, lines: [errorText(err, lang(ctx))] };
  } finally {
    await closeMember(member);
  }
}

/** Closes an ephemeral member, waiting CLOSE_WAIT_MS at most. */
export async function closeMember(member: OpenedMember | undefined): Promise<void> {
  if (member === undefined) return;
  await Promise.race([
    member.member.close().catch(() => {}),
    new Promise((r) => setTimeout(r, CLOSE_WAIT_MS)),
  ]);
}
