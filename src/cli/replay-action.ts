/** What `leaseproof replay` does, loaded only when it runs (replay-command.ts defines the verb). */
import { withEnvironment } from './with-environment.js';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { loadIncident } from '../replay/load-incident.js';
import { jobStories, renderNarrative } from '../replay/narrative.js';
import { parseSweep, renderWhatIf, replayWhatIf } from '../replay/what-if.js';
import { runScenarios } from '../run/run-scenarios.js';
import { withShutdownSignal } from './shutdown.js';
import { prepareQueueAdapter } from '../libraries/load-adapter.js';

const say = (line: string): void => void process.stderr.write(line + '\n');

/** The flags of `replay`, as commander parses them. */
export interface ReplayFlags {
  queue: string;
  out: string;
  env?: string;
  all?: boolean;
  sweep?: string;
}

/** Replays the incident (or sweeps its lease), tells each job's story, sets the exit code. */
export async function replay(file: string, flags: ReplayFlags): Promise<void> {
  const incident = await loadIncident(file);
  // Before anything starts or is said: a mistyped queue is a usage error, not a failed replay.
  await prepareQueueAdapter(flags.queue);
  if (flags.sweep !== undefined) {
    const leases = parseSweep(flags.sweep);
    const rows = await withEnvironment(flags.env, say, (env) =>
      replayWhatIf(env, file, leases, flags.queue, say),
    );
    console.log(`${incident.name}: what if the lease had been…`);
    console.log(renderWhatIf(rows));
    process.exitCode = 0;
    return;
  }
  say(
    `replay ${incident.name}: ${incident.events.length} event(s), time scale ${incident.timeScaleText}, ` +
      `${incident.workers.map((w, i) => `${w}=w${i + 1}`).join(' ')}`,
  );
  const result = await withShutdownSignal((signal) =>
    runScenarios({
      files: [file],
      queues: [flags.queue],
      out: flags.out,
      env: flags.env,
      log: say,
      signal,
    }),
  );
  const run = result.runs[0];
  if (run === undefined) {
    process.exitCode = 2;
    return;
  }
  const stories = jobStories(run.history, run.result, incident, { all: flags.all === true });
  const narrative = renderNarrative(stories);
  await writeFile(
    join(result.dir, 'narrative.md'),
    `# ${incident.name}: what happened to each job\n\nTimes in the incident's clock.\n\n` +
      '```\n' +
      narrative +
      '\n```\n',
  );
  console.log(`${incident.name} × ${flags.queue}: ${run.result.valid}`);
  console.log(narrative);
  console.log(`report: ${relative(process.cwd(), result.dir) || result.dir} (narrative.md)`);
  const verdict = run.result.valid;
  process.exitCode = verdict === 'invalid' ? 1 : verdict === 'unknown' ? 2 : 0;
}
