/**
 * A generated scenario as a scenario file: the YAML document `scenarios/schema.json` describes.
 * Every run goes through the file form (`parseScenario` of the text), so what explore ran and
 * what it writes as a counterexample are one and the same scenario.
 */
import { stringify } from 'yaml';
import { CHECKER_NAMES } from '../checker/index.js';
import { parseScenario } from '../scenario/load-scenario.js';
import type { Scenario } from '../scenario/scenario-types.js';
import { ofLease, type DrawnFault, type ExploredScenario } from './explored-scenario.js';

/** What names and explains the file. */
export interface DocumentMeta {
  /** Scenario name (lowercase, digits, `.`, `_`, `-`). */
  name: string;
  /** The workload seed. */
  seed: number;
  /** Free text. */
  description: string;
}

const ms = (value: number): string => `${Math.round(value)}ms`;

function faultItem(scenario: ExploredScenario, fault: DrawnFault): Record<string, unknown> {
  const at = ms(fault.atMs);
  switch (fault.kind) {
    case 'pause':
      return { at, pause: { worker: fault.worker, for: ms(ofLease(scenario, fault.forPermille)) } };
    case 'partition':
      return {
        at,
        partition: {
          worker: fault.worker,
          mode: fault.mode,
          direction: fault.direction,
          for: ms(ofLease(scenario, fault.forPermille)),
        },
      };
    case 'latency':
      return {
        at,
        latency: {
          worker: fault.worker,
          latency: ms(ofLease(scenario, fault.latencyPermille)),
          direction: 'upstream',
          for: ms(ofLease(scenario, fault.forPermille)),
        },
      };
    case 'stall':
      return { at, stall: { worker: fault.worker, for: ms(ofLease(scenario, fault.forPermille)) } };
    case 'clock':
      return {
        at,
        clock: {
          worker: fault.worker,
          offset: `${fault.offsetSeconds < 0 ? '-' : '+'}${Math.abs(fault.offsetSeconds)}s`,
        },
      };
    case 'crash':
      return {
        at,
        crash: {
          worker: fault.worker,
          restartAfter: ms(ofLease(scenario, fault.restartAfterPermille)),
        },
      };
  }
}

/**
 * Faults in the order they start (then by worker), as a person reads a timeline. fast-check
 * draws and shrinks them in any order; the drawn list keeps that order, only the file is sorted.
 * Sorted on the rounded start the file shows, so two faults at "200ms" go by worker, and stable,
 * so faults that tie on both keep their drawn order.
 */
export function inTimeOrder(faults: readonly DrawnFault[]): DrawnFault[] {
  return [...faults].sort((a, b) => Math.round(a.atMs) - Math.round(b.atMs) || a.worker - b.worker);
}

/** The scenario file's document (plain data, ready for YAML). */
export function scenarioDocument(
  scenario: ExploredScenario,
  meta: DocumentMeta,
): Record<string, unknown> {
  const { leaseMs, handler } = scenario;
  return {
    name: meta.name,
    description: meta.description,
    seed: meta.seed,
    lease: {
      duration: ms(leaseMs),
      heartbeat: ms(leaseMs / 4),
      extendBy: ms(leaseMs),
      poll: ms(scenario.pollMs),
    },
    workers: scenario.workers,
    jobs: {
      count: scenario.jobs,
      handler: {
        units: handler.units,
        unit: { dist: 'fixed', duration: ms(ofLease(scenario, handler.unitPermille)) },
        effectEvery: 1,
        sync: handler.sync,
      },
    },
    faults: inTimeOrder(scenario.faults).map((f) => faultItem(scenario, f)),
    check: [...CHECKER_NAMES],
    checkOptions: { strictCauses: true },
    drainTimeout: '20s',
  };
}

/** The scenario file's text. */
export function scenarioYaml(scenario: ExploredScenario, meta: DocumentMeta): string {
  return stringify(scenarioDocument(scenario, meta), { lineWidth: 100 });
}

/** The loaded scenario, exactly as `leaseproof run` would load the file. */
export function toScenario(scenario: ExploredScenario, meta: DocumentMeta): Scenario {
  return parseScenario(scenarioYaml(scenario, meta), `${meta.name}.yaml`);
}
