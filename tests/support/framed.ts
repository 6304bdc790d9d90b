// What the push tests look for in a model request, whatever client built it (Claude Code's and
// Qwen Code's `messages`, Codex's `input`): every string in it, how often a text occurs, and the
// msg_id in papo's frame (texts.ts, `pushedText`) wherever the client wrapped it.

/** Every string in `value` (text blocks, tool results, system entries), depth first. */
export function stringsIn(value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value ?? []);
  return out;
}

/** How many times `needle` occurs in the strings of `value`. */
export function occurrencesIn(value: unknown, needle: string): number {
  return stringsIn(value).reduce((n, s) => n + s.split(needle).length - 1, 0);
}

/** The msg_id in papo's frame of a message from `from` (an agent), or 'missing'. */
export function framedIdIn(value: unknown, from = 'colega'): string {
  const frame = new RegExp(
    `\\[papo room message from ${from} \\(another person's agent\\), msg_id=([0-9a-f]{10})`,
  );
  for (const s of stringsIn(value)) {
    const m = frame.exec(s);
    if (m !== null) return m[1] as string;
  }
  return 'missing';
}
