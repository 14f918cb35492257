import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { POSTGRES_IMAGE, TOXIPROXY_IMAGE } from '../../src/env/containers-env.js';
import { parseDatabaseUrl } from '../../src/env/database-url.js';
import { parsePortRange } from '../../src/env/external-env.js';
import { TOXIPROXY_VERSION } from '../../src/env/toxiproxy-install.js';

const COMPOSE_TEXT = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');
const ENV_TEXT = readFileSync(new URL('../../docker-compose.env', import.meta.url), 'utf8');

const ENV_KEYS = [
  'DATABASE_URL',
  'TOXIPROXY_URL',
  'TOXIPROXY_UPSTREAM',
  'TOXIPROXY_LISTEN_HOST',
  'TOXIPROXY_LISTEN_PORTS',
];

type Env = Record<string, string>;

/** A published port mapping, `[ip:]host[-host]:container[-container]`, spread port by port. */
interface Published {
  ip: string;
  pairs: { host: number; container: number }[];
}

function parseEnvFile(text: string): Env {
  const env: Env = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const at = line.indexOf('=');
    if (at < 1) throw new Error(`not KEY=VALUE: "${line}"`);
    env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}

function parsePublished(entry: unknown): Published {
  const match = /^(?:([\d.]+):)?(\d+(?:-\d+)?):(\d+(?:-\d+)?)(?:\/tcp)?$/.exec(String(entry));
  if (match === null) throw new Error(`unsupported port syntax: ${String(entry)}`);
  const hosts = parsePortRange(match[2] ?? '', 'host ports');
  const containers = parsePortRange(match[3] ?? '', 'container ports');
  if (hosts.length !== containers.length) throw new Error(`ranges differ in length: ${match[0]}`);
  return {
    ip: match[1] ?? '0.0.0.0',
    pairs: hosts.map((host, i) => ({ host, container: containers[i] ?? -1 })),
  };
}

function imageTag(image: string): string | undefined {
  const match = /^[^@]+:([^/:@]+)$/.exec(image);
  return match?.[1];
}

function scalar(value: unknown, fallback: string): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/**
 * Everything that must agree between docker-compose.yml, docker-compose.env and the code, as a
 * list of disagreements: empty when all is well. A function rather than inline expectations, so
 * the tests below can feed it broken copies and see each check fail.
 */
function composeProblems(compose: unknown, env: Env, composeText: string): string[] {
  const problems: string[] = [];
  const services = record(record(compose).services);
  const postgres = record(services.postgres);
  const toxiproxy = record(services.toxiproxy);
  const postgresEnv = record(postgres.environment);

  const keys = Object.keys(env).sort();
  if (JSON.stringify(keys) !== JSON.stringify([...ENV_KEYS].sort())) {
    problems.push(`docker-compose.env sets ${keys.join(', ')}; expected ${ENV_KEYS.join(', ')}`);
  }
  for (const [key, value] of Object.entries(env)) {
    if (!composeText.includes(`${key}=${value}`)) {
      problems.push(`the comment block of docker-compose.yml does not show ${key}=${value}`);
    }
  }

  for (const [name, service, expected] of [
    ['postgres', postgres, POSTGRES_IMAGE],
    ['toxiproxy', toxiproxy, TOXIPROXY_IMAGE],
  ] as const) {
    const image = String(service.image);
    const tag = imageTag(image);
    if (tag === undefined || tag === 'latest') {
      problems.push(`${name}: image ${image} is not pinned`);
    }
    if (image !== expected) {
      problems.push(`${name}: image ${image}, but --env containers starts ${expected}`);
    }
    if (!Array.isArray(record(service.healthcheck).test)) {
      problems.push(`${name}: no healthcheck test`);
    }
  }
  const pinned = TOXIPROXY_VERSION.replace(/^v/, '');
  for (const image of [String(toxiproxy.image), TOXIPROXY_IMAGE]) {
    if (imageTag(image) !== pinned) {
      problems.push(`${image} is not the pinned Toxiproxy release ${TOXIPROXY_VERSION}`);
    }
  }
  const postgresCheck = (record(postgres.healthcheck).test ?? []) as unknown[];
  if (!postgresCheck.map(String).join(' ').includes('pg_isready')) {
    problems.push('postgres: the healthcheck does not use pg_isready');
  }
  // The image is FROM scratch: CMD-SHELL would need a shell it does not have.
  const toxiproxyCheck = record(toxiproxy.healthcheck).test;
  if (JSON.stringify(toxiproxyCheck) !== JSON.stringify(['CMD', '/toxiproxy-cli', 'list'])) {
    problems.push(
      `toxiproxy: healthcheck ${JSON.stringify(toxiproxyCheck)} is not [CMD, /toxiproxy-cli, list] (the image has no shell)`,
    );
  }
  if (record(record(toxiproxy.depends_on).postgres).condition !== 'service_healthy') {
    problems.push('toxiproxy does not wait for postgres to be healthy');
  }

  const postgresPorts = ((postgres.ports ?? []) as unknown[]).map(parsePublished);
  const toxiproxyPorts = ((toxiproxy.ports ?? []) as unknown[]).map(parsePublished);
  const mappingOf = (ports: Published[], container: number) => {
    for (const { ip, pairs } of ports) {
      const pair = pairs.find((p) => p.container === container);
      if (pair !== undefined) return { ip, host: pair.host };
    }
    return undefined;
  };

  const db = parseDatabaseUrl(env.DATABASE_URL ?? '', 'DATABASE_URL');
  if (mappingOf(postgresPorts, 5432)?.host !== db.port) {
    problems.push(`DATABASE_URL port ${db.port} is not the port published for postgres:5432`);
  }
  if (mappingOf(postgresPorts, 5432)?.ip !== db.host) {
    problems.push(`DATABASE_URL host ${db.host} is not where postgres:5432 is published`);
  }
  if (
    db.user !== scalar(postgresEnv.POSTGRES_USER, 'postgres') ||
    db.password !== scalar(postgresEnv.POSTGRES_PASSWORD, '') ||
    db.database !== scalar(postgresEnv.POSTGRES_DB, db.user)
  ) {
    problems.push('DATABASE_URL user, password or database differ from POSTGRES_* settings');
  }

  const api = new URL(env.TOXIPROXY_URL ?? 'http://invalid');
  if (mappingOf(toxiproxyPorts, 8474)?.host !== Number(api.port)) {
    problems.push(`TOXIPROXY_URL port ${api.port} is not the port published for toxiproxy:8474`);
  }
  if (mappingOf(toxiproxyPorts, 8474)?.ip !== api.hostname) {
    problems.push(`TOXIPROXY_URL host ${api.hostname} is not where toxiproxy:8474 is published`);
  }

  // A proxy listens on a container port and clients dial the same number on the host, so the
  // range must be published one to one, and every port of it.
  const listenPorts = parsePortRange(env.TOXIPROXY_LISTEN_PORTS ?? '');
  const proxyPairs = toxiproxyPorts
    .filter((p) => p.pairs.every((pair) => pair.container !== 8474))
    .flatMap((p) => p.pairs.map((pair) => ({ ...pair, ip: p.ip })));
  if (
    JSON.stringify(proxyPairs.map((pair) => pair.host)) !== JSON.stringify(listenPorts) ||
    proxyPairs.some((pair) => pair.host !== pair.container)
  ) {
    problems.push(
      `TOXIPROXY_LISTEN_PORTS=${env.TOXIPROXY_LISTEN_PORTS} is not the published proxy range`,
    );
  }
  if (proxyPairs.some((pair) => pair.ip !== env.TOXIPROXY_LISTEN_HOST)) {
    problems.push(`TOXIPROXY_LISTEN_HOST=${env.TOXIPROXY_LISTEN_HOST} is not where proxies are`);
  }

  // Toxiproxy dials PostgreSQL inside the compose network: the service's name and the
  // container side of the port DATABASE_URL reaches from the host.
  const [upstreamHost = '', upstreamPort] = (env.TOXIPROXY_UPSTREAM ?? '').split(':');
  const upstreamService = record(services[upstreamHost]);
  const upstreamPorts = ((upstreamService.ports ?? []) as unknown[]).map(parsePublished);
  const containerPort = upstreamPorts
    .flatMap((p) => p.pairs)
    .find((pair) => pair.host === db.port)?.container;
  if (
    String(upstreamService.image) !== POSTGRES_IMAGE ||
    containerPort === undefined ||
    Number(upstreamPort) !== containerPort
  ) {
    problems.push(
      `TOXIPROXY_UPSTREAM=${env.TOXIPROXY_UPSTREAM} is not the postgres service's container port`,
    );
  }
  return problems;
}

const compose: unknown = parse(COMPOSE_TEXT);
const env = parseEnvFile(ENV_TEXT);

/** A deep copy of the compose file with one change, as a person might make by mistake. */
function broken(change: (services: Record<string, Record<string, unknown>>) => void): unknown {
  const copy = structuredClone(compose) as { services: Record<string, Record<string, unknown>> };
  change(copy.services);
  return copy;
}

describe('docker-compose.yml', () => {
  it('agrees with docker-compose.env, the containers provider and the pinned Toxiproxy', () => {
    expect(composeProblems(compose, env, COMPOSE_TEXT)).toEqual([]);
  });

  it('publishes only on loopback', () => {
    const services = record(record(compose).services);
    for (const service of Object.values(services)) {
      for (const entry of (record(service).ports ?? []) as unknown[]) {
        expect(parsePublished(entry).ip).toBe('127.0.0.1');
      }
    }
  });

  const mutations: [string, RegExp, () => [unknown, Env, string]][] = [
    [
      'a wrong postgres port',
      /DATABASE_URL port/,
      () => [broken((s) => (s.postgres!.ports = ['127.0.0.1:55433:5432'])), env, COMPOSE_TEXT],
    ],
    [
      'a wrong DATABASE_URL port',
      /DATABASE_URL port/,
      () => [
        compose,
        { ...env, DATABASE_URL: env.DATABASE_URL!.replace(':55432/', ':5432/') },
        COMPOSE_TEXT,
      ],
    ],
    [
      'a wrong password',
      /password/,
      () => [
        broken((s) => (record(s.postgres!.environment).POSTGRES_PASSWORD = 'other')),
        env,
        COMPOSE_TEXT,
      ],
    ],
    [
      'a wrong Toxiproxy API port',
      /TOXIPROXY_URL port/,
      () => [
        broken(
          (s) => (s.toxiproxy!.ports = ['127.0.0.1:8475:8474', '127.0.0.1:8666-8697:8666-8697']),
        ),
        env,
        COMPOSE_TEXT,
      ],
    ],
    [
      'a shorter proxy range',
      /TOXIPROXY_LISTEN_PORTS/,
      () => [
        broken(
          (s) => (s.toxiproxy!.ports = ['127.0.0.1:8474:8474', '127.0.0.1:8666-8690:8666-8690']),
        ),
        env,
        COMPOSE_TEXT,
      ],
    ],
    [
      'a shifted proxy range',
      /TOXIPROXY_LISTEN_PORTS/,
      () => [
        broken(
          (s) => (s.toxiproxy!.ports = ['127.0.0.1:8474:8474', '127.0.0.1:9666-9697:8666-8697']),
        ),
        env,
        COMPOSE_TEXT,
      ],
    ],
    [
      'another TOXIPROXY_LISTEN_HOST',
      /TOXIPROXY_LISTEN_HOST=0.0.0.0/,
      () => [compose, { ...env, TOXIPROXY_LISTEN_HOST: '0.0.0.0' }, COMPOSE_TEXT],
    ],
    [
      'an upstream that is not the postgres service',
      /TOXIPROXY_UPSTREAM=127/,
      () => [compose, { ...env, TOXIPROXY_UPSTREAM: '127.0.0.1:55432' }, COMPOSE_TEXT],
    ],
    [
      "an upstream on the host's port",
      /TOXIPROXY_UPSTREAM=postgres:55432/,
      () => [compose, { ...env, TOXIPROXY_UPSTREAM: 'postgres:55432' }, COMPOSE_TEXT],
    ],
    [
      'a latest tag',
      /not pinned/,
      () => [broken((s) => (s.postgres!.image = 'postgres:latest')), env, COMPOSE_TEXT],
    ],
    [
      'another postgres image than the containers provider',
      /--env containers starts/,
      () => [broken((s) => (s.postgres!.image = 'postgres:16-alpine')), env, COMPOSE_TEXT],
    ],
    [
      'another Toxiproxy release',
      /pinned Toxiproxy release/,
      () => [
        broken((s) => (s.toxiproxy!.image = 'ghcr.io/shopify/toxiproxy:2.9.0')),
        env,
        COMPOSE_TEXT,
      ],
    ],
    [
      'no healthcheck',
      /postgres: no healthcheck/,
      () => [broken((s) => delete s.postgres!.healthcheck), env, COMPOSE_TEXT],
    ],
    [
      'a shell healthcheck for Toxiproxy',
      /toxiproxy: healthcheck/,
      () => [
        broken(
          (s) =>
            (s.toxiproxy!.healthcheck = { test: ['CMD-SHELL', 'wget -q localhost:8474/version'] }),
        ),
        env,
        COMPOSE_TEXT,
      ],
    ],
    [
      'a missing env var',
      /docker-compose.env sets/,
      () => [compose, { ...env, TOXIPROXY_UPSTREAM: undefined } as unknown as Env, COMPOSE_TEXT],
    ],
    [
      'a comment block out of date',
      /comment block/,
      () => [compose, env, COMPOSE_TEXT.replace('TOXIPROXY_LISTEN_PORTS=', 'TOXIPROXY_PORTS=')],
    ],
  ];

  it.each(mutations)('notices %s', (_, expected, make) => {
    const [brokenCompose, brokenEnv, text] = make();
    const cleanEnv = Object.fromEntries(
      Object.entries(brokenEnv).filter(([, value]) => value !== undefined),
    );
    expect(composeProblems(brokenCompose, cleanEnv, text)).toContainEqual(
      expect.stringMatching(expected),
    );
  });
});
