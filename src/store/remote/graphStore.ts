// Writing a version through the SPARQL 1.1 Graph Store Protocol: each description graph of a piece
// is PUT (the first time it is seen: that replaces what a failed load of the same version left) or
// POSTed (appended), the version's graph likewise, a few requests at a time over keep-alive
// connections of the transport's own (closed with it, so a finished or failed load leaves no idle
// connection holding one of the store's HTTP threads); the registry is PUT last, in one request.
// Credentials go in an Authorization header, never in the URL.
import http from 'node:http';
import https from 'node:https';
import { graphsOf, listVersions, registryWith, storedVersions } from './registry';
import {
  REGISTRY,
  registryTriples,
  versionGraph,
  type HistoryStep,
  type VersionEntry,
} from './layout';
import { basicAuthorization, keepAliveAgent, type SparqlClient } from './sparqlClient';
import type { Transport, VersionPiece } from './versionWriter';

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

/**
 * The connection failed before the store answered. `unsent` when the store cannot have read the
 * request: the connection was refused, or a kept-alive one had been closed by the store as it was
 * reused (Node's `reusedSocket` with ECONNRESET, the keep-alive race).
 */
class ConnectionFailed extends Error {
  constructor(
    message: string,
    readonly unsent: boolean,
  ) {
    super(message);
  }
}

/** Tries of one request at most: about 7 s of pauses, for a store busy with other writers. */
const ATTEMPTS = 8;

/** A blank node label in N-Triples: POSTed twice, such triples would be there twice. */
const BLANK_NODE = /(^|\s)_:/m;

export class GraphStoreTransport implements Transport {
  readonly target: string;
  private readonly seen = new Set<string>();
  readonly historyFirst = false;
  private readonly authorization: string | undefined;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private failure: Error | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** The graph of every triple of the version being written. */
  private all: string | undefined;
  private readonly agent: http.Agent;
  private readonly url: URL;

  constructor(
    private readonly settings: GraphStoreSettings,
    private readonly client: SparqlClient,
  ) {
    this.target = settings.url;
    this.url = new URL(settings.url);
    this.agent = keepAliveAgent(this.url, settings.connections);
    this.authorization = basicAuthorization(settings.user, settings.password);
  }

  async held(version: string): Promise<VersionEntry | undefined> {
    return (await listVersions(this.client)).entries.find((e) => e.version === version);
  }

  async begin(version: string): Promise<void> {
    this.seen.clear();
    this.all = versionGraph(version);
  }

  /** Every triple twice: in its description's graph (if any) and in the version's graph. */
  async write({ graphs, all }: VersionPiece): Promise<void> {
    if (this.all === undefined) throw new Error('write before begin');
    for (const [graph, triples] of graphs) await this.send(graph, triples);
    if (all.length > 0) await this.send(this.all, all);
  }

  async finish(): Promise<void> {
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
  }

  async publish(entry: VersionEntry, step?: HistoryStep): Promise<void> {
    const body = await registryWith(this.client, entry, step);
    await this.request('PUT', REGISTRY, body);
  }

  async writeRegistry(
    entries: readonly VersionEntry[],
    current: string,
    timeline: readonly HistoryStep[],
  ): Promise<void> {
    await this.request('PUT', REGISTRY, registryTriples(entries, current, timeline));
  }

  async writeGraphs(graphs: ReadonlyMap<string, readonly string[]>): Promise<void> {
    for (const [graph, triples] of graphs)
      await this.queue(() => this.request('PUT', graph, `${triples.join('\n')}\n`));
    await this.finish();
  }

  async dropGraphs(graphs: readonly string[]): Promise<void> {
    for (const graph of graphs) await this.queue(() => this.request('DELETE', graph));
    await this.finish();
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
    this.agent.destroy();
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
   * One request, tried again (up to `ATTEMPTS` times, with a growing pause) when it is safe and worth
   * it: the store answered that its transaction deadlocked with another (Virtuoso: 500, SQL state
   * 40001; requests in flight at once write the same indexes) or that it had no thread for the
   * request (503: nothing was done), or the connection failed before an
   * answer and sending the request again writes nothing twice: a PUT or DELETE (they replace), a
   * request the store cannot have read, or a POST without blank nodes (RDF graphs are sets; a
   * blank node POSTed twice would be two).
   */
  private async request(
    method: 'PUT' | 'POST' | 'DELETE',
    graph: string,
    body?: string,
  ): Promise<void> {
    for (let attempt = 1, pause = 100; ; attempt++, pause = Math.min(2 * pause, 2000)) {
      try {
        return await this.once(method, graph, body);
      } catch (error) {
        const again =
          error instanceof Deadlock ||
          (error instanceof ConnectionFailed &&
            (error.unsent || method !== 'POST' || !BLANK_NODE.test(body ?? '')));
        if (!again || attempt === ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  private once(method: 'PUT' | 'POST' | 'DELETE', graph: string, body?: string): Promise<void> {
    const url = new URL(this.url);
    url.searchParams.set('graph', graph);
    const where = `${method} of graph <${graph}> at ${url.origin}${url.pathname}`;
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise<void>((resolve, reject) => {
      const req = send(url, {
        method,
        agent: this.agent,
        signal: AbortSignal.timeout(300_000),
        headers: {
          ...(body === undefined
            ? {}
            : {
                'Content-Type': 'application/n-triples',
                'Content-Length': String(Buffer.byteLength(body)),
              }),
          ...(this.authorization ? { Authorization: this.authorization } : {}),
        },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => reject(new GraphStoreError(`${where}: ${error.message}`)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status === 500 && /\b40001\b|deadlock/i.test(text)) return reject(new Deadlock(text));
          // The store had no thread for it (503): it did nothing, and may have one in a moment.
          if (status === 503)
            return reject(new ConnectionFailed(`${where}: 503 ${text.slice(0, 200)}`, true));
          // A graph already gone is what a DELETE wanted.
          if (status >= 300 && !(method === 'DELETE' && status === 404))
            return reject(new GraphStoreError(`${where}: ${status} ${text.slice(0, 300)}`));
          resolve();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.name === 'AbortError' || error.name === 'TimeoutError')
          return reject(new GraphStoreError(`${where}: no answer within 300 s`));
        const unsent =
          error.code === 'ECONNREFUSED' ||
          (req.reusedSocket &&
            (error.code === 'ECONNRESET' || /socket hang up/.test(error.message)));
        reject(new ConnectionFailed(`${where}: ${error.code ?? error.message}`, unsent));
      });
      req.end(body);
    });
  }
}
