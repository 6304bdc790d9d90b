// The Node majors papo supports (ADR 0111), and when each line ends: what `papo doctor` and
// `papo --version` say of the Node that runs papo.

/**
 * The oldest Node papo supports: package.json's `engines` (a test holds the two together). 22.12,
 * not 22.0: what the packages that left Node 20 behind ask for (commander 15, puppeteer-core 25).
 */
export const NODE_MINIMUM = { major: 22, minor: 12 } as const;

/** The majors CI runs papo on (.ci/run). */
export const NODE_TESTED_MAJORS = [22, 24, 26] as const;

/**
 * The end of life of each major, from the Node.js release schedule (github.com/nodejs/Release):
 * an even major ends 30 months after its release (the April three years on), an odd one after 8.
 */
export const NODE_END_OF_LIFE: Readonly<Record<number, string>> = {
  18: '2025-04-30',
  19: '2023-06-01',
  20: '2026-04-30',
  21: '2024-06-01',
  22: '2027-04-30',
  23: '2025-06-01',
  24: '2028-04-30',
  25: '2026-06-01',
  26: '2029-04-30',
};

export type NodeVerdict =
  | { kind: 'supported'; major: number; endOfLife: string | undefined; tested: boolean }
  | { kind: 'too-old'; major: number; endOfLife: string | undefined }
  | { kind: 'end-of-life'; major: number; endOfLife: string };

/** `engines` as people read it: "22.12". */
export const NODE_MINIMUM_TEXT = `${NODE_MINIMUM.major}.${NODE_MINIMUM.minor}`;

/** What papo makes of Node `version` ("v24.22.3") on `today` ("2026-12-07"). */
export function judgeNode(version: string, today: string): NodeVerdict {
  const [major = 0, minor = 0] = version
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10));
  const endOfLife = NODE_END_OF_LIFE[major];
  if (major < NODE_MINIMUM.major || (major === NODE_MINIMUM.major && minor < NODE_MINIMUM.minor))
    return { kind: 'too-old', major, endOfLife };
  if (endOfLife !== undefined && today > endOfLife) return { kind: 'end-of-life', major, endOfLife };
  return {
    kind: 'supported',
    major,
    endOfLife,
    tested: (NODE_TESTED_MAJORS as readonly number[]).includes(major),
  };
}

/** `papo --version`: papo's version, and the Node and platform it runs on (for a bug report). */
export function versionLine(papoVersion: string): string {
  return `papo ${papoVersion} on Node.js ${process.version} (${process.platform} ${process.arch})`;
}
