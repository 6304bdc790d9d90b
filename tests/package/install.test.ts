// papo as a user gets it (ADR 0100): the tarball `npm run package` makes, installed with npm into an
// empty prefix, with a HOME of its own and a PATH that holds node, npm and sh and no compiler, then
// run from that installed copy: `papo --version`, `papo demo`, `papo mcp` through initialize and a
// tool call, and `npm uninstall` taking it all away. Also what the tarball holds (everything papo
// and an operator need, no source map, nothing that points at a file it lacks, no script npm runs
// at a user's install), `npm publish --dry-run` on it, and a lock that agrees with package.json
// and that every npm the engines admit leaves as it is.
//
// npm fetches papo's dependencies from the registry, through the npm cache of whoever runs the
// tests (--prefer-offline: after the checkout's own `npm install`, every package is there, and the
// install takes a few seconds); without the registry and without them cached, the test says so and
// skips.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { test } from 'node:test';
import { freePort } from '../../src/cli/free-port.js';
import { tempDir } from '../support/files.js';
import { ROOT } from '../support/papo.js';
import { RpcClient, resultText } from '../support/rpc-client.js';
import { runChild } from '../support/run-child.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** What npm needs from this machine to reach the registry (a CA, a proxy), and nothing else. */
function networkEnv(): NodeJS.ProcessEnv {
  const names = ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR'];
  for (const p of ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY']) names.push(p, p.toLowerCase());
  return Object.fromEntries(names.filter((n) => process.env[n]).map((n) => [n, process.env[n]]));
}

/** A folder with node, npm and sh (npm runs scripts with it) and nothing else: no cc, make, python. */
function bareBin(dir: string): string {
  const bin = join(dir, 'bin-bare');
  mkdirSync(bin);
  // npm as this machine has it: the file its command on PATH leads to.
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .map((d) => join(d, 'npm'))
    .find((f) => existsSync(f));
  if (onPath === undefined) throw new Error('npm is not on PATH');
  const npmCli = realpathSync(onPath);
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync(npmCli, join(bin, 'npm'));
  symlinkSync('/bin/sh', join(bin, 'sh'));
  return bin;
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

/** Every relative module a built file names (static and dynamic imports, new URL(..., import.meta.url)). */
function relativeModules(source: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g,
    /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
    /\bimport\s+['"](\.{1,2}\/[^'"]+)['"]/g,
    /new URL\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) out.push(m[1] as string);
  return out;
}

test('the lock agrees with package.json and is one that npm 10 and npm 11 both leave as it is', () => {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  const top = lock.packages[''];
  // What npm compares to decide whether the lock is up to date, and rewrites when it is not.
  for (const key of [
    'name',
    'version',
    'license',
    'dependencies',
    'devDependencies',
    'optionalDependencies',
    'engines',
    'os',
    'cpu',
    'bin',
  ])
    assert.deepEqual(top[key], manifest[key], `package-lock.json's ${key} differs from package.json's`);
  // npm 10 (the one Node 20 and 22 ship with) does not know the `libc` field npm 11 writes, and drops
  // it at every `npm install`: a lock with it comes out of a fresh clone's install changed.
  const withLibc = Object.entries(lock.packages)
    .filter(([, entry]) => (entry as { libc?: unknown }).libc !== undefined)
    .map(([path]) => path);
  assert.deepEqual(withLibc, [], 'write the lock with npm 10 (npx npm@10 install --package-lock-only)');
});

test('npm pack and npm publish in the checkout are refused, and say to make the package with npm run package', async (t) => {
  // In a copy of the checkout's package.json and script, so that a guard that let npm through would
  // not rebuild the checkout's dist/ under the other tests.
  const copy = tempDir(t, 'papo-package-guard-');
  mkdirSync(join(copy, 'scripts'));
  copyFileSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
  copyFileSync(join(ROOT, 'scripts', 'package.mjs'), join(copy, 'scripts', 'package.mjs'));
  for (const command of [
    ['pack', '--dry-run'],
    ['publish', '--dry-run'],
  ]) {
    const r = await runChild(NPM, command, { cwd: copy, timeoutMs: 60_000 });
    assert.notEqual(r.code, 0, `npm ${command.join(' ')} went through: ${r.stdout}`);
    assert.match(r.stderr, /error: papo's package is made with `npm run package`/);
    assert.match(
      r.stderr,
      new RegExp(`npm run package && npm publish papo-${manifest.version.replaceAll('.', '\\.')}\\.tgz`),
    );
  }
});

test('the packed tarball is the same bytes when made again from another folder, installs with npm into an empty prefix without a compiler, runs, and uninstalls', async (t) => {
  const tmp = tempDir(t, 'papo-package-test-');
  // As the README says to make it, through npm (which also runs a script's pre- and post- scripts).
  const packed = await runChild(NPM, ['run', 'package', '--', '--destination', tmp], {
    cwd: ROOT,
    timeoutMs: 240_000,
  });
  assert.equal(packed.code, 0, packed.stderr);
  const tarball = packed.stdout.trim().split('\n').pop() as string;
  assert.equal(tarball, join(tmp, `papo-${manifest.version}.tgz`));
  // Made again, run from another folder: the same bytes (ADR 0100, a release reproducible from its
  // tag). The transport's bundle once named the temporary folder each package is compiled in.
  const again = join(tmp, 'again');
  mkdirSync(again);
  const second = await runChild(
    process.execPath,
    [join(ROOT, 'scripts', 'package.mjs'), '--destination', again],
    { cwd: again, timeoutMs: 240_000 },
  );
  assert.equal(second.code, 0, second.stderr);
  assert.equal(
    sha256(join(again, `papo-${manifest.version}.tgz`)),
    sha256(tarball),
    'two packages of one commit differ',
  );

  // npm publish --dry-run on it: nothing npm would correct or warn about, but that nobody is
  // logged in to the registry here.
  const home = join(tmp, 'home');
  mkdirSync(home);
  const bin = bareBin(tmp);
  const env = { PATH: bin, HOME: home, LANG: 'C', ...networkEnv() };
  const dry = await runChild(NPM, ['publish', '--dry-run', tarball], { env, cwd: tmp, timeoutMs: 120_000 });
  assert.equal(dry.code, 0, dry.stderr);
  const warnings = (dry.stdout + dry.stderr)
    .split('\n')
    .filter((l) => /^npm warn/.test(l) && !/requires you to be logged in/.test(l));
  assert.deepEqual(warnings, []);

  // Installed as a user installs it. The cache is the one of whoever runs the tests.
  const cache = execFileSync(NPM, ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
  const prefix = join(tmp, 'prefix');
  const install = await runChild(
    NPM,
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--cache',
      cache,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--fetch-retries=1',
      '--fetch-timeout=60000',
      tarball,
    ],
    { env, cwd: tmp, timeoutMs: 300_000 },
  );
  if (
    install.code !== 0 &&
    /code (ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|ENETUNREACH)/.test(install.stderr)
  ) {
    t.skip(
      `the registry cannot be reached and papo's dependencies are not cached: ${install.stderr.split('\n')[0]}`,
    );
    return;
  }
  assert.equal(install.code, 0, install.stdout + install.stderr);
  // npm 11 lists the install-time scripts of what it installed; papo has none.
  assert.doesNotMatch(install.stderr, /papo@[^\s]+ \(/);

  const installed = join(prefix, 'lib', 'node_modules', 'papo');
  const shipped = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  assert.equal(shipped.scripts, undefined, 'no script in the installed package.json');
  assert.equal(shipped.devDependencies, undefined);
  assert.equal(shipped.version, manifest.version);

  // What it holds: the built CLI without a map (nor a comment naming one), every module a built
  // file names present, and what an operator runs coturn and the services with outside Docker.
  const files = filesUnder(installed).filter((f) => !f.startsWith('node_modules'));
  assert.deepEqual(
    files.filter((f) => !f.startsWith('dist/src/')),
    [
      '.claude-plugin/marketplace.json',
      'LICENSE',
      'README.md',
      'docker/coturn-entrypoint.sh',
      'docker/turnserver.conf',
      'docs/systemd/papo-signal-coturn.service',
      'docs/systemd/papo-signal.service',
      'package.json',
      'plugins/papo/.claude-plugin/plugin.json',
    ],
  );
  // papo web's page is served from its folder: its HTML and CSS beside its scripts (ADR 0103).
  const pageFiles = ['dist/src/cli/web/page/index.html', 'dist/src/cli/web/page/style.css'];
  assert.deepEqual(
    files.filter((f) => !f.endsWith('.js')),
    [...files.filter((f) => !f.startsWith('dist/src/')), ...pageFiles].sort(),
    'dist/src holds .js files only, and the web page',
  );
  // ...and the transport process's one file (ADR 0110), without its map.
  const expected = [
    ...filesUnder(join(ROOT, 'src'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `dist/src/${f.replace(/\.ts$/, '.js')}`),
    'dist/src/client/transport/transport-child.bundle.js',
  ].sort();
  assert.deepEqual(
    files.filter((f) => f.startsWith('dist/src/') && !pageFiles.includes(f)),
    expected,
    'one built module per source module, the transport bundle, and nothing else',
  );
  for (const f of files.filter((f) => f.endsWith('.js'))) {
    const source = readFileSync(join(installed, f), 'utf8');
    assert.doesNotMatch(source, /sourceMappingURL/, f);
    for (const m of relativeModules(source))
      assert.ok(existsSync(join(installed, dirname(f), m)), `${f} names ${m}, which the package lacks`);
  }
  assert.equal(statSync(join(installed, 'docker', 'coturn-entrypoint.sh')).mode & 0o111, 0o111);
  assert.deepEqual(
    readFileSync(join(installed, 'docker', 'turnserver.conf')),
    readFileSync(join(ROOT, 'docker', 'turnserver.conf')),
  );
  // node-datachannel's native binary came prebuilt, and bufferutil's prebuild loads (npm drops an
  // optional dependency it cannot build without a word: this is how that would show).
  const bufferutil = join(installed, 'node_modules', 'bufferutil');
  assert.ok(existsSync(bufferutil), 'bufferutil was installed');
  const loaded = await runChild(
    process.execPath,
    ['-e', `console.log(typeof require(${JSON.stringify(bufferutil)}).mask)`],
    {
      env,
    },
  );
  assert.equal(loaded.stdout.trim(), 'function', loaded.stderr);

  // The installed papo, from the prefix's bin, as the user's shell finds it.
  const papo = join(prefix, 'bin', 'papo');
  const runEnv = { ...env, PATH: `${join(prefix, 'bin')}:${bin}`, PAPO_HOME: join(tmp, 'papo-home') };
  const version = await runChild(papo, ['--version'], { env: runEnv });
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, new RegExp(`^papo ${manifest.version.replaceAll('.', '\\.')} on Node\\.js v`));

  const demo = await runChild(papo, ['demo'], { env: { ...runEnv, TMPDIR: tmp }, timeoutMs: 120_000 });
  assert.equal(demo.code, 0, demo.stdout + demo.stderr);
  assert.match(demo.stdout, /3 messages sent, each delivered and acknowledged\./);

  const made = await runChild(
    papo,
    ['new', '--name', 'alice', '--signal', `ws://127.0.0.1:${await freePort()}`],
    { env: runEnv },
  );
  assert.equal(made.code, 0, made.stderr);
  const roomId = /Room ([0-9a-f]{8}) created/.exec(made.stdout)?.[1];
  assert.ok(roomId, made.stdout);
  const mcp = spawn(papo, ['mcp'], { env: runEnv, cwd: tmp, stdio: ['pipe', 'pipe', 'pipe'] });
  let mcpErr = '';
  mcp.stderr.setEncoding('utf8').on('data', (c: string) => {
    mcpErr += c;
  });
  const exited = new Promise((resolve) => mcp.on('exit', resolve));
  t.after(async () => {
    if (mcp.exitCode === null && mcp.signalCode === null) mcp.kill('SIGKILL');
    await exited;
  });
  const client = new RpcClient(mcp.stdin, mcp.stdout);
  const init = await client.initialize();
  assert.equal(init.result.serverInfo.name, 'papo', mcpErr);
  assert.equal(init.result.serverInfo.version, manifest.version);
  const status = resultText(await client.call('status', {}, undefined, 30_000));
  assert.match(status, /alice/, status);
  assert.match(status, new RegExp(roomId), status);
  mcp.stdin.end();
  await exited;

  // The installed package is the Claude Code marketplace that papo install --plugin adds (ADR 0101).
  const plugin = await runChild(papo, ['install', '--plugin', '--print'], { env: runEnv, cwd: tmp });
  assert.equal(plugin.code, 0, plugin.stderr);
  assert.equal(plugin.stdout.split('\n')[0], `claude plugin marketplace add ${installed}`);
  assert.equal(
    JSON.parse(readFileSync(join(installed, 'plugins', 'papo', '.claude-plugin', 'plugin.json'), 'utf8'))
      .version,
    manifest.version,
  );

  // The clean way out: npm takes the command and the package away, and leaves the prefix empty of papo.
  const removed = await runChild(NPM, ['uninstall', '--global', '--prefix', prefix, 'papo'], {
    env,
    cwd: tmp,
  });
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(existsSync(papo), false);
  assert.equal(existsSync(installed), false);
});
