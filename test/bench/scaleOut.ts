// The scale-out step of the bench (a script, not a test), which `npm run bench` runs on
// its own generated institutions; alone:
//   npx tsx test/bench/scaleOut.ts --snapshot S --source N.nt [--main dist/src/main.js]
//     [--steps loading,gsp,uncached,cached] (the steps run, these by default; gsp, the Graph Store
//     Protocol's load, takes minutes; `build` adds step 1b)
// In one run, on one machine (the load generator, the servers and the store share its cores):
//  1. loading: Virtuoso's own bulk loader (ld_dir + rdf_loader_run through isql) on the generated
//     N-Triples, against `npm run load` into the remote store from the same file, split into the
//     loader's own processing and the transfer, through the bulk path and through the Graph Store
//     Protocol;
// 1b. (--steps loading,build) the ways Virtuoso can make a version's graph from its description
//     graphs instead of being sent every triple twice: the loader's SQL copy, SPARQL's
//     `INSERT … WHERE` under log_enable(2), and a graph group, against `ld_dir` of the source, and a
//     query FROM each against FROM the graph;
//  2. the CONSTRUCT of one institution asked of Virtuoso directly at 1, 4, 20 and 50 connections,
//     against the service in remote mode with its document cache off at 50 connections;
//  3. cached documents: the single-process Express ceiling, one service, N replicas behind nginx,
//     and Varnish in front, each with its p99.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadRemote, type RemoteTarget } from '../../cli/remote';
import { Algebra } from 'sparqlalgebrajs';
import { descriptionIri } from '../../src/rdf/iris';
import type { Isil } from '../../src/rdf/isil';
import { checkedIri, loadTemplate } from '../../src/store/queries';
import { descriptionGraph, versionGraph } from '../../src/store/remote/layout';
import { splitQuad } from '../../src/store/remote/versionWriter';
import { VIRTUOSO_GRAPH_INDEX } from '../../src/store/remote/sparqlStore';
import { copyGraphs } from '../../src/store/remote/virtuosoBulk';
import { PROJECT_ROOT } from '../../src/util/paths';
import { freePort, startTopology, topologyInstalled, type Topology } from '../servers/topology';
import { bulkTarget, startVirtuoso, virtuosoInstalled, type Virtuoso } from '../servers/virtuoso';
import {
  AS_DEPLOYED,
  benchDumps,
  driveAutocannon,
  driveWrk,
  hasWrk,
  type Result,
  type Target,
} from './drivers';
import { rssOf } from './hardening';

const { values } = parseArgs({
  options: {
    snapshot: { type: 'string' },
    source: { type: 'string' },
    main: { type: 'string' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    replicas: { type: 'string', default: '3' },
    base: { type: 'string', default: 'https://ld.zdb-services.de' },
    steps: { type: 'string', default: 'loading,gsp,uncached,cached' },
  },
});
if (!values.snapshot || !values.source)
  throw new Error('--snapshot FILE --source FILE: a snapshot and the N-Triples it was loaded from');
const SNAPSHOT = values.snapshot;
const SOURCE = values.source;
const DURATION = Number(values.duration);
const WARMUP = Math.max(1, Math.round(DURATION / 5));
const CONNECTIONS = Number(values.connections);
const REPLICAS = Number(values.replicas);
const BASE_IRI = values.base;
const STEPS = new Set(values.steps.split(','));
const MAIN = values.main ? [values.main] : ['--import', 'tsx', path.join('src', 'main.ts')];
const HOST = '127.0.0.1';
const WORK = path.join(PROJECT_ROOT, '.bench', 'scale');
/** The documents rendered before the cached cases. */
const HOT = 2000;

const log = (text: string) => process.stdout.write(`${text}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

function drive(
  base: string,
  targets: readonly Target[],
  duration: number,
  connections = CONNECTIONS,
): Promise<Result> {
  return hasWrk
    ? Promise.resolve(
        driveWrk(base, targets, duration, connections, path.join(WORK, 'targets.lua')),
      )
    : driveAutocannon(base, targets, duration, connections);
}

/** A warm-up, then the measured run. */
async function measure(
  base: string,
  targets: readonly Target[],
  connections = CONNECTIONS,
): Promise<Result> {
  await drive(base, targets, WARMUP, connections);
  return drive(base, targets, DURATION, connections);
}

const figures = (r: Result) =>
  `${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.errors} errors`;

async function waitFor(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`${url} not ready within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startService(env: Record<string, string>): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, MAIN, {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      ...AS_DEPLOYED,
      HOST,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DUMPS_DIR: benchDumps(),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const url = `http://${HOST}:${port}`;
  await waitFor(`${url}/readyz`, 300_000);
  return { url, pid: child.pid! };
}

/** Express 5 answering every request with one precomputed document: the framework's ceiling. */
async function startExpress(body: Buffer): Promise<{ url: string; pid: number }> {
  const file = path.join(WORK, 'baseline.ttl');
  fs.writeFileSync(file, body);
  const port = await freePort();
  const script = `const body = require('fs').readFileSync(${JSON.stringify(file)});
const headers = { 'Content-Type': 'text/turtle;charset=UTF-8', 'Content-Length': String(body.length) };
const app = require('express')(); app.disable('x-powered-by'); app.set('etag', false);
app.get('/*splat', (req, res) => { res.writeHead(200, headers); res.end(body); });
app.listen(${port}, '${HOST}');`;
  const child = spawn(process.execPath, ['-e', script], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  children.push(child);
  const url = `http://${HOST}:${port}`;
  await waitFor(`${url}/x`, 10_000);
  return { url, pid: child.pid! };
}

function isilsOf(file: string): string[] {
  const isils = new Set<string>();
  const text = fs.readFileSync(file, 'utf8');
  for (const match of text.matchAll(
    /<[^>]*\/organisations\/([^>/]+)> <http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#type> <http:\/\/xmlns\.com\/foaf\/0\.1\/Organization>/g,
  ))
    isils.add(match[1]!);
  return [...isils];
}

const pidOf = (name: string): number[] =>
  fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    })
    .map(Number);

/**
 * Writes the quads of `snapshot` as the bulk loader sends a version (each triple once, in its
 * description's graph, or the version's when it has none); returns how many.
 */
function versionQuads(snapshot: string, version: string, out: string): number {
  const lines: string[] = [];
  for (const line of fs.readFileSync(snapshot, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const { triple, graph } = splitQuad(line);
    const body = triple.slice(0, -2);
    lines.push(
      graph === undefined
        ? `${body} <${versionGraph(version)}> .`
        : `${body} <${descriptionGraph(version, checkedIri(graph))}> .`,
    );
  }
  fs.writeFileSync(out, `${lines.join('\n')}\n`);
  return lines.length;
}

/** Loading: ld_dir against the loader, through both ways into the store. */
async function loading(
  virtuoso: Virtuoso,
  isils: readonly string[],
): Promise<{ version: string; ldDirMs: number }> {
  const triples = fs.readFileSync(SOURCE, 'utf8').split('\n').filter(Boolean).length;
  const name = `direct-${path.basename(SOURCE)}`;
  fs.copyFileSync(SOURCE, path.join(virtuoso.dir, name));
  let started = Date.now();
  virtuoso.isql(
    `ld_dir('${virtuoso.dir}', '${name}', 'urn:bench:ld_dir'); rdf_loader_run(); checkpoint;`,
  );
  const ldDirMs = Date.now() - started;
  virtuoso.isql(`SPARQL CLEAR GRAPH <urn:bench:ld_dir>;`);
  virtuoso.isql('checkpoint;');
  log(
    `ld_dir + rdf_loader_run + checkpoint of ${path.basename(SOURCE)} (${triples} triples, ${isils.length} institutions): ${seconds(ldDirMs)}`,
  );

  const options = { baseIri: BASE_IRI, validate: true, requireInstitutions: true };
  const bulk = bulkTarget(virtuoso);
  started = Date.now();
  const written = await loadRemote([SOURCE], options, { baseIri: BASE_IRI }, bulk);
  const bulkMs = Date.now() - started;
  log(
    `npm run load into Virtuoso through its bulk loader: ${seconds(bulkMs)} in all: the loader's own processing (read, validate, snapshot) ${seconds(written.snapshotMs)}, reading the snapshot ${seconds(written.readMs)}, transfer ${seconds(written.transferMs)} (${written.quads} quads); transfer / ld_dir ${(written.transferMs / ldDirMs).toFixed(2)}×`,
  );

  // The Graph Store Protocol into a second, empty Virtuoso, from the snapshot (streamed as it is);
  // before it, ld_dir of the quads the bulk loader sends (each triple once, in its description's
  // graph), under a version of its own.
  const other = await startVirtuoso(120_000, 60, 200_000);
  try {
    const quadsFile = path.join(other.dir, 'version.nq');
    const quads = versionQuads(SNAPSHOT, 'ffffffffffff', quadsFile);
    started = Date.now();
    other.isql(
      `ld_dir('${other.dir}', 'version.nq', 'urn:bench:unused'); rdf_loader_run(); checkpoint;`,
    );
    const sameQuadsMs = Date.now() - started;
    log(
      `ld_dir + rdf_loader_run + checkpoint of a version's ${quads} quads, as the loader sends them: ${seconds(sameQuadsMs)}; the loader's transfer (with the version's graph made and the history log) / that ${(written.transferMs / sameQuadsMs).toFixed(2)}×`,
    );
    let gspTransfer = 'not run';
    if (STEPS.has('gsp')) {
      const gsp: RemoteTarget = {
        endpoint: other.endpoint,
        via: { kind: 'graph-store', url: other.openGraphStore() },
      };
      started = Date.now();
      const viaGsp = await loadRemote([SNAPSHOT], options, { baseIri: BASE_IRI }, gsp);
      gspTransfer = seconds(viaGsp.transferMs);
      log(
        `npm run load of the snapshot into Virtuoso through the Graph Store Protocol: ${seconds(Date.now() - started)} in all, reading ${seconds(viaGsp.readMs)}, transfer ${gspTransfer}; transfer / ld_dir ${(viaGsp.transferMs / ldDirMs).toFixed(2)}×`,
      );
    }
    log(
      `| loading ${triples} triples: ld_dir / loader's processing + transfer (bulk, history log included) / transfer (GSP) | ${seconds(ldDirMs)} / ${seconds(written.snapshotMs)} + ${seconds(written.transferMs)} (${(written.transferMs / ldDirMs).toFixed(2)}×) / ${gspTransfer} | transfer ≤ 2× ld_dir | ${written.transferMs <= 2 * ldDirMs ? 'PASS' : 'MISS'} |`,
    );
  } finally {
    await other.stop();
  }
  return { version: written.version, ldDirMs };
}

/** Milliseconds `work` takes. */
function timed(work: () => unknown): number {
  const started = Date.now();
  work();
  return Date.now() - started;
}

/**
 * The version's graph made by Virtuoso from the description graphs `loading` wrote, each way into
 * a graph of its own beside the version's, then dropped: the loader's SQL copy, SPARQL's
 * `INSERT … WHERE` and a graph group, each against `ld_dir` of the source (as many triples), and
 * the index's first query FROM each against FROM the version's graph.
 */
function building(virtuoso: Virtuoso, version: string, ldDirMs: number): string[] {
  const all = versionGraph(version);
  const sqlCopy = 'urn:bench:sql-copy';
  const copy = 'urn:bench:copy';
  const group = 'urn:bench:group';
  const sqlMs = timed(() => virtuoso.isql(`${copyGraphs(`${all}:`, sqlCopy)} checkpoint;`));
  const insertMs = timed(() =>
    virtuoso.isql(
      `SPARQL DEFINE sql:log-enable 2 INSERT { GRAPH <${copy}> { ?s ?p ?o } } WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${all}:")) }; checkpoint;`,
    ),
  );
  const groupMs = timed(() =>
    virtuoso.isql(
      `DB.DBA.RDF_GRAPH_GROUP_CREATE('${group}', 1); SELECT COUNT(DB.DBA.RDF_GRAPH_GROUP_INS('${group}', id_to_iri(G))) FROM (SELECT DISTINCT G FROM DB.DBA.RDF_QUAD) graphs WHERE id_to_iri(G) LIKE '${all}:%';`,
    ),
  );
  const count = (graph: string) =>
    timed(() =>
      virtuoso.isql(
        `SPARQL SELECT (COUNT(DISTINCT ?i) AS ?n) FROM <${graph}> WHERE { ?i a <http://xmlns.com/foaf/0.1/Organization> };`,
      ),
    );
  const [fromGraph, fromCopy, fromGroup] = [count(all), count(copy), count(group)];
  virtuoso.isql(
    `DB.DBA.RDF_GRAPH_GROUP_DROP('${group}', 1); SPARQL DEFINE sql:log-enable 3 CLEAR GRAPH <${copy}>; SPARQL DEFINE sql:log-enable 3 CLEAR GRAPH <${sqlCopy}>; checkpoint;`,
  );
  const ratio = (ms: number) => `${(ms / ldDirMs).toFixed(2)}×`;
  log(
    `the version's graph made by Virtuoso from its description graphs: the loader's SQL copy ${seconds(sqlMs)} (${ratio(sqlMs)} ld_dir of the source), INSERT … WHERE ${seconds(insertMs)} (${ratio(insertMs)}), graph group ${seconds(groupMs)}; the institutions counted FROM the version's graph ${fromGraph} ms, FROM the INSERT's copy ${fromCopy} ms, FROM the group ${fromGroup} ms`,
  );
  return [
    `| the version's graph made by Virtuoso: SQL copy / INSERT … WHERE, each against ld_dir of the source; a query FROM a graph group / FROM the graph | ${ratio(sqlMs)} / ${ratio(insertMs)}; ${fromGroup} / ${fromGraph} ms | | |`,
  ];
}

/** Uncached documents: Virtuoso's own rate, and the service's in remote mode. */
async function uncached(
  virtuoso: Virtuoso,
  version: string,
  isils: readonly string[],
): Promise<string> {
  const template = loadTemplate('describe.rq', Algebra.types.CONSTRUCT);
  const endpointPath = new URL(virtuoso.endpoint).pathname;
  // Asked as the service asks it (sparqlStore.ts, sparqlClient.ts): a form POST, N-Triples
  // accepted, with the pragma the service sends Virtuoso.
  const direct = isils.map((isil) => {
    const graph = descriptionGraph(version, checkedIri(descriptionIri(BASE_IRI, isil as Isil)));
    return {
      path: endpointPath,
      method: 'POST' as const,
      body: new URLSearchParams({ query: VIRTUOSO_GRAPH_INDEX + template.bind(graph) }).toString(),
      headers: {
        Accept: 'application/n-triples',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
    };
  });
  const origin = new URL(virtuoso.endpoint).origin;
  const rates: { connections: number; result: Result }[] = [];
  for (const connections of [1, 4, 20, 50]) {
    const result = await measure(origin, direct, connections);
    rates.push({ connections, result });
    log(
      `Virtuoso directly, one institution's CONSTRUCT, ${connections} connections: ${figures(result)}`,
    );
  }
  const best = rates.reduce((a, b) => (b.result.rps > a.result.rps ? b : a));
  const service = await startService({
    STORE: 'remote',
    SPARQL_ENDPOINT: virtuoso.endpoint,
    CACHE_MAX_BYTES: '0',
    DATASET: '',
  });
  const targets = isils.map((isil) => ({ path: `/data/organisations/${isil}.ttl` }));
  const remote = await measure(service.url, targets);
  const virtuosoRss = pidOf('virtuoso-t').map(rssOf);
  log(
    `the service in remote mode (cache off, STORE_CONNECTIONS default), .ttl of random institutions, ${CONNECTIONS} connections: ${figures(remote)}; RSS ${rssOf(service.pid)} MB, Virtuoso ${virtuosoRss.join(', ')} MB`,
  );
  const ratio = remote.rps / best.result.rps;
  const collapsed = remote.errors > 0;
  return `| remote uncached .ttl at ${CONNECTIONS} connections / Virtuoso's best direct rate (${Math.round(best.result.rps)} req/s at ${best.connections}) | ${Math.round(remote.rps)} req/s, p99 ${remote.p99.toFixed(0)} ms (${ratio.toFixed(2)}×) | ≥ 0.7× | ${ratio >= 0.7 && !collapsed ? 'PASS' : 'MISS'} |`;
}

/** Cached documents: the Express ceiling, one service, the balancer, the cache. */
async function cached(isils: readonly string[]): Promise<string[]> {
  const hot = isils.slice(0, HOT);
  const targets = hot.map((isil) => ({ path: `/data/organisations/${isil}.ttl` }));
  const one = await startService({ DATASET: SNAPSHOT });
  const body = Buffer.from(await (await fetch(`${one.url}${targets[0]!.path}`)).arrayBuffer());
  const express = await startExpress(body);
  let topology: Topology | undefined;
  try {
    topology = await startTopology(REPLICAS, { DATASET: SNAPSHOT }, 300_000, MAIN);
    // Every replica and the service render every hot document once; then the cache holds them.
    for (const { path: p } of targets) {
      for (const url of [one.url, ...topology.replicas.map((r) => r.url), topology.cache])
        await (await fetch(`${url}${p}`)).arrayBuffer();
    }
    const rows: { name: string; result: Result; rss: string }[] = [];
    const run = async (name: string, url: string, rss: () => string) => {
      const result = await measure(url, targets);
      rows.push({ name, result, rss: rss() });
      log(`${name}: ${figures(result)}; RSS ${rows.at(-1)!.rss}`);
    };
    const replicaRss = () =>
      topology!.replicas.map((r) => rssOf(r.process.pid!)).join(', ') + ' MB';
    await run(
      'Express 5 ceiling (one process, one precomputed document)',
      express.url,
      () => `${rssOf(express.pid)} MB`,
    );
    await run('one service, cached .ttl', one.url, () => `${rssOf(one.pid)} MB`);
    await run(
      `${REPLICAS} replicas behind nginx, cached .ttl`,
      topology.balancer,
      () => `replicas ${replicaRss()}, nginx ${pidOf('nginx').map(rssOf).join(', ')} MB`,
    );
    await run(
      `Varnish in front of nginx and ${REPLICAS} replicas, .ttl`,
      topology.cache,
      () => `varnishd ${pidOf('cache-main').concat(pidOf('varnishd')).map(rssOf).join(', ')} MB`,
    );
    const ceiling = rows[0]!.result.rps;
    const lines = rows.map(
      ({ name, result }) =>
        `| ${name} | ${Math.round(result.rps)} req/s, p99 ${result.p99.toFixed(1)} ms, ${result.errors} errors | ${(result.rps / ceiling).toFixed(2)}× Express | |`,
    );
    const cache = rows[3]!.result;
    lines.push(
      `| through the cache / single-process Express ceiling | ${(cache.rps / ceiling).toFixed(2)}× | ≥ 2× | ${cache.rps >= 2 * ceiling && cache.errors === 0 ? 'PASS' : 'MISS'} |`,
    );
    return lines;
  } finally {
    await topology?.stop();
  }
}

async function main(): Promise<void> {
  fs.mkdirSync(WORK, { recursive: true });
  if (!virtuosoInstalled() || !topologyInstalled())
    throw new Error('scale-out: Virtuoso, nginx and Varnish are needed (bash .ci/packages)');
  log(
    `scale-out: ${hasWrk ? 'wrk' : 'autocannon'}, ${CONNECTIONS} connections, ${DURATION} s a case, ${REPLICAS} replicas`,
  );
  const isils = isilsOf(SOURCE);
  const table: string[] = [];
  if (STEPS.has('loading') || STEPS.has('uncached')) {
    const virtuoso = await startVirtuoso(120_000, 60, 200_000);
    try {
      // The uncached step serves the version the loading step wrote.
      const { version, ldDirMs } = await loading(virtuoso, isils);
      if (STEPS.has('build')) table.push(...building(virtuoso, version, ldDirMs));
      if (STEPS.has('uncached')) table.push(await uncached(virtuoso, version, isils));
    } finally {
      await virtuoso.stop();
    }
  }
  if (STEPS.has('cached')) table.push(...(await cached(isils)));
  log('');
  log('| scale-out | figure | target | |');
  log('|---|---|---|---|');
  for (const line of table) log(line);
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`scale-out failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
