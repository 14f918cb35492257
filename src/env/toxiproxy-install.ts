import { spawn } from 'node:child_process';
import { access, mkdir, rename, rm, constants } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import { EnvironmentError } from '../errors.js';

/** The Toxiproxy release the harness is tested against; docker-compose.yml pins the same. */
export const TOXIPROXY_VERSION = 'v2.5.0';

/** The Go module path of the Toxiproxy server. */
const TOXIPROXY_MODULE = 'github.com/Shopify/toxiproxy/v2';

/** Where the project's own install puts the binary, relative to the project root. */
export const TOOLS_BIN = join('.tools', 'bin');

/** Options for finding or installing `toxiproxy-server`. */
export interface ToxiproxyInstallOptions {
  /** Project root holding `.tools/bin` (default: the current directory). */
  projectRoot?: string;
  /** Progress lines for a person ("installing Toxiproxy v2.5.0 with go install …"). */
  log?: (line: string) => void;
  /** `PATH` to search (default: `process.env.PATH`). */
  path?: string;
  /** The Go command (default `go` on PATH). */
  goBinary?: string;
}

/** Where a binary was found, and how. */
export interface ToxiproxyBinary {
  /** Absolute path of the executable. */
  path: string;
  /** `path` = found on PATH (or TOXIPROXY_SERVER), `tools` = `.tools/bin`, `installed` = just built. */
  source: 'path' | 'tools' | 'installed';
}

async function isExecutable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** Finds `toxiproxy-server` without installing anything: TOXIPROXY_SERVER, PATH, `.tools/bin`. */
export async function findToxiproxyServer(
  options: ToxiproxyInstallOptions = {},
): Promise<ToxiproxyBinary | undefined> {
  const explicit = process.env.TOXIPROXY_SERVER;
  if (explicit !== undefined && explicit !== '') {
    if (await isExecutable(explicit)) return { path: resolve(explicit), source: 'path' };
    throw new EnvironmentError(`TOXIPROXY_SERVER=${explicit} is not an executable file`);
  }
  for (const dir of (options.path ?? process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'toxiproxy-server');
    if (await isExecutable(candidate)) return { path: resolve(candidate), source: 'path' };
  }
  const tools = resolve(options.projectRoot ?? '.', TOOLS_BIN, 'toxiproxy-server');
  if (await isExecutable(tools)) return { path: tools, source: 'tools' };
  return undefined;
}

/**
 * Returns a `toxiproxy-server` binary, building the pinned version into `.tools/bin` with
 * `go install` when none is found. Idempotent and instant once the binary is there.
 */
export async function ensureToxiproxyServer(
  options: ToxiproxyInstallOptions = {},
): Promise<ToxiproxyBinary> {
  const found = await findToxiproxyServer(options);
  if (found !== undefined) return found;

  const log = options.log ?? (() => undefined);
  const binDir = resolve(options.projectRoot ?? '.', TOOLS_BIN);
  // Built into a private folder first: `go install` names the binary after its package folder
  // (`server`), and a half-finished build must never be mistaken for an installed one.
  const stage = join(binDir, `.stage-${process.pid}`);
  await mkdir(stage, { recursive: true });
  const target = `${TOXIPROXY_MODULE}/cmd/server@${TOXIPROXY_VERSION}`;
  log(`toxiproxy-server not found; installing Toxiproxy ${TOXIPROXY_VERSION} into ${binDir}`);
  log(`  go install ${target}`);
  try {
    await runGo(
      options.goBinary ?? 'go',
      [
        'install',
        // Stamps the version the API reports at GET /version (it says "git" otherwise).
        `-ldflags=-X ${TOXIPROXY_MODULE}.Version=${TOXIPROXY_VERSION.replace(/^v/, '')}`,
        target,
      ],
      { ...process.env, GOBIN: stage },
    );
    await rename(join(stage, 'server'), join(binDir, 'toxiproxy-server'));
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  log(`  installed ${join(binDir, 'toxiproxy-server')}`);
  return { path: join(binDir, 'toxiproxy-server'), source: 'installed' };
}

async function runGo(go: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const goMissing = new EnvironmentError(
    `toxiproxy-server is not installed and Go is not available to build it. Either install Go ` +
      `(https://go.dev/dl) and run \`npm run toxiproxy:install\`, or put a toxiproxy-server ` +
      `${TOXIPROXY_VERSION} on PATH (release binaries: github.com/Shopify/toxiproxy/releases; ` +
      `Homebrew: \`brew install toxiproxy\`), or run the servers with Docker ` +
      `(\`docker compose up -d\`, then --env external) or --env containers.`,
  );
  await new Promise<void>((resolvePromise, reject) => {
    // Not detached, unlike the servers: a build is waited for, not stopped in order, so a
    // Ctrl-C in the terminal should stop it together with leaseproof.
    const child = spawn(go, args, { env, stdio: ['ignore', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      process.stderr.write(chunk);
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? goMissing : error),
    );
    child.on('close', (code) => {
      if (code === 0) resolvePromise();
      else
        reject(
          new EnvironmentError(
            `go ${args.join(' ')} failed with exit code ${String(code)}: ${stderr.trim().slice(-2000)}`,
          ),
        );
    });
  });
}
