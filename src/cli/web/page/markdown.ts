// papo web's Markdown, a small one of our own (ADR 0106): headings, lists, tables, fenced code with
// its language, inline code, emphasis and links, built as DOM nodes with createElement and
// textContent only, never from markup, so no body can add an element, an attribute or a script.
// A link or an image is shown as its text and its address, never followed or loaded (no <a>, no
// <img>: a javascript: or data: address, or a tracking image on a remote host, stays text).
// The body arrives already inert (ADR 0059): the server turned escapes and bidi overrides into
// their visible forms.

/** A new element with its text set as text, never parsed (the page's one way to make a node). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  cls?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls !== undefined) node.className = cls;
  return node;
}

const INLINE =
  /`([^`\n]+)`|!\[([^\]\n]*)\]\(([^)\s]+)\)|\[([^\]\n]+)\]\(([^)\s]+)\)|\*\*([^*\n]+)\*\*|__([^_\n]+)__|\*([^*\s][^*\n]*)\*|_([^_\s][^_\n]*)_/g;

/** Inline Markdown of one block's text, appended to `into`. */
export function inline(text: string, into: HTMLElement): void {
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    const start = m.index ?? 0;
    if (start > at) into.append(text.slice(at, start));
    at = start + m[0].length;
    if (m[1] !== undefined) into.append(el('code', m[1]));
    else if (m[3] !== undefined) {
      const alt = m[2] === '' ? 'image' : `image: ${m[2]}`;
      into.append(`[${alt}] `, el('span', `(${m[3]})`, 'url'));
    } else if (m[5] !== undefined) into.append(`${m[4]} `, el('span', `(${m[5]})`, 'url'));
    else if (m[6] !== undefined || m[7] !== undefined) into.append(el('strong', m[6] ?? m[7]));
    else into.append(el('em', m[8] ?? m[9]));
  }
  if (at < text.length) into.append(text.slice(at));
}

const FENCE = /^\s{0,3}(```+|~~~+)\s*([^\s`]*)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/;
const TABLE_RULE = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

function cells(row: string): string[] {
  let r = row.trim();
  if (r.startsWith('|')) r = r.slice(1);
  if (r.endsWith('|')) r = r.slice(0, -1);
  return r.split('|').map((c) => c.trim());
}

/** A body's Markdown as a fragment of DOM nodes. */
export function renderMarkdown(body: string): DocumentFragment {
  const out = document.createDocumentFragment();
  const lines = body.split('\n');
  let i = 0;
  let para: string[] = [];
  const flush = () => {
    if (para.length === 0) return;
    const p = el('p');
    inline(para.join('\n'), p);
    out.append(p);
    para = [];
  };
  while (i < lines.length) {
    const line = lines[i] as string;
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const close = fence[1] as string;
      const code: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] as string).trim().startsWith(close))
        code.push(lines[i++] as string);
      i++;
      const pre = el('pre');
      if (fence[2]) pre.append(el('span', fence[2], 'lang'));
      pre.append(el('code', code.join('\n')));
      out.append(pre);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      const level = Math.min(6, (heading[1] as string).length + 2) as 3 | 4 | 5 | 6;
      const h = el(`h${level}`);
      inline(heading[2] as string, h);
      out.append(h);
      i++;
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1] as string)) {
      flush();
      const table = el('table');
      const head = el('tr');
      for (const c of cells(line)) {
        const th = el('th');
        inline(c, th);
        head.append(th);
      }
      table.append(el('thead'));
      table.tHead?.append(head);
      const tbody = el('tbody');
      i += 2;
      while (i < lines.length && (lines[i] as string).includes('|') && (lines[i] as string).trim() !== '') {
        const tr = el('tr');
        for (const c of cells(lines[i] as string)) {
          const td = el('td');
          inline(c, td);
          tr.append(td);
        }
        tbody.append(tr);
        i++;
      }
      table.append(tbody);
      out.append(table);
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (bullet || numbered) {
      flush();
      const ordered = numbered !== null;
      const list = el(ordered ? 'ol' : 'ul');
      while (i < lines.length) {
        const item = (ordered ? NUMBERED : BULLET).exec(lines[i] as string);
        if (!item) break;
        const li = el('li');
        inline(item[1] as string, li);
        list.append(li);
        i++;
      }
      out.append(list);
      continue;
    }
    if (line.trim() === '') flush();
    else para.push(line);
    i++;
  }
  flush();
  return out;
}
