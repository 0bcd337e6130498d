// The service's metrics in the Prometheus text format (prom-client), on a listener of their own
// (METRICS_LISTEN, off unless set: never on the public port): requests by route and status and
// their latency, the document cache's hits, misses and bytes, the bytes answered, the time of each
// store query, the dataset served (its version and institution count), reloads by outcome, the
// store's health, staff SPARQL queries by outcome (time-outs among them) and their time, and the
// process's own (memory, CPU, event-loop lag). A registry of its own, not prom-client's global
// one: two services in one process (the tests) do not count into each other.
import http from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Service, ServiceMetrics } from '../documents/service';

const PREFIX = 'isil_ld_';

/** Latency buckets, in seconds: a cached document takes well under a millisecond. */
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The status label: the code for the ones a client meets, its class otherwise. */
function statusOf(status: number): string {
  return status >= 100 && status < 600 ? String(status) : 'other';
}

export class Metrics implements ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'status'>;
  private readonly latency: Histogram<'route'>;
  private readonly sent: Counter<'route'>;
  private readonly storeQueries: Histogram<'store'>;
  private readonly reloads: Counter<'outcome'>;
  private readonly sparql: Counter<'outcome'>;
  private readonly sparqlTime: Histogram;

  constructor(service: Service) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    this.requests = new Counter({
      name: `${PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by route and status.',
      labelNames: ['route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: 'Time from a request to the end of its answer, by route.',
      labelNames: ['route'],
      buckets: SECONDS,
      registers,
    });
    this.sent = new Counter({
      name: `${PREFIX}http_response_bytes_total`,
      help: 'Bytes written to the connection for the answers, heads included (compressed where they were), by route.',
      labelNames: ['route'],
      registers,
    });
    this.storeQueries = new Histogram({
      name: `${PREFIX}store_query_duration_seconds`,
      help: 'Time of each description the store was asked for (a document not cached).',
      labelNames: ['store'],
      buckets: SECONDS,
      registers,
    });
    this.reloads = new Counter({
      name: `${PREFIX}reloads_total`,
      help: 'Dataset loads and reloads, by outcome: done, or refused (the one served stays).',
      labelNames: ['outcome'],
      registers,
    });
    this.sparql = new Counter({
      name: `${PREFIX}sparql_queries_total`,
      help: 'Staff SPARQL queries, by outcome (answered, cut, refused, timeout, abandoned, unavailable, failed).',
      labelNames: ['outcome'],
      registers,
    });
    this.sparqlTime = new Histogram({
      name: `${PREFIX}sparql_query_duration_seconds`,
      help: 'Time of each staff SPARQL query, from its request to its answer.',
      buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    service.stats.onStoreQuery = (seconds) =>
      this.storeQueries.observe({ store: service.storeHealth().kind }, seconds);
    this.collected(service);
  }

  /** What is read off the service when scraped: the cache, the dataset, the store. */
  private collected(service: Service): void {
    const registers = [this.registry];
    new Counter({
      name: `${PREFIX}document_cache_hits_total`,
      help: 'Documents answered from the rendered-document cache.',
      registers,
      collect() {
        this.reset();
        this.inc(service.stats.hits);
      },
    });
    new Counter({
      name: `${PREFIX}document_cache_misses_total`,
      help: 'Documents rendered because the cache did not hold them.',
      registers,
      collect() {
        this.reset();
        this.inc(service.stats.misses);
      },
    });
    new Gauge({
      name: `${PREFIX}document_cache_bytes`,
      help: 'Bytes the rendered-document cache holds, as it counts them against CACHE_MAX_BYTES.',
      registers,
      collect() {
        this.set(service.current?.cache.usedBytes ?? 0);
      },
    });
    new Gauge({
      name: `${PREFIX}dataset_info`,
      help: 'The dataset served: 1, labelled with its version (as Dataset-Version says it).',
      labelNames: ['version'],
      registers,
      collect() {
        this.reset();
        const version = service.current?.dataset.version;
        if (version !== undefined) this.set({ version }, 1);
      },
    });
    new Gauge({
      name: `${PREFIX}dataset_institutions`,
      help: 'Institutions of the dataset served (withdrawn ISILs not counted).',
      registers,
      collect() {
        this.set(service.current?.dataset.institutionCount ?? 0);
      },
    });
    new Gauge({
      name: `${PREFIX}store_available`,
      help: 'Whether the store answers (1) or not (0), as /readyz reports it.',
      labelNames: ['store'],
      registers,
      collect() {
        this.reset();
        const health = service.storeHealth();
        this.set({ store: health.kind }, health.state === 'available' ? 1 : 0);
      },
    });
  }

  /**
   * An answer, counted under its route's label (the route table's, src/http/route.ts): a handful
   * of labels, whatever a client asks for (a label a path could choose would let a client grow the
   * registry without bound).
   */
  request(route: string, status: number, seconds: number, bytes: number): void {
    this.requests.inc({ route, status: statusOf(status) });
    this.latency.observe({ route }, seconds);
    if (bytes > 0) this.sent.inc({ route }, bytes);
  }

  reload(outcome: 'done' | 'refused'): void {
    this.reloads.inc({ outcome });
  }

  /** A staff query's outcome as the query log says it; `cut at N` counts as `cut`. */
  sparqlQuery(outcome: string, seconds: number): void {
    this.sparql.inc({ outcome: outcome.startsWith('cut at') ? 'cut' : outcome });
    this.sparqlTime.observe(seconds);
  }
}

/**
 * The metrics listener: `GET /metrics` (and HEAD) in the Prometheus text format, 404 for any
 * other path, 405 for any other method. It serves nothing else, and no data.
 */
export function metricsServer(metrics: Pick<ServiceMetrics, 'registry'>): http.Server {
  return http.createServer((req, res) => {
    // Origin form or absolute form (RFC 9112 §3.2.2): the path either way.
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://metrics.invalid').pathname;
    } catch {
      path = '';
    }
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Not found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Method not allowed: GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, {
          'Content-Type': metrics.registry.contentType,
          'Cache-Control': 'no-store',
        });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`The metrics could not be collected: ${(error as Error).message}\n`);
      },
    );
  });
}
