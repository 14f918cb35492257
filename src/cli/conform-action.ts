/** What `leaseproof conform` does, loaded only when it runs (conform-command.ts defines it). */
import { checkPrimitives, type ConformanceReport } from '../conformance/check-primitives.js';
import { checkWorkerProtocol } from '../conformance/check-worker-protocol.js';
import { withEnvironment } from './with-environment.js';

/** The flags of `conform`, as commander parses them. */
export interface ConformFlags {
  queue: string[];
  env?: string;
  json?: boolean;
  worker?: boolean;
}

const MARK = { pass: 'ok  ', fail: 'FAIL', skip: 'skip' } as const;

/** Checks each queue in turn, prints what each check saw, and sets the exit code. */
export async function conform(flags: ConformFlags): Promise<void> {
  const log = (line: string): void => console.error(line);
  const reports = await withEnvironment(flags.env, log, async (env) => {
    const out: ConformanceReport[] = [];
    const checkOne = flags.worker === true ? checkWorkerProtocol : checkPrimitives;
    for (const queue of flags.queue) out.push(await checkOne(env, queue));
    return out;
  });
  if (flags.json === true) {
    console.log(JSON.stringify(reports, null, 2));
  } else {
    for (const report of reports) {
      console.log(`${report.queue}${report.name === undefined ? '' : ` ("${report.name}")`}`);
      for (const c of report.checks) console.log(`  ${MARK[c.outcome]}  ${c.name}: ${c.detail}`);
      const failed = report.checks.filter((c) => c.outcome === 'fail').length;
      console.log(`  ${failed === 0 ? 'conforms' : `${failed} check(s) failed`}\n`);
    }
  }
  process.exitCode = reports.every((r) => r.passed) ? 0 : 1;
}
