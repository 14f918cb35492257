import type { EnvironmentProvider, ProviderName } from './types.js';
import { EmbeddedEnvironmentProvider, type EmbeddedEnvironmentOptions } from './embedded-env.js';
import { ExternalEnvironmentProvider, externalOptionsFromEnv } from './external-env.js';
import { ConfigError } from '../errors.js';

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
  const chosen = options.explicit ?? (env.LEASEPROOF_ENV || undefined);
  const external = externalOptionsFromEnv(env);
  const name: ProviderName =
    chosen === undefined ? (external === undefined ? 'embedded' : 'external') : checkName(chosen);
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

function checkName(name: string): ProviderName {
  if ((PROVIDERS as readonly string[]).includes(name)) return name as ProviderName;
  throw new ConfigError(`unknown environment "${name}"; expected one of ${PROVIDERS.join(', ')}`);
}
