// Benchmark (not a test) of papo web's Markdown reading (ADR 0119): markdown-scan.ts against the
// regular expressions the page had before, on the security review's bodies (issue 44, W4): eight
// 48 KiB messages of `[[a](`, and lines of spaces in a heading and a table rule (the old heading
// rule is cubic: it is run on 2 KiB and 4 KiB of spaces, not 48 KiB, which would take hours).
// Usage: npm run build && node dist/bench/web-markdown.js
import { headingOf, inlineTokens, isTableRule } from '../src/cli/web/page/markdown-scan.js';
import { MAX_BODY_BYTES } from '../src/client/wire/limits.js';

const OLD_INLINE =
  /`([^`\n]+)`|!\[([^\]\n]*)\]\(([^)\s]+)\)|\[([^\]\n]+)\]\(([^)\s]+)\)|\*\*([^*\n]+)\*\*|__([^_\n]+)__|\*([^*\s][^*\n]*)\*|_([^_\s][^_\n]*)_/g;
const OLD_HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const OLD_TABLE_RULE = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

function ms(run: () => unknown): string {
  const start = performance.now();
  run();
  return `${(performance.now() - start).toFixed(1)} ms`;
}

const links = '[[a]('.repeat(Math.floor(MAX_BODY_BYTES / 5));
const rows: [string, string, string][] = [
  [
    'eight 48 KiB bodies of `[[a](` (inline)',
    ms(() => {
      for (let i = 0; i < 8; i++) inlineTokens(links);
    }),
    ms(() => {
      for (let i = 0; i < 8; i++) [...links.matchAll(OLD_INLINE)];
    }),
  ],
];
for (const kib of [2, 4]) {
  const line = `# a${' '.repeat(kib * 1024)}x`;
  rows.push([`heading, ${kib} KiB of spaces`, ms(() => headingOf(line)), ms(() => OLD_HEADING.exec(line))]);
}
const big = `# a${' '.repeat(MAX_BODY_BYTES - 8)}x`;
rows.push(['heading, 48 KiB of spaces', ms(() => headingOf(big)), 'not run (hours)']);
const rule = `| -${' '.repeat(MAX_BODY_BYTES - 8)}x`;
rows.push(['table rule, 48 KiB of spaces', ms(() => isTableRule(rule)), ms(() => OLD_TABLE_RULE.test(rule))]);

console.log(`node ${process.version}`);
console.log('| input | markdown-scan.ts | the old regular expression |');
console.log('| --- | --- | --- |');
for (const [what, now, before] of rows) console.log(`| ${what} | ${now} | ${before} |`);
