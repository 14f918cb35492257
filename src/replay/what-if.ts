/**
 * `replay --sweep lease=20s..60s`: the same incident at several leases, and which of them would
 * have avoided its duplicates or its stall — a what-if, on real runs.
 */
import { deriveHistory } from '../history/derive.js';
import type { StartedEnvironment } from '../env/types.js';
import { ConfigError } from '../errors.js';
import { formatDuration, parseDuration } from '../duration.js';
import { scenarioToRunPlan } from '../scenario/load-scenario.js';
import { runAndCheck } from '../scenario/run-and-check.js';
import { loadIncident } from './load-incident.js';
import { jobStories } from './narrative.js';
import { textTable } from '../text-table.js';

/** One lease of the what-if and what its replay showed. */
export interface WhatIfRow {
  leaseMs: number;
  verdict: string;
  /** Jobs whose effects ran under more than one claim. */
  duplicatedJobs: number;
  /** Jobs with a stale write (I1). */
  staleWrites: number;
  /** Longest expiry → re-claim, in the incident's time (ms); NaN when nothing expired. */
  maxStallMs: number;
}

/**
 * `lease=20s..60s` (five leases evenly), `lease=20s..60s:3`, or `lease=20s,30s,60s`: the leases
 * to replay, in production ms. Throws a ConfigError saying what was expected.
 */
export function parseSweep(text: string): number[] {
  const m = /^lease=(.+)$/.exec(text.trim());
  const fail = (): never => {
    throw new ConfigError(
      `--sweep takes lease=<from>..<to>[:<count>] or lease=<a>,<b>,…; got "${text}"`,
    );
  };
  if (m === null) return fail();
  const spec = m[1]!;
  try {
    const range = /^(.+)\.\.([^:]+)(?::(\d+))?$/.exec(spec);
    if (range !== null) {
      const [from, to] = [parseDuration(range[1]!), parseDuration(range[2]!)];
      const count = range[3] === undefined ? 5 : Number(range[3]);
      if (!(to > from) || count < 2 || count > 20) return fail();
      return Array.from({ length: count }, (_, i) =>
        Math.round(from + ((to - from) * i) / (count - 1)),
      );
    }
    const values = spec.split(',').map((v) => parseDuration(v.trim()));
    if (values.some((v) => !(v > 0))) return fail();
    return values;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    return fail();
  }
}

/** Replays the incident at each lease in `env`. */
export async function replayWhatIf(
  env: StartedEnvironment,
  file: string,
  leases: number[],
  queue: string,
  log: (line: string) => void,
): Promise<WhatIfRow[]> {
  const rows: WhatIfRow[] = [];
  for (const leaseMs of leases) {
    const incident = await loadIncident(file, { leaseMs });
    log(`what-if: lease ${formatDuration(leaseMs)}…`);
    const plan = scenarioToRunPlan(incident.scenario, { queue });
    const { history, result } = await runAndCheck(env, plan);
    const stories = jobStories(history, result, incident, { all: true });
    const derived = deriveHistory(history);
    let maxStall = NaN;
    for (const claim of derived.claims) {
      const next = claim.job.claims[claim.attempt];
      if (Number.isNaN(claim.expiredAt) || next === undefined) continue;
      const stall = (next.grantT - claim.expiredAt) / incident.timeScale;
      if (!(stall <= maxStall)) maxStall = stall;
    }
    rows.push({
      leaseMs,
      verdict: result.valid,
      duplicatedJobs: stories.filter((s) => s.outcome.startsWith('duplicate')).length,
      staleWrites: stories.filter((s) => s.line.includes('stale write')).length,
      maxStallMs: maxStall,
    });
  }
  return rows;
}

/** The what-if as a table and a conclusion. */
export function renderWhatIf(rows: WhatIfRow[]): string {
  const header = ['lease', 'duplicated jobs', 'stale writes', 'max stall', 'verdict'];
  const body = rows.map((r) => [
    formatDuration(r.leaseMs),
    String(r.duplicatedJobs),
    String(r.staleWrites),
    Number.isNaN(r.maxStallMs) ? '—' : formatDuration(Math.round(r.maxStallMs)),
    r.verdict,
  ]);
  const clean = rows.filter((r) => r.duplicatedJobs === 0 && r.staleWrites === 0);
  const conclusion =
    clean.length === 0
      ? 'no lease of the sweep avoided the duplicates'
      : `without duplicates: lease ${clean.map((r) => formatDuration(r.leaseMs)).join(', ')}` +
        ` (the shortest, ${formatDuration(clean[0]!.leaseMs)}, stalls least after a crash)`;
  return [...textTable(header, body), conclusion].join('\n');
}
