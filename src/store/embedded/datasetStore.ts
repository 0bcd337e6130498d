// The embedded Oxigraph store: with staffResults.ts the only module that imports oxigraph. Everything leaves it as
// strings (N-Triples, N-Quads, SPARQL results), so no WASM object escapes unfreed.
import oxigraph from 'oxigraph';
import { DATA_PATH, linksGraphIri, RESOURCE_PATH } from '../../rdf/iris';
import { boundTerm, type BoundTerm, type SelectBinding } from '../bindings';
import { descriptionQuads, NAMED_LINKS } from '../descriptions';
import { linksHeld, linksQuery, type LinksHeld } from '../linksHeld';
import type { Line } from '../../rdf/ntriples';
import { checkedIri, describeIris, loadQueries, type CheckedIri, type Queries } from '../queries';
import type { TimeSlicer } from '../../util/timeSlice';

/** The parse formats Oxigraph reads, by their short names. */
export type StoreFormat = 'nt' | 'nq' | 'ttl' | 'trig' | 'rdf' | 'jsonld';

export type { BoundTerm, SelectBinding } from '../bindings';

/**
 * The institutions that `queries/institutions.rq` reads, as its first pattern matches them, each
 * once: an institution another links to (with `v:url`, say) is in that one's graph too.
 */
const INSTITUTION_LIST =
  'SELECT DISTINCT ?institution WHERE { ?institution a <http://xmlns.com/foaf/0.1/Organization> }';
/**
 * Institutions read by one query of the sliced index: a query then holds the thread for a few
 * milliseconds, and fewer would cost more per institution (each query is parsed anew).
 */
const INDEX_SLICE = 100;

/** The IRI as it can be written into a query, or undefined when it cannot (see checkedIri). */
function bindable(iri: string): CheckedIri | undefined {
  try {
    return checkedIri(iri);
  } catch {
    return undefined;
  }
}

export class DatasetStore {
  private store: oxigraph.Store | undefined = new oxigraph.Store();
  /** `size`, once counted: every write forgets it. */
  private quads: number | undefined;

  constructor(private readonly queries: Queries = loadQueries()) {}

  /**
   * Whether the links graph holds links (src/load/place/wikidataSets.ts): known once `readLinks` has read
   * them. Without, `describe` reads the description's graph alone (queries/describeOwn.rq), which
   * is cheaper; a store still loading is described with its links, to be sure.
   */
  private withLinks = true;

  /** What the links graph under `baseIri` holds (queries/links.rq); `describe` takes note. */
  readLinks(baseIri: string): LinksHeld | undefined {
    const graph = checkedIri(linksGraphIri(baseIri));
    // Asked first: the counting query, when run at all, left this thread's later work slower
    // (docs/benchmark.md, "links asked first"), and most versions hold no links.
    const links = this.ask(`ASK { GRAPH <${graph}> { ?s ?p ?o } }`)
      ? linksHeld(this.select(linksQuery(graph)))
      : undefined;
    this.withLinks = links !== undefined;
    return links;
  }

  private get live(): oxigraph.Store {
    if (!this.store) throw new Error('the store was freed');
    return this.store;
  }

  /**
   * The store's quads: counted once until the next write (each count is a pass over every quad,
   * docs/benchmark.md, "a count of the store's quads", and a load asks for it at several steps).
   */
  get size(): number {
    this.quads ??= this.live.size;
    return this.quads;
  }

  /**
   * Parses `input` into the default graph (the graphs an N-Quads or TriG input names stay theirs
   * until `mergeGraphs`). Triples go into the graphs of their descriptions only with
   * `placeDescriptions`. A syntax error throws Oxigraph's message (with line and column where it
   * gives them); an untrusted load that fails leaves the store as it was. `trusted` skips
   * Oxigraph's checks of IRIs and language tags: only for snapshots this project wrote from
   * checked data.
   *
   * A trusted load runs outside a transaction too (Oxigraph's `no_transaction`): one that fails
   * half-way leaves what it had parsed, but every store this project loads into is new, not yet
   * served, and freed whole when a load fails (`loadSources`). A snapshot then loads in less time.
   * Other loads keep the transaction: in one large piece, outside it, the peak memory was higher
   * (docs/benchmark.md, "trusted loads outside a transaction").
   */
  load(
    input: string | Uint8Array | Iterable<string | Uint8Array>,
    format: StoreFormat,
    baseIri?: string,
    trusted = false,
  ): void {
    this.quads = undefined;
    this.live.load(input as string, {
      format,
      ...(baseIri ? { base_iri: baseIri } : {}),
      ...(trusted ? { lenient: true, no_transaction: true } : {}),
    });
  }

  /** Runs a SPARQL update written by this project (never request input). */
  update(sparql: string): void {
    this.quads = undefined;
    this.live.update(sparql);
  }

  /**
   * Moves the triples of every named graph into the default graph: a source's graphs are its own
   * (a TriG file's, or a snapshot's written for another base), not this store's descriptions.
   */
  mergeGraphs(): void {
    if (this.ask('ASK { GRAPH ?g { ?s ?p ?o } }'))
      this.update('INSERT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } } ; DROP SILENT NAMED');
  }

  /**
   * Moves the triples of the default graph into the graphs of the descriptions they belong to
   * (`descriptionQuads`); those of none stay. Every load ends with it. A default graph that is
   * empty (a snapshot, records loaded into their graphs) costs nothing. Returns whether the
   * default graph had any triples. `check` sees each triple first (`descriptionQuads`); when it
   * throws, the store is left as it was.
   */
  placeDescriptions(baseIri: string, check?: (line: Line) => void): boolean {
    const store = this.live;
    const graph = oxigraph.defaultGraph();
    let triples: string;
    try {
      triples = store.dump({ format: 'nt', from_graph_name: graph });
    } finally {
      // A WASM object like any term: freed now, not by a finalizer.
      (graph as unknown as { free(): void }).free();
    }
    if (triples === '') return false;
    const quads = descriptionQuads(triples, baseIri, check);
    this.quads = undefined;
    store.update('CLEAR DEFAULT');
    store.load(quads, { format: 'nq', lenient: true });
    return true;
  }

  /**
   * Copies into each description the triples the store has elsewhere about the named nodes its
   * institution links to with `wdrs:describedby`, `v:url` or `v:email` (HTTP contract §3: "where
   * the store has triples about them"), then takes from the default graph what a description now
   * holds. Needed after a load that combined sources or records: each record's graph holds only
   * what the record states, and a file may state more about a node a record links to.
   */
  completeDescriptions(baseIri: string): void {
    const resource = JSON.stringify(`${baseIri}${RESOURCE_PATH}`);
    const data = JSON.stringify(`${baseIri}${DATA_PATH}`);
    this.update(
      // VALUES, not FILTER(?link IN …): the links are then read from the predicate index, not
      // found in a scan of every quad. The filter on ?h stands outside the UNION: inside its
      // branch ?g is not bound yet, and it would drop every triple of another graph
      // (docs/benchmark.md, "descriptions completed").
      `INSERT { GRAPH ?g { ?n ?p ?o } } WHERE {
        VALUES ?link { ${[...NAMED_LINKS].join(' ')} }
        GRAPH ?g { ?i ?link ?n }
        FILTER(isIRI(?n))
        FILTER(STRSTARTS(STR(?i), ${resource}) && STR(?g) = CONCAT(${data}, STRAFTER(STR(?i), ${resource})))
        { ?n ?p ?o } UNION { GRAPH ?h { ?n ?p ?o } }
        FILTER(!BOUND(?h) || ?h != ?g)
      } ;
      DELETE { ?s ?p ?o } WHERE { ?s ?p ?o GRAPH ?g { ?s ?p ?o } }`,
    );
  }

  /**
   * A query written by this project over the whole dataset: its default graph is the union of the
   * store's graphs (each description is in one of its own).
   */
  private query(sparql: string, format: 'json' | 'tsv'): string {
    return this.live.query(sparql, {
      results_format: format,
      use_default_graph_as_union: true,
    }) as string;
  }

  /**
   * Runs a SELECT written by this project; returns its solutions as the SPARQL JSON results format
   * has them. Read from the TSV results: Oxigraph writes and this reads them in less time than JSON
   * (docs/benchmark.md, "TSV results").
   */
  select(sparql: string): SelectBinding[] {
    const lines = this.query(sparql, 'tsv').split('\n');
    const names = lines[0]!.split('\t').map((name) => name.slice(1));
    const solutions: SelectBinding[] = [];
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (line === '' && i === lines.length - 1) break;
      const solution: Record<string, BoundTerm> = {};
      line.split('\t').forEach((text, column) => {
        if (text !== '') solution[names[column]!] = boundTerm(text);
      });
      solutions.push(solution);
    }
    return solutions;
  }

  ask(sparql: string): boolean {
    return JSON.parse(this.query(sparql, 'json')).boolean === true;
  }

  /** The text of queries/institutions.rq: what a snapshot's own index was read with. */
  get indexQuery(): string {
    return this.queries.institutions.text();
  }

  /** Every institution with its name and modification time (queries/institutions.rq). */
  institutions(): SelectBinding[] {
    return this.select(this.queries.institutions.text());
  }

  /**
   * What `institutions()` returns, read for a few institutions at a time (bound with VALUES) with
   * `slicer` pausing between: the one query over every institution would hold the event loop for
   * far longer than a slice. The institutions are listed first (as TSV, the cheapest format to
   * write and read); a store with one that cannot be bound into a query (a blank node, or not an
   * http(s) IRI) is read by the one query instead, so that the index and its warnings stay the
   * same.
   */
  async institutionsInSlices(
    slicer: Pick<TimeSlicer, 'pause' | 'contended'>,
  ): Promise<SelectBinding[]> {
    const listed = this.query(INSTITUTION_LIST, 'tsv');
    const iris: CheckedIri[] = [];
    for (const term of listed.split('\n').slice(1)) {
      if (term === '') continue;
      const iri = /^<(.*)>$/.exec(term)?.[1];
      const bound = iri === undefined ? undefined : bindable(iri);
      if (bound === undefined) return this.institutions();
      iris.push(bound);
    }
    await slicer.pause();
    const rows: SelectBinding[] = [];
    for (let at = 0; at < iris.length;) {
      // Ten times as many while no request waits (at start): fewer queries cost less in all.
      const count = slicer.contended ? INDEX_SLICE : 10 * INDEX_SLICE;
      rows.push(...this.select(this.queries.institutionsOf.bind(iris.slice(at, (at += count)))));
      await slicer.pause();
    }
    return rows;
  }

  /**
   * The institution's description as N-Triples (queries/describe.rq): the triples of the graph
   * `placeDescriptions` put it in, and its links from the links graph. Nothing for an IRI that
   * names no institution.
   */
  describe(institution: CheckedIri): string {
    const iris = describeIris(institution);
    if (iris === undefined) return '';
    const query = this.withLinks ? this.queries.describe : this.queries.describeOwn;
    return this.live.query(query.bind(iris), {
      results_format: 'nt',
    }) as string;
  }

  /**
   * A staff query, checked by src/store/staffQuery.ts: its solutions as SPARQL TSV, its graph as
   * N-Triples or its boolean, for staffResults.ts to write in the format asked for. `own`: the query's FROM and FROM NAMED; `union`: every graph as the default graph;
   * a dataset given by the protocol replaces the query's (SPARQL 1.1 Protocol
   * §2.1.4), an unknown graph being an empty one.
   */
  staffQuery(
    text: string,
    base: string,
    dataset: { defaultGraphs: readonly string[]; namedGraphs: readonly string[] } | 'own' | 'union',
    form: 'solutions' | 'boolean' | 'graph',
  ): string | boolean {
    const graphs = (iris: readonly string[]) => iris.map((iri) => oxigraph.namedNode(iri));
    // Oxigraph lets the union option win over a query's FROM: it is set only when the query has none.
    const scope =
      dataset === 'own'
        ? {}
        : dataset === 'union'
          ? { use_default_graph_as_union: true }
          : {
              default_graph: graphs(dataset.defaultGraphs),
              named_graphs: graphs(dataset.namedGraphs),
            };
    // Written by Oxigraph as text: a result as JS objects (a Map of terms a row) costs a hundred
    // times as much once it has a hundred thousand rows, most of it in the collector.
    const results_format = form === 'solutions' ? 'tsv' : form === 'graph' ? 'nt' : undefined;
    return this.live.query(text, {
      base_iri: base,
      ...scope,
      ...(results_format ? { results_format } : {}),
    }) as string | boolean;
  }

  /**
   * The store's named graphs, as N-Triples terms (`<iri>`), in the order the store keeps them; one
   * left empty by a removal may be among them. `GRAPH ?g {}` reads the store's list of graphs,
   * much faster than finding them in every quad (docs/benchmark.md, "the list of graphs").
   */
  graphNames(): string[] {
    const listed = this.query('SELECT ?g WHERE { GRAPH ?g {} }', 'tsv');
    return listed
      .split('\n')
      .slice(1)
      .filter((term) => term !== '');
  }

  /**
   * The triples of one graph as N-Triples (the named graph `iri`, or the default graph): a
   * dataset is read graph by graph with no string of the whole store (canonicalDataset.ts).
   */
  graphTriples(iri?: string): string {
    const graph = iri === undefined ? oxigraph.defaultGraph() : oxigraph.namedNode(iri);
    try {
      return this.live.dump({ format: 'nt', from_graph_name: graph });
    } finally {
      // A WASM object like any term: freed now, not by a finalizer.
      (graph as unknown as { free(): void }).free();
    }
  }

  /** The whole store as N-Quads: the snapshot format. */
  dump(): string {
    return this.live.dump({ format: 'nq' });
  }

  /** Releases the WASM memory now instead of at some later collection. */
  free(): void {
    // Declared by wasm-bindgen on every exported class, missing from the bundled .d.ts.
    (this.store as unknown as { free(): void } | undefined)?.free();
    this.store = undefined;
  }
}
