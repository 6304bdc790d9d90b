// What the papo doctor tests share: the built binary run with a clean environment, a profile whose
// room meets at a given signal URL, and the JSON report read back.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { DoctorFacts } from '../../src/cli/doctor.js';
import { tempDir } from '../support/files.js';
import { cleanEnv, runPapo } from '../support/papo.js';

export type T = { after: (fn: () => unknown) => void };

export interface JsonCheck {
  id: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  label: string;
  text: string;
  fix?: string;
  data?: Record<string, unknown>;
}
export interface JsonReport {
  ok: boolean;
  profile: string;
  ms: number;
  checks: JsonCheck[];
  summary: Record<string, number>;
}

/** No agent CLI of this machine on PATH: only the ones a test puts there. */
export const BASE_PATH = `${join(process.execPath, '..')}:/usr/bin:/bin`;

export function env(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return cleanEnv({ PAPO_HOME: home, PATH: BASE_PATH, ...extra });
}

/** A profile "ana" whose room meets at `signalUrl`. */
export async function profile(t: T, signalUrl: string): Promise<string> {
  const home = join(tempDir(t), 'home');
  // --no-check: these rooms meet at servers doctor must find wrong, which papo new would refuse.
  const r = await runPapo(['new', '--name', 'ana', '--signal', signalUrl, '--no-check'], { env: env(home) });
  assert.equal(r.code, 0, r.stderr);
  return home;
}

export async function doctor(e: NodeJS.ProcessEnv, args: string[] = [], cwd?: string) {
  const started = Date.now();
  const r = await runPapo(['doctor', ...args], {
    env: e,
    timeoutMs: 40_000,
    ...(cwd ? { cwd } : {}),
  });
  return { ...r, ms: Date.now() - started };
}

export async function doctorJson(e: NodeJS.ProcessEnv, cwd?: string) {
  const r = await doctor(e, ['--json'], cwd);
  let report: JsonReport;
  try {
    report = JSON.parse(r.stdout) as JsonReport;
  } catch {
    throw new Error(`not JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return { ...r, report };
}

export function check(report: JsonReport, id: string): JsonCheck {
  const c = report.checks.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id} in ${JSON.stringify(report.checks.map((x) => x.id))}`);
  return c;
}

/**
 * Facts of a member of a room at wss://signal.example.test:7450 whose ICE servers came with the
 * welcome (a STUN URL on the signal port), as a test changes them: checksFrom's input, no network.
 */
export function remoteFacts(over: Partial<DoctorFacts>): DoctorFacts {
  return {
    profile: { ok: true, profile: 'default', name: 'ana', roomId: 'r00m', nodeId: 'n0de' },
    signalUrl: 'wss://signal.example.test:7450',
    rawSignalUrl: 'wss://signal.example.test:7450',
    loopback: false,
    tokenSent: true,
    signal: { outcome: 'welcome', ms: 4, iceServers: [], notes: [] },
    policy: 'all',
    ice: {
      ok: true,
      config: { servers: [{ urls: 'stun:signal.example.test:7450' }], policy: 'all', source: 'welcome' },
    },
    stun: [],
    turn: [],
    clients: [],
    channelsOff: [],
    node: { version: 'v24.22.3', platform: 'linux x64', today: '2026-12-07' },
    ms: 10,
    ...over,
  };
}
