import { FAULT_KINDS, type FaultKind } from '../faults/fault-kinds.js';
import type { FaultSpec } from '../nemesis/fault-spec.js';
import type { PartitionDirection, PartitionMode } from '../nemesis/partition-fault.js';
import type { DocumentPath } from './document-path.js';
import type { ScenarioReader } from './scenario-reader.js';

// Every kind of the table is a kind the nemesis can build, and the other way round.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const kindsAgree: Same<FaultKind, FaultSpec['kind']> = true;
void kindsAgree;

type Raw = Record<string, unknown>;
type Direction = PartitionDirection;

/**
 * One item of a scenario's `faults` as a `FaultSpec`: times in ms, workers by id, defaults
 * filled in (partition: blackhole on both streams; toxics: downstream, as Toxiproxy has it;
 * db-restart: a server restart).
 */
export function buildFaultSpec(
  item: Raw,
  path: DocumentPath,
  workers: number,
  read: ScenarioReader,
): FaultSpec {
  const kind = FAULT_KINDS.find((k) => item[k] !== undefined) ?? 'pause';
  const raw = item[kind] as Raw;
  const at = [...path, kind];
  const atMs = read.ms(item.at, [...path, 'at']);
  const worker = (): string => read.workerId(raw.worker, [...at, 'worker'], workers);
  const targets = (): string[] =>
    raw.workers === undefined
      ? [worker()]
      : (raw.workers as number[]).map((n, i) => read.workerId(n, [...at, 'workers', i], workers));
  const forMs = raw.for === undefined ? undefined : read.ms(raw.for, [...at, 'for']);
  const lasting = { atMs, ...(forMs !== undefined && { forMs }) };
  const direction = (fallback: Direction): Direction =>
    (raw.direction as Direction | undefined) ?? fallback;
  switch (kind) {
    case 'partition':
      return {
        kind,
        ...lasting,
        workers: targets(),
        mode: (raw.mode as PartitionMode | undefined) ?? 'blackhole',
        direction: direction('both'),
      };
    case 'latency':
      return {
        kind,
        ...lasting,
        workers: targets(),
        latencyMs: read.ms(raw.latency, [...at, 'latency']),
        jitterMs: raw.jitter === undefined ? 0 : read.ms(raw.jitter, [...at, 'jitter']),
        direction: direction('downstream'),
      };
    case 'bandwidth':
      return {
        kind,
        ...lasting,
        workers: targets(),
        rateKBps: raw.rate as number,
        direction: direction('downstream'),
      };
    case 'slicer': {
      const averageSize = raw.averageSize as number;
      const sizeVariation = (raw.sizeVariation as number | undefined) ?? 0;
      if (sizeVariation >= averageSize) {
        read.problem(
          [...at, 'sizeVariation'],
          `${sizeVariation}, not below averageSize ${averageSize}`,
          'a variation smaller than averageSize',
        );
      }
      return {
        kind,
        ...lasting,
        workers: targets(),
        averageSize,
        sizeVariation,
        delayMs: read.ms(raw.delay, [...at, 'delay']),
        direction: direction('downstream'),
      };
    }
    case 'pause':
      return { kind, ...lasting, worker: worker() };
    case 'crash':
      return {
        kind,
        atMs,
        worker: worker(),
        ...(raw.restartAfter !== undefined && {
          restartAfterMs: read.ms(raw.restartAfter, [...at, 'restartAfter']),
        }),
      };
    case 'stop':
      return {
        kind,
        atMs,
        worker: worker(),
        timeoutMs: read.ms(raw.timeout, [...at, 'timeout']),
        ...(raw.restartAfter !== undefined && {
          restartAfterMs: read.ms(raw.restartAfter, [...at, 'restartAfter']),
        }),
      };
    case 'clock':
      return clockSpec(raw, at, lasting, worker(), read);
    case 'stall':
      return { kind, atMs, worker: worker(), forMs: forMs ?? 0 };
    case 'db-restart':
      return {
        kind,
        ...lasting,
        mode: (raw.mode as 'restart' | 'terminate' | undefined) ?? 'restart',
      };
  }
}

function clockSpec(
  raw: Raw,
  at: DocumentPath,
  lasting: { atMs: number; forMs?: number },
  worker: string,
  read: ScenarioReader,
): FaultSpec {
  const jump = raw.jump as Raw | undefined;
  const afterMs = jump === undefined ? 0 : read.ms(jump.after, [...at, 'jump', 'after']);
  if (jump !== undefined && lasting.forMs !== undefined && afterMs >= lasting.forMs) {
    read.problem(
      [...at, 'jump', 'after'],
      `${String(jump.after)}, not before the clock fault ends (for: ${String(raw.for)})`,
      'a jump while the clock fault lasts',
    );
  }
  return {
    kind: 'clock',
    ...lasting,
    worker,
    offsetMs: read.ms(raw.offset, [...at, 'offset'], { signed: true }),
    ...(raw.driftPpm !== undefined && { driftPpm: raw.driftPpm as number }),
    ...(jump !== undefined && {
      jump: { afterMs, byMs: read.ms(jump.by, [...at, 'jump', 'by'], { signed: true }) },
    }),
  };
}
