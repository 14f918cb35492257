/** Whether a Docker (or compatible) engine answers, and if not, why. */
export type DockerEngineProbe = { available: true } | { available: false; reason: string };

/** How long to wait for an engine before calling it absent. */
export const DOCKER_PROBE_TIMEOUT_MS = 5_000;

/**
 * Asks testcontainers whether a container engine answers (Docker socket, `DOCKER_HOST`,
 * `~/.testcontainers.properties`, rootless or Podman socket). Never throws: an absent engine is
 * an answer, with a reason a person can act on.
 *
 * testcontainers is imported here, not at the top of the module, so that the embedded and
 * external providers never load it (nor its Docker client) unless someone asks for containers.
 */
export async function probeDockerEngine(
  timeoutMs: number = DOCKER_PROBE_TIMEOUT_MS,
): Promise<DockerEngineProbe> {
  let testcontainers: typeof import('testcontainers');
  try {
    testcontainers = await import('testcontainers');
  } catch (error) {
    return { available: false, reason: notLoaded(error) };
  }
  let timer: NodeJS.Timeout | undefined;
  // A remote DOCKER_HOST that drops packets would otherwise hold the caller for the OS's TCP
  // timeout, minutes, before the provider can say "use --env embedded".
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${timeoutMs}ms`)),
      timeoutMs,
    ).unref();
  });
  try {
    await Promise.race([testcontainers.getContainerRuntimeClient(), timeout]);
    return { available: true };
  } catch (error) {
    return { available: false, reason: `no Docker engine answered: ${message(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

/** The packages the containers provider needs: optional peers, installed by whoever uses it. */
export const CONTAINERS_PACKAGES = [
  'testcontainers',
  '@testcontainers/postgresql',
  '@testcontainers/toxiproxy',
] as const;

function notLoaded(error: unknown): string {
  if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') {
    return (
      'testcontainers is not installed (the containers provider is optional): ' +
      `npm install --save-dev ${CONTAINERS_PACKAGES.join(' ')}` +
      (Number(process.versions.node.split('.')[0]) < 22
        ? ' — testcontainers 12 needs Node 22; on Node 20 also pin undici 7 ("overrides": ' +
          '{ "undici": "^7.24.7" })'
        : '')
    );
  }
  return `testcontainers could not be loaded: ${message(error)}`;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
