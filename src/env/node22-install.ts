import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { EnvironmentError } from '../errors.js';
import { ensureNpmTools, type NpmToolsOptions } from './npm-tools-install.js';

/**
 * The Node 22 release worker programs run under when the library they drive needs it (pg-boss
 * 11 and later declare `node >= 22.12`) and leaseproof itself runs on an older Node.
 */
export const NODE22_VERSION = '22.23.5';

/** Where the project's own install puts it, relative to the project root. */
export const NODE22_TOOLS_DIR = join('.tools', 'node22');

/** The least Node 22 that pg-boss 12 declares. */
const LEAST = [22, 12] as const;

/**
 * A Node 22 executable for worker programs: `LEASEPROOF_NODE22` when set; this process's own Node
 * when it is 22.12 or later; else the pinned release from the npm registry — the package
 * `node-<platform>-<arch>` carries the official binary as `bin/node` — installed into
 * `.tools/node22` on first need with the ordinary npm client (no install script involved).
 */
export async function ensureNode22(options: NpmToolsOptions = {}): Promise<string> {
  const explicit = process.env.LEASEPROOF_NODE22;
  if (explicit !== undefined && explicit !== '') {
    const ok = await access(explicit, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (!ok) throw new EnvironmentError(`LEASEPROOF_NODE22=${explicit} is not an executable file`);
    return explicit;
  }
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major > LEAST[0] || (major === LEAST[0] && minor >= LEAST[1])) return process.execPath;
  const { platform, arch } = process;
  if (!['linux', 'darwin'].includes(platform) || !['x64', 'arm64'].includes(arch)) {
    throw new EnvironmentError(
      `a worker program here needs Node ${LEAST.join('.')}+, and the npm registry has no Node ` +
        `binary package for ${platform}-${arch}: set LEASEPROOF_NODE22 to a Node 22 executable`,
    );
  }
  const name = `node-${platform}-${arch}`;
  const dir = await ensureNpmTools(NODE22_TOOLS_DIR, [`${name}@${NODE22_VERSION}`], options);
  return join(dir, 'node_modules', name, 'bin', 'node');
}
