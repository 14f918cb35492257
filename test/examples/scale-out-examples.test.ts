import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { POSTGRES_IMAGE, TOXIPROXY_IMAGE } from '../../src/env/containers-env.js';
import { externalOptionsFromEnv } from '../../src/env/external-env.js';

/**
 * The scale-out examples (examples/ci/github-actions.yml, examples/k8s/*.yaml) are copied into
 * users' projects and run nowhere here, so what makes them work is checked on their text: shard
 * counts that agree, reports that survive an invalid verdict, the environment variables the
 * external provider reads, the compose file's images, and command lines the CLI accepts.
 * Each check is a function returning a list of problems, so the last tests can feed broken
 * copies and see each one caught.
 */

const read = (path: string): string =>
  readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

const WORKFLOW = parse(read('examples/ci/github-actions.yml')) as unknown;
const K8S_SHARDS = parseAllDocuments(read('examples/k8s/indexed-job.yaml')).map(
  (doc) => doc.toJS() as unknown,
);
const K8S_MERGE = parseAllDocuments(read('examples/k8s/merge-job.yaml')).map(
  (doc) => doc.toJS() as unknown,
);
const COMPOSE = parse(read('docker-compose.yml')) as unknown;

/** The actions the workflow may use, at the major version it pins. */
const PINNED_ACTIONS: Record<string, string> = {
  'actions/checkout': 'v4',
  'actions/setup-node': 'v4',
  'actions/setup-go': 'v5',
  'actions/cache': 'v4',
  'actions/upload-artifact': 'v4',
  'actions/download-artifact': 'v4',
};

type Doc = Record<string, unknown>;

function record(value: unknown): Doc {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Doc) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

// ---------------------------------------------------------------- shell command lines

/**
 * Splits a shell line into words: quotes removed, `$((…))` and `${{ … }}` kept whole. Enough
 * for the examples' one-line commands; not a shell.
 */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  let started = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line.charAt(i);
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else word += c;
      continue;
    }
    const close = line.startsWith('${{', i) ? '}}' : line.startsWith('$((', i) ? '))' : undefined;
    if (close !== undefined) {
      const end = line.indexOf(close, i);
      const stop = end < 0 ? line.length : end + close.length;
      word += line.slice(i, stop);
      started = true;
      i = stop - 1;
    } else if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (started) words.push(word);
  return words;
}

/** The words after `npx leaseproof` on each line of a script that runs it (comments skipped). */
function leaseproofCalls(script: string): string[][] {
  const calls: string[][] = [];
  for (const line of script.replace(/\\\n/g, ' ').split('\n')) {
    if (line.trim().startsWith('#')) continue;
    const words = shellWords(line);
    const at = words.findIndex((w, i) => w === 'leaseproof' && words[i - 1] === 'npx');
    if (at < 0) continue;
    const rest = words.slice(at + 1);
    const end = rest.findIndex((w) => ['||', '&&', ';', '|', '>', '2>'].includes(w));
    calls.push(end < 0 ? rest : rest.slice(0, end));
  }
  return calls;
}

/** The value after `flag` in a call (`--shard 2/4` or `--shard=2/4`). */
function flagValue(call: string[], flag: string): string | undefined {
  for (let i = 0; i < call.length; i += 1) {
    const word = call[i] ?? '';
    if (word === flag) return call[i + 1];
    if (word.startsWith(`${flag}=`)) return word.slice(flag.length + 1);
  }
  return undefined;
}

/**
 * What the program would reject in `call` (the words after `leaseproof`): an unknown command,
 * an option that command does not define, an option without its value, too many arguments.
 */
function cliProblems(call: string[], program: Command): string[] {
  const where = `leaseproof ${call.join(' ')}`;
  let command = program;
  let i = 0;
  for (;;) {
    const sub = command.commands.find((c) => c.name() === call[i]);
    if (sub === undefined) break;
    command = sub;
    i += 1;
  }
  if (command === program) return [`${where}: no command "${call[0] ?? ''}"`];
  const problems: string[] = [];
  const positional: string[] = [];
  for (; i < call.length; i += 1) {
    const word = call[i] ?? '';
    if (!word.startsWith('-')) {
      positional.push(word);
      continue;
    }
    const [flag = '', inline] = word.split('=', 2);
    const option = command.options.find((o) => o.long === flag || o.short === flag);
    if (option === undefined) {
      problems.push(`${where}: ${command.name()} has no option ${flag}`);
      // Its value, if it has one, is not an argument.
      if (inline === undefined && !(call[i + 1] ?? '-').startsWith('-')) i += 1;
    } else if (option.required && inline === undefined) {
      const value = call[i + 1];
      if (value === undefined || value.startsWith('--')) {
        problems.push(`${where}: ${flag} needs a value`);
      }
      i += 1;
    }
  }
  const args = command.registeredArguments;
  if (!args.some((a) => a.variadic) && positional.length > args.length) {
    problems.push(`${where}: ${command.name()} takes at most ${args.length} argument(s)`);
  }
  if (positional.length < args.filter((a) => a.required).length) {
    problems.push(`${where}: ${command.name()} needs ${args.map((a) => a.name()).join(', ')}`);
  }
  return problems;
}

// ---------------------------------------------------------------- GitHub Actions

interface Step {
  doc: Doc;
  index: number;
}

function steps(job: Doc): Step[] {
  return list(job.steps).map((doc, index) => ({ doc: record(doc), index }));
}

function uses(step: Step): string {
  return text(step.doc.uses);
}

/** The leaseproof calls of a workflow, with the job they run in. */
function workflowCalls(workflow: unknown): { job: string; call: string[] }[] {
  return Object.entries(record(record(workflow).jobs)).flatMap(([job, spec]) =>
    steps(record(spec)).flatMap((step) =>
      leaseproofCalls(text(step.doc.run)).map((call) => ({ job, call })),
    ),
  );
}

/** A glob of download-artifact's `pattern` (only `*`), as a regular expression. */
function globRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

/** Everything the workflow needs to work, as a list of problems (empty when all is well). */
function workflowProblems(workflow: unknown): string[] {
  const problems: string[] = [];
  const jobs = record(record(workflow).jobs);

  for (const [name, spec] of Object.entries(jobs)) {
    for (const step of steps(record(spec))) {
      const action = uses(step);
      if (action === '') continue;
      const [repo = '', version] = action.split('@');
      if (PINNED_ACTIONS[repo] === undefined || PINNED_ACTIONS[repo] !== version) {
        problems.push(`${name}: uses ${action}; expected one of the pinned actions`);
      }
    }
  }
  if (text(record(record(workflow).env).LEASEPROOF_ENV) !== 'embedded') {
    problems.push('the workflow does not set LEASEPROOF_ENV: embedded');
  }

  // Every job that runs leaseproof with --shard: a 1..n matrix, the same n on every --shard,
  // toxiproxy installed (with Go) first, and the exit code kept until the reports are uploaded.
  const suiteJobs: string[] = [];
  for (const [name, spec] of Object.entries(jobs)) {
    const job = record(spec);
    const calls = steps(job).flatMap((step) =>
      leaseproofCalls(text(step.doc.run)).map((call) => ({ step, call })),
    );
    const sharded = calls.filter(({ call }) => flagValue(call, '--shard') !== undefined);
    if (sharded.length === 0) continue;
    if (sharded.some(({ call }) => call[0] === 'suite')) suiteJobs.push(name);

    const strategy = record(job.strategy);
    const shards = list(record(strategy.matrix).shard);
    const n = shards.length;
    if (n === 0 || shards.some((s, i) => s !== i + 1)) {
      problems.push(`${name}: matrix.shard is [${shards.join(', ')}]; expected 1..n`);
    }
    if (strategy['fail-fast'] !== false) problems.push(`${name}: fail-fast is not false`);

    const names = steps(job);
    const installAt = names.findIndex(({ doc }) =>
      leaseproofCalls(text(doc.run)).some((c) => c.join(' ') === 'env install-toxiproxy'),
    );
    const goAt = names.findIndex((step) => uses(step).startsWith('actions/setup-go@'));
    for (const { step, call } of sharded) {
      const where = `${name}: leaseproof ${call.join(' ')}`;
      const shard = flagValue(call, '--shard') ?? '';
      if (!/^\$\{\{\s*matrix\.shard\s*\}\}\//.test(shard)) {
        problems.push(`${where}: --shard does not take its index from matrix.shard`);
      }
      if (shard.split('/').at(-1) !== String(n)) {
        problems.push(
          `${where}: --shard ${shard} says /${shard.split('/').at(-1)}; the matrix has ${n}`,
        );
      }
      if (installAt < 0 || installAt > step.index || goAt < 0 || goAt > installAt) {
        problems.push(`${where}: runs before setup-go and \`leaseproof env install-toxiproxy\``);
      }
      problems.push(...exitCodeKeptProblems(name, job, step));
    }
  }

  // The merge job: after the suite, even a failed one; it reads what the shards uploaded.
  const merges = Object.entries(jobs).filter(([, spec]) =>
    workflowCalls({ jobs: { x: spec } }).some(({ call }) => call[0] === 'merge'),
  );
  if (merges.length !== 1) problems.push(`${merges.length} jobs run leaseproof merge; expected 1`);
  for (const [name, spec] of merges) {
    const job = record(spec);
    const needs = [job.needs].flat().map(text);
    for (const suite of suiteJobs) {
      if (!needs.includes(suite)) problems.push(`${name}: does not need ${suite}`);
    }
    if (suiteJobs.length === 0) problems.push(`${name}: no sharded suite job to merge`);
    if (!/^(\$\{\{\s*)?always\(\)(\s*\}\})?$/.test(text(job.if))) {
      problems.push(`${name}: runs only when every shard passed (no if: always())`);
    }
    const download = steps(job).find((s) => uses(s).startsWith('actions/download-artifact@'));
    const withs = record(download?.doc.with);
    if (download === undefined) problems.push(`${name}: downloads no artifacts`);
    if (withs['merge-multiple'] !== false) problems.push(`${name}: merge-multiple is not false`);
    const pattern = globRegExp(text(withs.pattern));
    for (const suite of suiteJobs) {
      for (const shard of list(record(record(record(jobs[suite]).strategy).matrix).shard)) {
        const uploads = steps(record(jobs[suite])).filter((s) =>
          uses(s).startsWith('actions/upload-artifact@'),
        );
        const artifact = uploads
          .map((s) =>
            text(record(s.doc.with).name).replace(/\$\{\{\s*matrix\.shard\s*\}\}/g, text(shard)),
          )
          .find((a) => pattern.test(a));
        if (artifact === undefined) {
          problems.push(
            `${name}: pattern ${text(withs.pattern)} matches no artifact of shard ${text(shard)}`,
          );
        }
      }
    }
    for (const { call, step } of steps(job).flatMap((s) =>
      leaseproofCalls(text(s.doc.run)).map((c) => ({ call: c, step: s })),
    )) {
      if (call[0] !== 'merge') continue;
      const inputs = call
        .slice(1)
        .filter((w, i, all) => !w.startsWith('-') && !all[i - 1]?.startsWith('--'));
      if (!inputs.includes(text(withs.path))) {
        problems.push(
          `${name}: merges ${inputs.join(' ')}, not ${text(withs.path)} where the artifacts are`,
        );
      }
      problems.push(...exitCodeKeptProblems(name, job, step));
    }
  }
  return problems;
}

/**
 * A step that runs leaseproof must not fail before the reports are uploaded: it saves its exit
 * code as an output, an upload with `if: always()` follows, and a later step exits with it.
 */
function exitCodeKeptProblems(jobName: string, job: Doc, step: Step): string[] {
  const problems: string[] = [];
  const where = `${jobName}, step ${step.index + 1}`;
  const id = text(step.doc.id);
  const script = text(step.doc.run);
  if (id === '' || !/\|\| code=\$\?/.test(script) || !/\$GITHUB_OUTPUT/.test(script)) {
    problems.push(`${where}: a failing leaseproof ends the job before its reports are uploaded`);
  }
  const later = steps(job).slice(step.index + 1);
  const uploadAt = later.findIndex((s) => uses(s).startsWith('actions/upload-artifact@'));
  const upload = later[uploadAt];
  if (upload === undefined || !/always\(\)/.test(text(upload.doc.if))) {
    problems.push(`${where}: its reports are not uploaded with if: always()`);
  }
  const reference = new RegExp(`steps\\.${id}\\.outputs\\.exit-code`);
  const verdict = later.find((s) =>
    Object.values(record(s.doc.env)).some((v) => reference.test(text(v))),
  );
  if (
    verdict === undefined ||
    verdict.index < (upload?.index ?? Infinity) ||
    !/exit/.test(text(verdict.doc.run))
  ) {
    problems.push(`${where}: no step after the upload exits with the saved code`);
  }
  return problems;
}

// ---------------------------------------------------------------- Kubernetes

interface Container {
  name: string;
  doc: Doc;
}

function containers(podSpec: Doc, key: 'containers' | 'initContainers'): Container[] {
  return list(podSpec[key]).map((c) => ({ name: text(record(c).name), doc: record(c) }));
}

function podSpec(job: Doc): Doc {
  return record(record(record(job.spec).template).spec);
}

/** The leaseproof calls of a container: `sh -c <script>` or `npx leaseproof …` as argv. */
function containerCalls(container: Doc): { call: string[]; script: string }[] {
  const argv = [...list(container.command), ...list(container.args)].map(text);
  if (argv[0] === 'sh' && argv[1] === '-c') {
    const script = argv[2] ?? '';
    return leaseproofCalls(script).map((call) => ({ call, script }));
  }
  const at = argv.findIndex((w, i) => w === 'leaseproof' && argv[i - 1] === 'npx');
  return at < 0 ? [] : [{ call: argv.slice(at + 1), script: argv.join(' ') }];
}

function envOf(container: Doc): Map<string, string> {
  return new Map(list(container.env).map((e) => [text(record(e).name), text(record(e).value)]));
}

/** The environment variables the external provider reads, by watching it read them. */
function externalEnvNames(): Set<string> {
  const names = new Set<string>();
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: 'postgres://u:p@h:5432/d',
    TOXIPROXY_URL: 'http://h:8474',
  };
  externalOptionsFromEnv(
    new Proxy(env, {
      get: (target, key) => {
        if (typeof key !== 'string') return undefined;
        names.add(key);
        return target[key];
      },
    }),
  );
  return names;
}

/** The `--env` option's environment variable (`LEASEPROOF_ENV`). */
function envSelector(program: Command): string {
  const suite = program.commands.find((c) => c.name() === 'suite');
  return suite?.options.find((o) => o.long === '--env')?.envVar ?? '';
}

/** The PersistentVolumeClaim that holds `path` in a container, or ''. */
function claimAt(pod: Doc, container: Doc, path: string): string {
  const mount = list(container.volumeMounts)
    .map(record)
    .find((m) => path === text(m.mountPath) || path.startsWith(`${text(m.mountPath)}/`));
  const volume = list(pod.volumes)
    .map(record)
    .find((v) => v.name === mount?.name);
  return text(record(volume?.persistentVolumeClaim).claimName);
}

/** `$name` or `${name}` as the script assigns it (`name=value`), else the word itself. */
function expand(word: string, script: string): string {
  const name = /^\$\{?(\w+)\}?$/.exec(word)?.[1];
  if (name === undefined) return word;
  return new RegExp(`^\\s*${name}=(.+?)\\s*$`, 'm').exec(script)?.[1] ?? word;
}

/** Everything the Indexed Job and the merge Job need to work, as a list of problems. */
function k8sProblems(shardDocs: unknown[], mergeDocs: unknown[], compose: unknown): string[] {
  const problems: string[] = [];
  const docs = [...shardDocs, ...mergeDocs].map(record);
  const jobs = docs.filter((d) => d.kind === 'Job');
  const claims = new Map(
    docs
      .filter((d) => d.kind === 'PersistentVolumeClaim')
      .map((d) => [text(record(d.metadata).name), list(record(d.spec).accessModes)]),
  );
  const indexed = jobs.filter((j) => record(j.spec).completionMode === 'Indexed');
  if (indexed.length !== 1) problems.push(`${indexed.length} Indexed Jobs; expected 1`);
  const services = record(record(compose).services);

  let shardsDir: string | undefined;
  let shardsClaim: string | undefined;
  for (const job of indexed) {
    const spec = record(job.spec);
    const pod = podSpec(job);
    if (pod.restartPolicy !== 'Never') problems.push('the Indexed Job restarts pods in place');
    if (spec.backoffLimitPerIndex === undefined && spec.backoffLimit === undefined) {
      problems.push('the Indexed Job sets no backoff limit');
    }

    // Sidecars: native (init containers that keep running), started in order once ready.
    const sidecars = containers(pod, 'initContainers');
    for (const sidecar of sidecars) {
      if (sidecar.doc.restartPolicy !== 'Always') {
        problems.push(`${sidecar.name}: not a native sidecar (restartPolicy: Always)`);
      }
      if (sidecar.doc.startupProbe === undefined || sidecar.doc.readinessProbe === undefined) {
        problems.push(`${sidecar.name}: no startup and readiness probes`);
      }
    }
    const postgres = sidecars.find((c) => text(c.doc.image).startsWith('postgres'));
    const toxiproxy = sidecars.find((c) => text(c.doc.image).includes('toxiproxy'));
    const composePostgres = record(services.postgres);
    for (const [mine, theirs, code] of [
      [postgres, composePostgres, POSTGRES_IMAGE],
      [toxiproxy, record(services.toxiproxy), TOXIPROXY_IMAGE],
    ] as const) {
      const image = text(mine?.doc.image);
      if (image !== text(theirs.image) || image !== code) {
        problems.push(
          `sidecar image ${image || '(none)'}; docker-compose.yml has ${text(theirs.image)}`,
        );
      }
    }
    const args = list(postgres?.doc.args).map(text);
    for (const setting of list(composePostgres.command).map(text)) {
      if (!args.includes(setting)) problems.push(`postgres: lacks docker-compose.yml's ${setting}`);
    }
    const dataDir = text(list(composePostgres.tmpfs)[0]);
    const dataMount = list(postgres?.doc.volumeMounts)
      .map(record)
      .find((m) => m.mountPath === dataDir);
    const dataVolume = list(pod.volumes)
      .map(record)
      .find((v) => v.name === dataMount?.name);
    if (record(dataVolume?.emptyDir).medium !== 'Memory') {
      problems.push(`postgres: ${dataDir} is not an in-memory emptyDir (compose: tmpfs)`);
    }

    // The shard's command: its n equals completions and parallelism, its i the index + 1.
    const main = containers(pod, 'containers');
    const calls = main.flatMap((c) => containerCalls(c.doc).map((call) => ({ ...call, c })));
    const suites = calls.filter(({ call }) => call[0] === 'suite');
    if (suites.length !== 1) problems.push(`${suites.length} suite commands; expected 1`);
    for (const { call, script, c } of suites) {
      const shard = flagValue(call, '--shard') ?? '';
      const match = /^(.*)\/(\d+)$/.exec(shard);
      const n = Number(match?.[2]);
      if (spec.completions !== n || spec.parallelism !== n) {
        problems.push(
          `--shard ${shard}, but completions ${text(spec.completions)} and parallelism ${text(spec.parallelism)}`,
        );
      }
      const index = expand(match?.[1] ?? '', script);
      if (!/^\$\(\(\s*JOB_COMPLETION_INDEX\s*\+\s*1\s*\)\)$/.test(index)) {
        problems.push(`--shard ${shard}: the index is not $((JOB_COMPLETION_INDEX + 1))`);
      }

      // Reports go to a ReadWriteMany claim.
      const out = expand(flagValue(call, '--out') ?? '', script);
      shardsDir = out.replace(/\/[^/]*\$.*$/, '');
      const claim = claimAt(pod, c.doc, out);
      if (!list(claims.get(claim)).includes('ReadWriteMany')) {
        problems.push(`--out ${out} is not on a ReadWriteMany claim defined in the manifests`);
      }
      shardsClaim = claim;
    }

    // The environment: exactly what the external provider reads, pointing at the sidecars.
    const readNames = externalEnvNames();
    const selector = envSelector(buildProgram());
    for (const c of main) {
      const env = envOf(c.doc);
      for (const name of env.keys()) {
        if (!readNames.has(name) && name !== selector) {
          problems.push(`${c.name}: sets ${name}, which leaseproof does not read`);
        }
      }
      if (env.get(selector) !== 'external') problems.push(`${c.name}: ${selector} is not external`);
      if (env.has('TOXIPROXY_LISTEN_PORTS')) {
        problems.push(`${c.name}: TOXIPROXY_LISTEN_PORTS makes proxies listen on 0.0.0.0`);
      }
      const url = new URL(env.get('DATABASE_URL') ?? 'invalid:');
      const postgresEnv = envOf(postgres?.doc ?? {});
      if (
        url.hostname !== '127.0.0.1' ||
        decodeURIComponent(url.username) !== postgresEnv.get('POSTGRES_USER') ||
        decodeURIComponent(url.password) !== postgresEnv.get('POSTGRES_PASSWORD')
      ) {
        problems.push(`${c.name}: DATABASE_URL does not reach the postgres sidecar as its user`);
      }
      for (const name of ['TOXIPROXY_URL', 'TOXIPROXY_UPSTREAM', 'TOXIPROXY_LISTEN_HOST']) {
        if (!(env.get(name) ?? '').includes('127.0.0.1')) {
          problems.push(`${c.name}: ${name} does not point at this pod (127.0.0.1)`);
        }
      }
    }
  }

  // The merge Job: once, reading the folder the shards write to, writing beside it.
  const merges = jobs.flatMap((job) =>
    containers(podSpec(job), 'containers').flatMap((c) =>
      containerCalls(c.doc)
        .filter(({ call }) => call[0] === 'merge')
        .map(({ call }) => ({ job, call, container: c.doc })),
    ),
  );
  if (merges.length !== 1) problems.push(`${merges.length} merge commands; expected 1`);
  for (const { job, call, container } of merges) {
    if (record(job.spec).backoffLimit !== 0) problems.push('the merge Job retries its verdict');
    const input = call[1] ?? '';
    const out = flagValue(call, '--out') ?? '';
    if (shardsDir === undefined || !`${shardsDir}/`.startsWith(`${input}/`)) {
      problems.push(`merge reads ${input}; the shards write to ${shardsDir ?? '(nothing)'}`);
    }
    for (const path of [input, out]) {
      if (shardsClaim === undefined || claimAt(podSpec(job), container, path) !== shardsClaim) {
        problems.push(`merge: ${path} is not on the claim the shards write to`);
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------- the tests

describe('examples/ci/github-actions.yml', () => {
  it('shards, uploads and merges as a working workflow', () => {
    expect(workflowProblems(WORKFLOW)).toEqual([]);
  });
});

describe('examples/k8s', () => {
  it('runs one shard per index with its own PostgreSQL and Toxiproxy, and merges them', () => {
    expect(k8sProblems(K8S_SHARDS, K8S_MERGE, COMPOSE)).toEqual([]);
  });
});

describe('the leaseproof command lines of the examples', () => {
  const calls = [
    ...workflowCalls(WORKFLOW).map(({ call }) => call),
    ...[...K8S_SHARDS, ...K8S_MERGE].flatMap((doc) =>
      containers(podSpec(record(doc)), 'containers').flatMap((c) =>
        containerCalls(c.doc).map(({ call }) => call),
      ),
    ),
  ];

  it('run suite, merge, explore and env install-toxiproxy', () => {
    const names = calls.map((call) => call[0]);
    expect(new Set(names)).toEqual(new Set(['env', 'suite', 'merge', 'explore']));
  });

  it('use only commands and options the CLI defines', () => {
    const program = buildProgram();
    expect(calls.flatMap((call) => cliProblems(call, program))).toEqual([]);
  });
});

type Mutation = [what: string, mutate: (doc: Doc) => void, caught: RegExp];

const jobOf = (doc: Doc, name: string): Doc => record(record(doc.jobs)[name]);
const stepsOf = (doc: Doc, name: string): Doc[] => list(jobOf(doc, name).steps).map(record);
const stepUsing = (doc: Doc, name: string, action: string): Doc =>
  stepsOf(doc, name).find((s) => text(s.uses).startsWith(`${action}@`)) ?? {};
const stepRunning = (doc: Doc, name: string, command: string): Doc =>
  stepsOf(doc, name).find((s) => text(s.run).includes(`leaseproof ${command}`)) ?? {};

const WORKFLOW_MUTATIONS: Mutation[] = [
  [
    'a matrix of three shards while --shard says /4',
    (w) => void (record(record(jobOf(w, 'suite').strategy).matrix).shard = [1, 2, 3]),
    /says \/4; the matrix has 3/,
  ],
  [
    'a matrix that does not count from 1',
    (w) => void (record(record(jobOf(w, 'suite').strategy).matrix).shard = [0, 1, 2, 3]),
    /suite: matrix\.shard is \[0, 1, 2, 3\]; expected 1\.\.n/,
  ],
  [
    'fail-fast left on',
    (w) => void delete record(jobOf(w, 'suite').strategy)['fail-fast'],
    /suite: fail-fast is not false/,
  ],
  [
    'a --shard index that is not the matrix entry',
    (w) => {
      const step = stepRunning(w, 'suite', 'suite');
      step.run = text(step.run).replace('--shard ${{ matrix.shard }}/4', '--shard 1/4');
    },
    /--shard does not take its index from matrix\.shard/,
  ],
  [
    'toxiproxy installed after the suite runs',
    (w) => {
      const job = jobOf(w, 'suite');
      job.steps = list(job.steps).filter((s) => !text(record(s).run).includes('install-toxiproxy'));
    },
    /runs before setup-go and `leaseproof env install-toxiproxy`/,
  ],
  [
    'no LEASEPROOF_ENV: embedded',
    (w) => void delete w.env,
    /does not set LEASEPROOF_ENV: embedded/,
  ],
  [
    'an action that is not pinned to its major version',
    (w) => void (stepUsing(w, 'suite', 'actions/checkout').uses = 'actions/checkout@main'),
    /suite: uses actions\/checkout@main/,
  ],
  [
    'a leaseproof step whose failure skips the upload',
    (w) => {
      const step = stepRunning(w, 'suite', 'suite');
      step.run = text(step.run).replace(' || code=$?', '');
    },
    /suite, step \d+: a failing leaseproof ends the job before its reports are uploaded/,
  ],
  [
    'an upload skipped when the verdict is invalid',
    (w) => void delete stepUsing(w, 'suite', 'actions/upload-artifact').if,
    /suite, step \d+: its reports are not uploaded with if: always\(\)/,
  ],
  [
    'a saved exit code nobody exits with',
    (w) => {
      const job = jobOf(w, 'merge');
      job.steps = list(job.steps).filter((s) => record(s).name !== 'Merged verdict');
    },
    /merge, step \d+: no step after the upload exits with the saved code/,
  ],
  [
    'a merge job that runs only when every shard passed',
    (w) => void delete jobOf(w, 'merge').if,
    /merge: runs only when every shard passed/,
  ],
  [
    'a merge job that does not wait for the suite',
    (w) => void (jobOf(w, 'merge').needs = []),
    /merge: does not need suite/,
  ],
  [
    'a download pattern that misses the shard artifacts',
    (w) =>
      void (record(stepUsing(w, 'merge', 'actions/download-artifact').with).pattern = 'shard-*'),
    /matches no artifact of shard 1/,
  ],
  [
    'artifacts downloaded into one folder',
    (w) => {
      record(stepUsing(w, 'merge', 'actions/download-artifact').with)['merge-multiple'] = true;
    },
    /merge: merge-multiple is not false/,
  ],
  [
    'a merge of a folder the artifacts are not in',
    (w) => void (record(stepUsing(w, 'merge', 'actions/download-artifact').with).path = 'shards'),
    /merge: merges reports\/shards, not shards where the artifacts are/,
  ],
];

const shardJob = (docs: Doc[]): Doc => docs.find((d) => d.kind === 'Job') ?? {};
const shardPod = (docs: Doc[]): Doc => podSpec(shardJob(docs));
const sidecar = (docs: Doc[], name: string): Doc =>
  list(shardPod(docs).initContainers)
    .map(record)
    .find((c) => c.name === name) ?? {};
const mainContainer = (docs: Doc[]): Doc => record(list(shardPod(docs).containers)[0]);
const setEnv = (container: Doc, name: string, value: string | undefined): void => {
  const rest = list(container.env).filter((e) => record(e).name !== name);
  container.env = value === undefined ? rest : [...rest, { name, value }];
};
const editScript = (docs: Doc[], from: string, to: string): void => {
  const main = mainContainer(docs);
  main.args = list(main.args).map((a) => text(a).replace(from, to));
};

/** Broken copies of indexed-job.yaml (the docs as a list) and what must catch each. */
const K8S_MUTATIONS: [what: string, mutate: (docs: Doc[]) => void, caught: RegExp][] = [
  [
    'three completions while --shard says /4',
    (d) => void (record(shardJob(d).spec).completions = 3),
    /--shard \$shard\/4, but completions 3 and parallelism 4/,
  ],
  [
    'parallelism below the shard count',
    (d) => void (record(shardJob(d).spec).parallelism = 2),
    /but completions 4 and parallelism 2/,
  ],
  [
    'a shard index without + 1',
    (d) => editScript(d, 'JOB_COMPLETION_INDEX + 1', 'JOB_COMPLETION_INDEX'),
    /the index is not \$\(\(JOB_COMPLETION_INDEX \+ 1\)\)/,
  ],
  [
    'a Job that is not Indexed',
    (d) => void delete record(shardJob(d).spec).completionMode,
    /0 Indexed Jobs; expected 1/,
  ],
  [
    'pods restarted in place',
    (d) => void (shardPod(d).restartPolicy = 'OnFailure'),
    /restarts pods in place/,
  ],
  [
    'no backoff limit',
    (d) => void delete record(shardJob(d).spec).backoffLimitPerIndex,
    /sets no backoff limit/,
  ],
  [
    'a sidecar that is an ordinary init container',
    (d) => void delete sidecar(d, 'toxiproxy').restartPolicy,
    /toxiproxy: not a native sidecar/,
  ],
  [
    'a sidecar without a startup probe',
    (d) => void delete sidecar(d, 'postgres').startupProbe,
    /postgres: no startup and readiness probes/,
  ],
  [
    'a sidecar image that differs from docker-compose.yml',
    (d) => void (sidecar(d, 'postgres').image = 'postgres:16-alpine'),
    /sidecar image postgres:16-alpine/,
  ],
  [
    'a postgres setting of docker-compose.yml left out',
    (d) => {
      const postgres = sidecar(d, 'postgres');
      postgres.args = list(postgres.args).filter((a) => a !== 'fsync=off');
    },
    /postgres: lacks docker-compose\.yml's fsync=off/,
  ],
  [
    'the database on disk',
    (d) => {
      const volume = list(shardPod(d).volumes)
        .map(record)
        .find((v) => v.name === 'pgdata');
      if (volume !== undefined) volume.emptyDir = {};
    },
    /is not an in-memory emptyDir/,
  ],
  [
    'reports on a ReadWriteOnce claim',
    (d) => {
      const claim = d.find((doc) => doc.kind === 'PersistentVolumeClaim') ?? {};
      record(claim.spec).accessModes = ['ReadWriteOnce'];
    },
    /is not on a ReadWriteMany claim/,
  ],
  [
    'an environment variable leaseproof does not read',
    (d) => setEnv(mainContainer(d), 'TOXIPROXY_LISTEN_ADDR', '127.0.0.1'),
    /sets TOXIPROXY_LISTEN_ADDR, which leaseproof does not read/,
  ],
  [
    'another environment than external',
    (d) => setEnv(mainContainer(d), 'LEASEPROOF_ENV', 'embedded'),
    /LEASEPROOF_ENV is not external/,
  ],
  [
    'published proxy ports in a pod that publishes none',
    (d) => setEnv(mainContainer(d), 'TOXIPROXY_LISTEN_PORTS', '8666-8697'),
    /TOXIPROXY_LISTEN_PORTS makes proxies listen on 0\.0\.0\.0/,
  ],
  [
    "a DATABASE_URL without the sidecar's password",
    (d) =>
      setEnv(mainContainer(d), 'DATABASE_URL', 'postgres://postgres:x@127.0.0.1:5432/postgres'),
    /DATABASE_URL does not reach the postgres sidecar/,
  ],
  [
    'Toxiproxy looked for outside the pod',
    (d) => setEnv(mainContainer(d), 'TOXIPROXY_URL', 'http://toxiproxy:8474'),
    /TOXIPROXY_URL does not point at this pod/,
  ],
  [
    'shards written where merge does not look',
    (d) => editScript(d, 'out=/reports/shards/', 'out=/reports/'),
    /merge reads \/reports\/shards; the shards write to \/reports$/,
  ],
];

describe('each check fails on a broken copy', () => {
  it.each(WORKFLOW_MUTATIONS)('workflow: %s', (_, mutate, caught) => {
    const broken = structuredClone(record(WORKFLOW));
    mutate(broken);
    expect(workflowProblems(broken)).toContainEqual(expect.stringMatching(caught));
  });

  it.each(K8S_MUTATIONS)('k8s: %s', (_, mutate, caught) => {
    const broken = structuredClone(K8S_SHARDS).map(record);
    mutate(broken);
    expect(k8sProblems(broken, K8S_MERGE, COMPOSE)).toContainEqual(expect.stringMatching(caught));
  });

  it('k8s: a merge Job that writes off the claim, or retries', () => {
    const merge = structuredClone(K8S_MERGE).map(record);
    const job = merge[0] ?? {};
    const container = record(list(podSpec(job).containers)[0]);
    container.command = ['npx', 'leaseproof', 'merge', '/reports/shards', '--out', 'merged'];
    record(job.spec).backoffLimit = 3;
    const problems = k8sProblems(K8S_SHARDS, merge, COMPOSE);
    expect(problems).toContainEqual(
      expect.stringMatching(/merge: merged is not on the claim the shards write to/),
    );
    expect(problems).toContainEqual(expect.stringMatching(/retries its verdict/));
  });

  it('cli: an option or a command the CLI does not define', () => {
    const program = buildProgram();
    expect(cliProblems(['suite', 'scenarios', '--shards', '1/4'], program)).toEqual([
      'leaseproof suite scenarios --shards 1/4: suite has no option --shards',
    ]);
    expect(cliProblems(['merg', 'reports'], program)).toContainEqual(
      expect.stringMatching(/no command "merg"/),
    );
    expect(cliProblems(['suite', 'a', 'b'], program)).toContainEqual(
      expect.stringMatching(/at most 1 argument/),
    );
    expect(cliProblems(['suite', '--out'], program)).toContainEqual(
      expect.stringMatching(/--out needs a value/),
    );
  });
});
