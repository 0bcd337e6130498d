// Writing a version through the SPARQL 1.1 Graph Store Protocol: each description graph of a piece
// is PUT (the first time it is seen: that replaces what a failed load of the same version left) or
// POSTed (appended), the version's graph likewise, a few requests at a time over keep-alive
// connections; the registry is PUT last, in one request. Credentials go in an Authorization
// header, never in the URL.
import { graphsOf, listVersions, registryWith, storedVersions } from './registry';
import { REGISTRY, registryTriples, versionGraph, type VersionEntry } from './layout';
import type { SparqlClient } from './sparqlClient';
import type { Transport } from './versionWriter';

export interface GraphStoreSettings {
  /** The Graph Store Protocol endpoint (Virtuoso: `/sparql-graph-crud`; Fuseki: `/<ds>/data`). */
  readonly url: string;
  readonly user?: string;
  readonly password?: string;
  /** Requests in flight at once. */
  readonly connections: number;
}

/** A request the store refused or failed: its status and what it said. */
export class GraphStoreError extends Error {
  override name = 'GraphStoreError';
}

/** The store's transaction deadlocked with a concurrent one: worth another try. */
class Deadlock extends Error {}

export class GraphStoreTransport implements Transport {
  readonly target: string;
  private readonly seen = new Set<string>();
  private readonly authorization: string | undefined;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private failure: Error | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** The graph of every triple of the version being written. */
  private all: string | undefined;

  constructor(
    private readonly settings: GraphStoreSettings,
    private readonly client: SparqlClient,
  ) {
    this.target = settings.url;
    this.authorization =
      settings.user === undefined
        ? undefined
        : `Basic ${Buffer.from(`${settings.user}:${settings.password ?? ''}`).toString('base64')}`;
  }

  async held(version: string): Promise<VersionEntry | undefined> {
    return (await listVersions(this.client)).entries.find((e) => e.version === version);
  }

  async begin(version: string): Promise<void> {
    this.seen.clear();
    this.all = versionGraph(version);
  }

  async write(
    graphs: ReadonlyMap<string, readonly string[]>,
    all: readonly string[],
  ): Promise<void> {
    if (this.all === undefined) throw new Error('write before begin');
    for (const [graph, triples] of graphs) await this.send(graph, triples);
    if (all.length > 0) await this.send(this.all, all);
  }

  async finish(): Promise<void> {
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
  }

  async publish(entry: VersionEntry): Promise<void> {
    const body = await registryWith(this.client, entry);
    await this.request('PUT', REGISTRY, body);
  }

  async writeRegistry(entries: readonly VersionEntry[], current: string): Promise<void> {
    await this.request('PUT', REGISTRY, registryTriples(entries, current));
  }

  async stored(): Promise<string[]> {
    return storedVersions(this.client);
  }

  async drop(version: string): Promise<void> {
    const graphs = await graphsOf(this.client, version);
    for (const graph of graphs) await this.queue(() => this.request('DELETE', graph));
    await this.finish();
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.inFlight);
  }

  /** PUT the first time a graph is written, POST after; waits while `connections` are in flight. */
  private async send(graph: string, triples: readonly string[]): Promise<void> {
    const method = this.seen.has(graph) ? 'POST' : 'PUT';
    this.seen.add(graph);
    await this.queue(() => this.request(method, graph, `${triples.join('\n')}\n`));
  }

  /** Starts `send` once fewer than `connections` requests are in flight; the first failure is kept. */
  private async queue(send: () => Promise<void>): Promise<void> {
    if (this.failure) throw this.failure;
    while (this.running >= this.settings.connections)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    const sent = send()
      .catch((error: Error) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.running--;
        this.inFlight.delete(sent);
        this.waiting.shift()?.();
      });
    this.inFlight.add(sent);
  }

  /**
   * One request, tried again (up to five times, with a growing pause) when the store answers that
   * its transaction deadlocked with another (Virtuoso: 500, SQL state 40001): requests in flight
   * at once write the same indexes. Each request replaces or appends a whole graph, so trying it
   * again writes nothing twice.
   */
  private async request(
    method: 'PUT' | 'POST' | 'DELETE',
    graph: string,
    body?: string,
  ): Promise<void> {
    for (let attempt = 1, pause = 100; ; attempt++, pause *= 2) {
      try {
        return await this.once(method, graph, body);
      } catch (error) {
        if (!(error instanceof Deadlock) || attempt === 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  private async once(
    method: 'PUT' | 'POST' | 'DELETE',
    graph: string,
    body?: string,
  ): Promise<void> {
    const url = new URL(this.settings.url);
    url.searchParams.set('graph', graph);
    const res = await fetch(url, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'Content-Type': 'application/n-triples' }),
        ...(this.authorization ? { Authorization: this.authorization } : {}),
      },
      body,
      signal: AbortSignal.timeout(300_000),
    });
    const text = await res.text();
    // A graph already gone is what a DELETE wanted.
    if (res.status === 500 && /\b40001\b|deadlock/i.test(text)) throw new Deadlock(text);
    if (!res.ok && !(method === 'DELETE' && res.status === 404))
      throw new GraphStoreError(
        `${method} of graph <${graph}> at ${url.origin}${url.pathname}: ${res.status} ${text.slice(0, 300)}`,
      );
  }
}
