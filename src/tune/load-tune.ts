/**
 * Tune files: YAML in the shape of `scenarios/tune.schema.json`, loaded into a `TuneSpec` with
 * every duration in milliseconds and the handler's distribution fitted. A file that cannot be
 * swept is one `ScenarioError` ("invalid tune file …") listing every problem with its place.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { parseDuration } from '../duration.js';
import type { DurationDistribution } from '../scenario/durations.js';
import { place } from '../scenario/load-scenario.js';
import { ScenarioError, type ScenarioProblem } from '../scenario/scenario-error.js';
import type { SchemaObject } from '../scenario/scenario-schema.js';
import { schemaProblems, type PathProblem } from '../scenario/schema-problems.js';
import { parseYamlSource } from '../scenario/yaml-source.js';
import { readSamples, SamplesError } from './read-samples.js';
import type { FaultModel } from '../sim/sim-types.js';

/** The published schema of tune files (shipped with the package, beside the scenario schema). */
export const TUNE_SCHEMA_PATH = fileURLToPath(
  new URL('../../scenarios/tune.schema.json', import.meta.url),
);

/** A tune file, ready to sweep. */
export interface TuneSpec {
  name: string;
  description?: string;
  seed: number;
  /** The handler's duration per job, and the quantiles it was given by. */
  handler: {
    duration: DurationDistribution;
    p50Ms: number;
    p999Ms: number;
    /** The p99 the file gave, if any (shown against the fit). */
    p99Ms?: number;
    units: number;
    /** Where the duration came from, in words. */
    source: string;
  };
  workload: {
    workers: number;
    jobs: number;
    arrivalsPerSecond?: number;
    maxAttempts: number;
    rttMs: number;
    pollMs: number;
  };
  faults: FaultModel;
  grid: {
    /** Lease durations, ms. */
    leaseMs: number[];
    /** Heartbeat periods as fractions of the lease; 0 = no heartbeat. */
    heartbeatFractions: number[];
    /** Extensions as multiples of the lease. */
    extendTimesLease: number[];
  };
  budgets: { duplicatesPer1000?: number; p99StallMs?: number; heartbeatWritesPerSecond?: number };
}

let validator: ValidateFunction | undefined;
let schema: SchemaObject | undefined;

function tuneSchema(): SchemaObject {
  schema ??= JSON.parse(readFileSync(TUNE_SCHEMA_PATH, 'utf8')) as SchemaObject;
  return schema;
}

/** Reads and validates a tune file; throws one `ScenarioError` naming every problem. */
export async function loadTuneFile(file: string): Promise<TuneSpec> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const found = code === 'ENOENT' ? 'no such file' : message;
    throw bad(file, [{ path: '', found, expected: 'a readable YAML tune file' }], error);
  }
  const source = parseYamlSource(text, file);
  const data = source.data;
  if (data === null || typeof data !== 'object') {
    throw bad(file, [
      { path: '', found: 'no mapping', expected: 'a tune file (name, handler, grid, budgets)' },
    ]);
  }
  validator ??= new Ajv({ allErrors: true, verbose: true, strict: true }).compile(tuneSchema());
  if (!validator(data)) {
    throw bad(file, place(source, schemaProblems(validator.errors ?? [], tuneSchema())));
  }
  const problems: PathProblem[] = [];
  const spec = await buildTune(data as RawTune, file, problems);
  if (problems.length > 0) throw bad(file, place(source, problems));
  return spec;
}

function bad(file: string, problems: ScenarioProblem[], cause?: unknown): ScenarioError {
  return new ScenarioError(file, problems, {
    kind: 'tune file',
    ...(cause !== undefined && { cause }),
  });
}

interface RawSpread {
  p50: string;
  p999: string;
}

interface RawTune {
  name: string;
  description?: string;
  seed?: number;
  handler: {
    p50?: string;
    p99?: string;
    p999?: string;
    samples?: string;
    samplesColumn?: string;
    units?: number;
  };
  workload?: {
    workers?: number;
    jobs?: number;
    arrivalsPerSecond?: number;
    maxAttempts?: number;
    rtt?: string;
    poll?: string;
  };
  faults?: {
    crashesPerWorkerHour?: number;
    restartAfter?: string;
    pausesPerWorkerHour?: number;
    pause?: RawSpread;
    partitionsPerWorkerHour?: number;
    partition?: RawSpread;
  };
  grid: {
    lease: { timesP999?: number[]; values?: string[] };
    heartbeat?: { fractionOfLease?: number[] };
    extendBy?: { timesLease?: number[] };
  };
  budgets: { duplicatesPer1000?: number; p99Stall?: string; heartbeatWritesPerSecond?: number };
}

const lognormal = (spread: RawSpread): DurationDistribution => ({
  dist: 'lognormal',
  p50Ms: parseDuration(spread.p50),
  p999Ms: parseDuration(spread.p999),
});

async function buildTune(raw: RawTune, file: string, problems: PathProblem[]): Promise<TuneSpec> {
  const handler = await buildHandler(raw.handler, file, problems);
  const { grid } = raw;
  if ((grid.lease.timesP999 === undefined) === (grid.lease.values === undefined)) {
    problems.push({
      path: ['grid', 'lease'],
      found: grid.lease.timesP999 === undefined ? 'neither' : 'both',
      expected: 'one of timesP999 (multiples of the p99.9) or values (durations)',
    });
  }
  const leaseMs =
    grid.lease.values?.map((v) => parseDuration(v)) ??
    (grid.lease.timesP999 ?? []).map((x) => Math.round(x * handler.p999Ms));
  const f = raw.faults ?? {};
  const w = raw.workload ?? {};
  return {
    name: raw.name,
    ...(raw.description !== undefined && { description: raw.description }),
    seed: raw.seed ?? 1,
    handler,
    workload: {
      workers: w.workers ?? 4,
      jobs: w.jobs ?? 10_000,
      ...(w.arrivalsPerSecond !== undefined && { arrivalsPerSecond: w.arrivalsPerSecond }),
      maxAttempts: w.maxAttempts ?? 25,
      rttMs: w.rtt === undefined ? 2 : parseDuration(w.rtt),
      pollMs: w.poll === undefined ? 200 : parseDuration(w.poll),
    },
    faults: {
      crashesPerWorkerHour: f.crashesPerWorkerHour ?? 0,
      restartAfterMs: f.restartAfter === undefined ? 10_000 : parseDuration(f.restartAfter),
      pausesPerWorkerHour: f.pausesPerWorkerHour ?? 0,
      pause: f.pause === undefined ? { dist: 'fixed', ms: 1_000 } : lognormal(f.pause),
      partitionsPerWorkerHour: f.partitionsPerWorkerHour ?? 0,
      partition: f.partition === undefined ? { dist: 'fixed', ms: 5_000 } : lognormal(f.partition),
    },
    grid: {
      leaseMs: [...new Set(leaseMs)].sort((a, b) => a - b),
      heartbeatFractions: grid.heartbeat?.fractionOfLease ?? [0.25],
      extendTimesLease: grid.extendBy?.timesLease ?? [1],
    },
    budgets: {
      ...(raw.budgets.duplicatesPer1000 !== undefined && {
        duplicatesPer1000: raw.budgets.duplicatesPer1000,
      }),
      ...(raw.budgets.p99Stall !== undefined && {
        p99StallMs: parseDuration(raw.budgets.p99Stall),
      }),
      ...(raw.budgets.heartbeatWritesPerSecond !== undefined && {
        heartbeatWritesPerSecond: raw.budgets.heartbeatWritesPerSecond,
      }),
    },
  };
}

async function buildHandler(
  raw: RawTune['handler'],
  file: string,
  problems: PathProblem[],
): Promise<TuneSpec['handler']> {
  const units = raw.units ?? 4;
  if (raw.samplesColumn !== undefined && raw.samples === undefined) {
    problems.push({
      path: ['handler', 'samplesColumn'],
      found: `a column (${raw.samplesColumn}) but no samples file`,
      expected: 'samples: a CSV file beside it, or no samplesColumn',
    });
  }
  if (raw.samples !== undefined) {
    const path = resolve(dirname(file), raw.samples);
    const read = { name: raw.samples, column: raw.samplesColumn };
    const samples = await readSamples(path, read).catch((error: unknown) => {
      if (!(error instanceof SamplesError)) throw error;
      const where = error.where === '' ? error.file : `${error.file} ${error.where}`;
      problems.push({
        path: ['handler', 'samples'],
        found: `${error.found} (${where})`,
        expected: error.expected,
      });
      return [1];
    });
    const sorted = [...samples].sort((a, b) => a - b);
    const q = (p: number): number =>
      sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
    return {
      duration: { dist: 'empirical', samplesMs: samples },
      p50Ms: q(0.5),
      p999Ms: q(0.999),
      p99Ms: q(0.99),
      units,
      source: `${samples.length} measured durations from ${raw.samples}`,
    };
  }
  if (raw.p50 === undefined || raw.p999 === undefined) {
    problems.push({
      path: ['handler'],
      found: raw.p50 === undefined ? 'no p50' : 'no p999',
      expected: 'p50 and p999 (a log-normal is fitted to them), or samples',
    });
    return { duration: { dist: 'fixed', ms: 1 }, p50Ms: 1, p999Ms: 1, units, source: '' };
  }
  const p50Ms = parseDuration(raw.p50);
  const p999Ms = parseDuration(raw.p999);
  if (p999Ms <= p50Ms) {
    problems.push({
      path: ['handler', 'p999'],
      found: raw.p999,
      expected: `a p99.9 above the p50 (${raw.p50})`,
    });
  }
  return {
    duration: { dist: 'lognormal', p50Ms, p999Ms },
    p50Ms,
    p999Ms,
    ...(raw.p99 !== undefined && { p99Ms: parseDuration(raw.p99) }),
    units,
    source: `log-normal fitted to p50 ${raw.p50} and p99.9 ${raw.p999}`,
  };
}
