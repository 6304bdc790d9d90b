// papo web's Markdown, a small one of our own (ADR 0106): headings, lists, tables, fenced code with
// its language, inline code, emphasis and links, built as DOM nodes with createElement and
// textContent only, never from markup, so no body can add an element, an attribute or a script.
// A link or an image is shown as its text and its address, never followed or loaded (no <a>, no
// <img>: a javascript: or data: address, or a tracking image on a remote host, stays text).
// The body arrives already inert (ADR 0059): the server turned escapes and bidi overrides into
// their visible forms. What each line and each piece of text is, markdown-scan.ts reads in one
// pass (ADR 0119); this file only builds the nodes.
import { headingOf, inlineTokens, isTableRule, listItemOf } from './markdown-scan.js';

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

/** Inline Markdown of one block's text, appended to `into` (the forms: markdown-scan.ts). */
export function inline(text: string, into: HTMLElement): void {
  for (const piece of inlineTokens(text)) {
    switch (piece.t) {
      case 'text':
        into.append(piece.text);
        break;
      case 'code':
        into.append(el('code', piece.text));
        break;
      case 'image':
        into.append(
          `[${piece.alt === '' ? 'image' : `image: ${piece.alt}`}] `,
          el('span', `(${piece.url})`, 'url'),
        );
        break;
      case 'link':
        into.append(`${piece.text} `, el('span', `(${piece.url})`, 'url'));
        break;
      case 'strong':
        into.append(el('strong', piece.text));
        break;
      case 'em':
        into.append(el('em', piece.text));
        break;
    }
  }
}

// One pass over the line: no quantifier here can meet another over the same characters.
const FENCE = /^\s{0,3}(```+|~~~+)\s*([^\s`]*)/;

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
    const heading = headingOf(line);
    if (heading) {
      flush();
      const level = Math.min(6, heading.level + 2) as 3 | 4 | 5 | 6;
      const h = el(`h${level}`);
      inline(heading.text, h);
      out.append(h);
      i++;
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && isTableRule(lines[i + 1] as string)) {
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
    const bullet = listItemOf(line, false);
    const numbered = bullet === null ? listItemOf(line, true) : null;
    if (bullet !== null || numbered !== null) {
      flush();
      const ordered = numbered !== null;
      const list = el(ordered ? 'ol' : 'ul');
      while (i < lines.length) {
        const item = listItemOf(lines[i] as string, ordered);
        if (item === null) break;
        const li = el('li');
        inline(item, li);
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
