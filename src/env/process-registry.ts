import { readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stateDir } from './state-dir.js';

/** A process leaseproof started, written down so that it can be stopped even if we are killed. */
export interface ProcessRecord {
  /** The run that started it. */
  runId: string;
  /** What it is. */
  kind: 'postgres' | 'toxiproxy' | 'worker' | 'hog';
  /** Its pid. */
  pid: number;
  /** The pid of the leaseproof process that owns it; while that lives, nobody else touches it. */
  ownerPid: number;
  /**
   * A substring of its command line. A pid can be reused after a reboot or a long time; a
   * process whose command line lacks this is not ours and is never signalled.
   */
  match: string;
  /** The signal that stops it cleanly (postgres: SIGINT, a fast shutdown). */
  stopSignal: NodeJS.Signals;
  /** A temporary folder of its own to delete once it is stopped (postgres' data directory). */
  removeDir?: string | undefined;
}

/** What `reapLeftovers` did about one record. */
export interface ReapedProcess {
  /** The record. */
  record: ProcessRecord;
  /** `stopped`: it was running and is now stopped; `gone`: it had already exited. */
  outcome: 'stopped' | 'gone';
}

function recordsDir(): string {
  return join(stateDir(), 'processes');
}

function fileOf(record: ProcessRecord): string {
  return join(recordsDir(), `${record.runId}-${record.kind}-${record.pid}.json`);
}

/** Writes a record of a started process. */
export async function recordProcess(record: ProcessRecord): Promise<void> {
  await mkdir(recordsDir(), { recursive: true });
  await writeFile(fileOf(record), JSON.stringify(record) + '\n');
}

/** Deletes the record of a process that was stopped cleanly. */
export async function forgetProcess(record: ProcessRecord): Promise<void> {
  await rm(fileOf(record), { force: true });
}

/** Reads every record; unreadable files are skipped (a write cut short by a SIGKILL). */
export async function listProcessRecords(): Promise<ProcessRecord[]> {
  const names = await readdir(recordsDir()).catch(() => [] as string[]);
  const records: ProcessRecord[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    try {
      records.push(JSON.parse(await readFile(join(recordsDir(), name), 'utf8')) as ProcessRecord);
    } catch {
      await rm(join(recordsDir(), name), { force: true });
    }
  }
  return records;
}

/** Whether a process with this pid exists (zombies count as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return processState(pid) !== 'Z';
}

/** The one-letter state of a process from /proc (`R`, `S`, `T` stopped, `Z` zombie…), if known. */
export function processState(pid: number): string | undefined {
  const stat = readProcSync(`/proc/${pid}/stat`);
  return stat === undefined ? undefined : /\) (\S)/.exec(stat)?.[1];
}

// Synchronous on purpose: /proc reads never block, and liveness checks run in tight loops.
function readProcSync(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The command line of a process, or undefined when it cannot be read. */
export function commandLine(pid: number): string | undefined {
  return readProcSync(`/proc/${pid}/cmdline`)?.replace(/\0/g, ' ');
}

/**
 * Stops processes that a leaseproof process started and could not stop because it was killed:
 * records whose owner is gone. Continues a stopped process before signalling it, waits up to
 * `graceMs` for a clean stop, then SIGKILLs; deletes recorded temporary folders.
 */
export async function reapLeftovers(graceMs = 5_000): Promise<ReapedProcess[]> {
  const reaped: ReapedProcess[] = [];
  for (const record of await listProcessRecords()) {
    // A live owner (this process included) still manages its processes itself.
    if (isAlive(record.ownerPid)) continue;
    const ours = isAlive(record.pid) && (commandLine(record.pid) ?? '').includes(record.match);
    if (ours) await stopProcess(record.pid, record.stopSignal, graceMs);
    if (record.removeDir !== undefined) {
      await rm(record.removeDir, { recursive: true, force: true });
    }
    await forgetProcess(record);
    reaped.push({ record, outcome: ours ? 'stopped' : 'gone' });
  }
  return reaped;
}

/** SIGCONT, then `signal`, then SIGKILL after `graceMs`; resolves once the pid is gone. */
export async function stopProcess(
  pid: number,
  signal: NodeJS.Signals,
  graceMs: number,
): Promise<void> {
  const send = (s: NodeJS.Signals): void => {
    try {
      process.kill(pid, s);
    } catch {
      // Gone already.
    }
  };
  send('SIGCONT');
  send(signal);
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  if (isAlive(pid)) {
    send('SIGKILL');
    while (isAlive(pid)) await sleep(20);
  }
}
