import { Command, Option } from 'commander';
import { selectEnvironment } from '../env/select-env.js';
import { checkEnvironment } from '../env/check-environment.js';
import { clearEnvState, readEnvState, writeEnvState } from '../env/env-state.js';
import { reapLeftovers, stopProcess } from '../env/process-registry.js';
import { ensureToxiproxyServer } from '../env/toxiproxy-install.js';
import { redactUrl } from '../env/database-url.js';
import { EnvironmentError } from '../errors.js';
import type { StartedEnvironment } from '../env/types.js';
import { inEnvironment } from '../run/environment-scope.js';
import { untilShutdown } from './with-environment.js';

const say = (line: string): void => void process.stderr.write(line + '\n');

/**
 * `leaseproof env up | status | down | install-toxiproxy | install-python | install-go |
 * install-java | install-node22`.
 */
export function envCommand(): Command {
  const env = new Command('env').description(
    'start, inspect and stop the servers a run needs (PostgreSQL + Toxiproxy)',
  );

  env
    .command('up')
    .description('start the environment and keep it until Ctrl-C or `leaseproof env down`')
    .addOption(
      new Option('--env <provider>', 'embedded | external | containers').env('LEASEPROOF_ENV'),
    )
    .option('--check', 'prove a query goes through a proxy, then stop (exit 0 when it does)')
    .option('--json', 'print one JSON object instead of text')
    .option('--show-secrets', 'print URLs with their passwords')
    .option('--i-own-this-database', "run inside DATABASE_URL's own database (never dropped)")
    .action(async (options: UpOptions) => envUp(options));

  env
    .command('status')
    .description('show the environment started by `env up`, if any (exit 1 when none)')
    .option('--json', 'print one JSON object')
    .option('--show-secrets', 'print URLs with their passwords')
    .action(async (options: { json?: boolean; showSecrets?: boolean }) => {
      const found = await readEnvState();
      if (found === undefined || !found.running) {
        if (options.json === true) console.log(JSON.stringify({ running: false }));
        else say('no environment is running (start one with `leaseproof env up`)');
        process.exitCode = 1;
        return;
      }
      const { state } = found;
      const adminUrl = options.showSecrets === true ? state.adminUrl : redactUrl(state.adminUrl);
      if (options.json === true) {
        console.log(
          JSON.stringify({ running: true, pid: state.pid, ...state.description, adminUrl }),
        );
      } else {
        printDescription({ ...state.description, adminUrl }, state.pid);
      }
    });

  env
    .command('down')
    .description('stop the environment started by `env up`, and any leftovers of killed runs')
    .action(async () => {
      const found = await readEnvState();
      if (found?.running === true) {
        say(`stopping environment ${found.state.description.runId} (pid ${found.state.pid})…`);
        // The owner stops its own servers in order; SIGKILL only if it does not within 30 s.
        await stopProcess(found.state.pid, 'SIGTERM', 30_000);
      }
      await clearEnvState();
      const reaped = await reapLeftovers();
      for (const { record, outcome } of reaped) {
        if (outcome === 'stopped') say(`stopped leftover ${record.kind} (pid ${record.pid})`);
      }
      say(found?.running === true || reaped.length > 0 ? 'down' : 'nothing was running');
    });

  env
    .command('install-toxiproxy')
    .description('build the pinned toxiproxy-server into .tools/bin (no-op when one is found)')
    .action(async () => {
      const binary = await ensureToxiproxyServer({ log: say });
      say(`toxiproxy-server: ${binary.path} (${binary.source})`);
    });

  env
    .command('install-python')
    .description(
      "make .tools/python, the Python environment of worker programs (leaseproof's client and " +
        'its pinned requirements; no-op when it is current)',
    )
    .action(async () => {
      const { ensurePythonEnvironment } = await import('../env/python-install.js');
      say(`python: ${await ensurePythonEnvironment({ log: say })}`);
    });

  env
    .command('install-go')
    .description(
      "build leaseproof's Go worker programs (River's) into .tools/go with the Go toolchain " +
        '(no-op when they are current)',
    )
    .action(async () => {
      const { ensureGoProgram, GO_PROGRAMS } = await import('../env/go-install.js');
      for (const name of GO_PROGRAMS) say(`${name}: ${await ensureGoProgram(name, { log: say })}`);
    });

  env
    .command('install-java')
    .description(
      "build leaseproof's Java worker program (db-scheduler's) into .tools/java with Maven " +
        '(no-op when it is current)',
    )
    .action(async () => {
      const { ensureJavaProgram, JAVA_PROGRAMS } = await import('../env/java-install.js');
      for (const name of JAVA_PROGRAMS) {
        say(`${name}: ${await ensureJavaProgram(name, { log: say })}`);
      }
    });

  env
    .command('install-node22')
    .description(
      'install Node 22 (from the npm registry, into .tools/node22) and pg-boss 12 and ' +
        'graphile-worker 0.18 (into .tools/npm), which the pg-boss@12 and graphile-worker@0.18 ' +
        'worker programs run on (no-op when they are there)',
    )
    .action(async () => {
      const { ensureNode22 } = await import('../env/node22-install.js');
      const { ensureNpmTools } = await import('../env/npm-tools-install.js');
      const { pgBoss12ToolsDir, PG_BOSS_12_VERSION } =
        await import('../libraries/pg-boss/v12-adapter.js');
      say(`node 22: ${await ensureNode22({ log: say })}`);
      const pgBoss = `pg-boss@${PG_BOSS_12_VERSION}`;
      say(`${pgBoss}: ${await ensureNpmTools(pgBoss12ToolsDir(), [pgBoss], { log: say })}`);
      const { graphile18ToolsDir, GRAPHILE_18_VERSION } =
        await import('../libraries/graphile-worker/v18-release.js');
      const graphile = `graphile-worker@${GRAPHILE_18_VERSION}`;
      say(`${graphile}: ${await ensureNpmTools(graphile18ToolsDir(), [graphile], { log: say })}`);
    });

  return env;
}

interface UpOptions {
  env?: string;
  check?: boolean;
  json?: boolean;
  showSecrets?: boolean;
  iOwnThisDatabase?: boolean;
}

async function envUp(options: UpOptions): Promise<void> {
  const existing = await readEnvState();
  if (existing?.running === true) {
    throw new EnvironmentError(
      `an environment is already up (pid ${existing.state.pid}, run ${existing.state.description.runId}); ` +
        '`leaseproof env status` shows it, `leaseproof env down` stops it',
    );
  }
  const provider = await selectEnvironment({
    explicit: options.env,
    iOwnThisDatabase: options.iOwnThisDatabase,
    log: say,
  });
  // Ctrl-C or `env down` (SIGTERM) stops the servers, then the state file goes: a status
  // asked after the exit finds nothing running. A check never wrote one.
  await untilShutdown(async (signal) => {
    try {
      await inEnvironment(provider, (started) => serve(started, options), { log: say, signal });
    } finally {
      if (options.check !== true) await clearEnvState();
    }
  });
}

/** Checks the started environment, or records it and keeps it until the process is stopped. */
async function serve(started: StartedEnvironment, options: UpOptions): Promise<void> {
  const description = await started.describe();
  const shown = {
    ...description,
    adminUrl: options.showSecrets === true ? started.adminUrl : description.adminUrl,
  };
  if (options.check === true) {
    const result = await checkEnvironment(started);
    if (options.json === true) console.log(JSON.stringify({ ...shown, check: result }));
    else {
      printDescription(shown, process.pid);
      for (const s of result.steps) say(`${s.ok ? 'ok  ' : 'FAIL'} ${s.name}: ${s.detail}`);
      say(result.ok ? 'environment check passed' : 'environment check FAILED');
    }
    process.exitCode = result.ok ? 0 : 1;
    return;
  }
  await writeEnvState({
    pid: process.pid,
    startedAt: new Date().toISOString(),
    description,
    adminUrl: started.adminUrl,
  });
  if (options.json === true) console.log(JSON.stringify({ pid: process.pid, ...shown }));
  else {
    printDescription(shown, process.pid);
    say('up; Ctrl-C or `leaseproof env down` stops it');
  }
  // An external environment has no child process to keep the event loop alive; this timer
  // does, until a signal aborts the scope, which stops everything, and the process exits.
  setInterval(() => undefined, 1 << 30);
  await new Promise<never>(() => undefined);
}

function printDescription(
  d: {
    provider: string;
    runId: string;
    adminUrl: string;
    toxiproxyUrl: string;
    postgresVersion: string;
    toxiproxyVersion: string;
  },
  pid: number,
): void {
  say(`environment   ${d.provider} (run ${d.runId}, pid ${pid})`);
  say(`postgres      ${d.adminUrl}  (PostgreSQL ${d.postgresVersion})`);
  say(`toxiproxy     ${d.toxiproxyUrl}  (Toxiproxy ${d.toxiproxyVersion})`);
}
