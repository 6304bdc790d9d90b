// After tsc: the transport process's code as one file (ADR 0110). The transport process is forked
// for every member that links (papo mcp, a papo say of its own, again after a freeze), and what it
// loads before its first link lies on the way to that link: loaded as some forty ES modules (papo's
// network code, ws, @noble/hashes) it started in 176-210 ms on the EPYC, as one file in 140-163.
// The bundle is made from tsc's own output (the same JavaScript the tests import), with
// node-datachannel and ws's optional native helpers left outside it, and its source map chained
// through tsc's, so that coverage and stack traces point at src/. The map keeps papo's sources
// only: the packages bundled in (ws, @noble/hashes) would otherwise be counted as papo's code by
// the suite's coverage (c8 reads every source a map names).
//   node scripts/bundle-transport.mjs [DIST]   DIST: the build's folder (default: the checkout's dist)
//   (postbuild.mjs runs it, in `npm run build`, which is also Stryker's sandbox build)
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** Writes DIST/src/client/transport/transport-child.bundle.js (and its map where tsc wrote maps). */
export async function bundleTransport(dist) {
  const entry = join(dist, 'src/client/transport/transport-child.js');
  // Kept in memory, so that the map is written once, without the packages' sources.
  const { outputFiles, metafile } = await build({
    entryPoints: [entry],
    // The paths esbuild writes above each module are relative to this folder: the build's own, so
    // that they do not name the folder it was made in (the package's is a new temporary one each
    // time, and two packages of one commit must be the same bytes, ADR 0100).
    absWorkingDir: resolve(dist),
    metafile: true,
    outfile: join(dist, 'src/client/transport/transport-child.bundle.js'),
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // Native: loaded from node_modules as they are (ws tries the two helpers and goes on without).
    external: ['node-datachannel', 'bufferutil', 'utf-8-validate'],
    // The packages come from the checkout's node_modules, also for a build outside it (the
    // package's, scripts/package.mjs, compiles into a folder of its own).
    nodePaths: [fileURLToPath(new URL('../node_modules', import.meta.url))],
    // ws is CommonJS and requires node's modules: an ES module has no `require` of its own.
    banner: {
      js: "import { createRequire as papoRequire } from 'node:module';\nconst require = papoRequire(import.meta.url);",
    },
    // A build without maps (the package's, ADR 0100) makes a bundle without one.
    sourcemap: existsSync(`${entry}.map`) ? 'linked' : false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const inputs = new Set(Object.keys(metafile.inputs));
  for (const file of outputFiles)
    writeFileSync(
      file.path,
      file.path.endsWith('.map')
        ? JSON.stringify(withoutPackages(JSON.parse(file.text)))
        : withStablePaths(file.text, inputs),
    );
}

/**
 * The bundle with each module's heading comment (`// ../node_modules/ws/lib/sender.js`) naming a
 * package's file from its `node_modules/`, wherever that folder is (the checkout's, reached from a
 * build elsewhere): the same bytes from any folder. Lines stay where they were, for the map.
 */
export function withStablePaths(text, inputs) {
  return text.replace(/^\/\/ (\S+)$/gm, (line, path) => {
    if (!inputs.has(path)) return line;
    const at = path.lastIndexOf('node_modules/');
    return at === -1 ? line : `// ${path.slice(at)}`;
  });
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A source map (v3) without the sources under node_modules and every mapping into them. */
export function withoutPackages(map) {
  const kept = map.sources.map((source) => !/(^|\/)node_modules\//.test(source));
  const index = [];
  let next = 0;
  for (const keep of kept) index.push(keep ? next++ : -1);
  // The fields of a segment are deltas: from the line's previous segment for the column, from the
  // previous segment of the whole map for the source, its line and column, and the name.
  const last = [0, 0, 0, 0];
  const out = [0, 0, 0, 0];
  const lines = map.mappings.split(';').map((line) => {
    let column = 0;
    let outColumn = 0;
    const segments = [];
    for (const segment of line === '' ? [] : line.split(',')) {
      const fields = decodeVlq(segment);
      column += fields[0];
      for (let i = 1; i < fields.length; i++) last[i - 1] += fields[i];
      // A segment with a source into a package goes; one with no source (a single field) stays.
      if (fields.length > 1 && index[last[0]] === -1) continue;
      const absolute = [index[last[0]], last[1], last[2], last[3]];
      const deltas = [column - outColumn];
      for (let i = 1; i < fields.length; i++) {
        deltas.push(absolute[i - 1] - out[i - 1]);
        out[i - 1] = absolute[i - 1];
      }
      segments.push(encodeVlq(deltas));
      outColumn = column;
    }
    return segments.join(',');
  });
  const keep = (_, i) => kept[i];
  return {
    ...map,
    sources: map.sources.filter(keep),
    ...(map.sourcesContent ? { sourcesContent: map.sourcesContent.filter(keep) } : {}),
    mappings: lines.join(';'),
  };
}

function decodeVlq(text) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

function encodeVlq(values) {
  let text = '';
  for (const v of values) {
    let rest = v < 0 ? (-v << 1) | 1 : v << 1;
    do {
      let digit = rest & 31;
      rest >>>= 5;
      if (rest > 0) digit |= 32;
      text += BASE64[digit];
    } while (rest > 0);
  }
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  await bundleTransport(resolve(process.argv[2] ?? join(root, 'dist')));
}
