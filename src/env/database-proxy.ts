import { Toxiproxy, type Proxy } from 'toxiproxy-node-client';
import type { DatabaseProxy, RunDatabase, ToxicSpec } from './types.js';
import { withDatabaseUrl } from './database-url.js';
import { EnvironmentError } from '../errors.js';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  isToxiproxyStatus,
  isToxiproxyUnreachable,
  rootCause,
  toxiproxyFailure,
} from './toxiproxy-failure.js';

/** Where Toxiproxy should listen for a new proxy, and how clients then reach it. */
export interface ProxyPlacement {
  /** The `listen` address given to Toxiproxy, e.g. `127.0.0.1:0` or `0.0.0.0:8666`. */
  listen: string;
  /**
   * Maps the listen address Toxiproxy reports back to the host and port a client dials. Identity
   * when the harness and Toxiproxy share a network; a published-port lookup for containers.
   */
  reach(listen: { host: string; port: number }): { host: string; port: number };
}

/** What a `ToxiproxyDatabaseProxy` needs to know about the servers it sits between. */
export interface ToxiproxyDatabaseProxyOptions {
  /** A client of the Toxiproxy API. */
  toxiproxy: Toxiproxy;
  /** Proxy name on the server. */
  name: string;
  /** How Toxiproxy reaches PostgreSQL, `host:port` from Toxiproxy's point of view. */
  upstream: string;
  /** Where to listen. */
  placement: ProxyPlacement;
  /** A URL with the credentials to put into `urlFor` (the admin URL). */
  credentialsUrl: string;
  /** Called once when the proxy is removed, so its owner can hand its name and port out again. */
  onRemoved?: () => void;
}

/** How many times a proxy's creation is tried when Toxiproxy's API does not answer. */
export const CREATE_ATTEMPTS = 3;

/** Splits `host:port` (or `[v6]:port`) as Toxiproxy prints listen addresses. */
export function splitHostPort(address: string): { host: string; port: number } {
  const match = /^(?:\[(.*)\]|(.*)):(\d+)$/.exec(address);
  if (match === null) {
    throw new EnvironmentError(`Toxiproxy reported a listen address "${address}" without a port`);
  }
  return { host: match[1] ?? match[2] ?? '', port: Number(match[3]) };
}

/**
 * A Toxiproxy proxy in front of PostgreSQL, over toxiproxy-node-client. Shared by every provider:
 * they differ only in where the proxy listens and how a client reaches it.
 */
export class ToxiproxyDatabaseProxy implements DatabaseProxy {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  private readonly toxiproxy: Toxiproxy;
  private readonly credentialsUrl: string;
  private removed = false;
  private readonly onRemoved: (() => void) | undefined;

  private constructor(
    options: ToxiproxyDatabaseProxyOptions,
    reach: { host: string; port: number },
  ) {
    this.name = options.name;
    this.toxiproxy = options.toxiproxy;
    this.onRemoved = options.onRemoved;
    this.credentialsUrl = options.credentialsUrl;
    this.host = reach.host;
    this.port = reach.port;
  }

  /**
   * Creates the proxy on the server (replacing a stale one of the same name) and wraps it. A
   * request that got no answer at all is tried again, up to `CREATE_ATTEMPTS` times: on a loaded
   * runner the API once failed to answer ("fetch failed") and cost a run its verdict. Each try
   * first removes a proxy of the name, so one the failed try did create is not left behind.
   */
  static async create(options: ToxiproxyDatabaseProxyOptions): Promise<ToxiproxyDatabaseProxy> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const stale = await options.toxiproxy.getAll();
        await stale[options.name]?.remove();
        const proxy = await options.toxiproxy.createProxy({
          name: options.name,
          listen: options.placement.listen,
          upstream: options.upstream,
          enabled: true,
        });
        const reach = options.placement.reach(splitHostPort(proxy.listen));
        return new ToxiproxyDatabaseProxy(options, reach);
      } catch (error) {
        if (attempt < CREATE_ATTEMPTS && isToxiproxyUnreachable(error)) {
          await sleep(250 * attempt);
          continue;
        }
        const tries = attempt > 1 ? ` (${attempt} tries)` : '';
        throw new EnvironmentError(
          `could not create Toxiproxy proxy "${options.name}" (listen ${options.placement.listen}, ` +
            `upstream ${options.upstream}) at ${options.toxiproxy.host}${tries}: ${rootCause(error)}`,
          { cause: error },
        );
      }
    }
  }

  urlFor(database: RunDatabase | string): string {
    const name = typeof database === 'string' ? database : database.name;
    return withDatabaseUrl(this.credentialsUrl, {
      host: this.host,
      port: this.port,
      database: name,
    });
  }

  async addToxic(toxic: ToxicSpec): Promise<void> {
    const proxy = await this.proxy();
    await proxy
      .addToxic({
        name: toxic.name,
        type: toxic.type,
        stream: toxic.stream,
        toxicity: toxic.toxicity ?? 1,
        attributes: toxic.attributes as never,
      })
      .catch((error: unknown) => {
        throw toxiproxyFailure(
          `add the ${toxic.type} toxic "${toxic.name}" (${toxic.stream}) to proxy "${this.name}"`,
          error,
        );
      });
  }

  async removeToxic(name: string): Promise<void> {
    // Absent is fine: heal-everything paths remove toxics that may have healed on their own.
    await this.toxiproxy
      .getApi()
      .delete(`${this.path()}/toxics/${encodeURIComponent(name)}`)
      .catch((error: unknown) => {
        if (isToxiproxyStatus(error, 404)) return;
        throw toxiproxyFailure(`remove toxic "${name}" from proxy "${this.name}"`, error);
      });
  }

  async setEnabled(enabled: boolean): Promise<void> {
    const proxy = await this.proxy();
    await proxy
      .update({ enabled, listen: proxy.listen, upstream: proxy.upstream })
      .catch((error: unknown) => {
        throw toxiproxyFailure(`${enabled ? 'enable' : 'disable'} proxy "${this.name}"`, error);
      });
  }

  async heal(): Promise<void> {
    const proxy = await this.proxy();
    const { data: toxics } = await this.toxiproxy
      .getApi()
      .get<{ name: string }[]>(`${this.path()}/toxics`)
      .catch((error: unknown) => {
        throw toxiproxyFailure(`list the toxics of proxy "${this.name}"`, error);
      });
    for (const toxic of toxics) await this.removeToxic(toxic.name);
    if (!proxy.enabled) await this.setEnabled(true);
  }

  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    // The name and the port are free again once the server has let go of them, or failed to.
    await this.deleteFromServer().finally(() => this.onRemoved?.());
  }

  private async deleteFromServer(): Promise<void> {
    await this.toxiproxy
      .getApi()
      .delete(this.path())
      .catch((error: unknown) => {
        if (isToxiproxyStatus(error, 404)) return;
        throw toxiproxyFailure(`remove proxy "${this.name}"`, error);
      });
  }

  private path(): string {
    return `${this.toxiproxy.host}/proxies/${encodeURIComponent(this.name)}`;
  }

  private async proxy(): Promise<Proxy> {
    if (this.removed) throw new EnvironmentError(`proxy "${this.name}" was removed`);
    return this.toxiproxy.get(this.name).catch((error: unknown) => {
      throw toxiproxyFailure(`read proxy "${this.name}"`, error);
    });
  }
}
