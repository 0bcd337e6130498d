// The second adapter of the store port: a remote SPARQL 1.1 endpoint (Virtuoso, Fuseki, GraphDB,
// Oxigraph server) that the loader writes dataset versions into (layout.ts). Opening a version reads
// the registry for the current one and its index of institutions; describing an institution is
// one CONSTRUCT over its description's graph of that version, sent through the client's bounded
// keep-alive pool with a deadline. Nothing is held here but the index: a version that is no longer
// served is freed by forgetting it; its graphs stay in the store until `prune` drops them.
import { DataFactory } from 'n3';
import { toSparql, translate, Factory, Algebra } from 'sparqlalgebrajs';
import { descriptionIriOf } from '../../rdf/iris';
import type { SelectBinding } from '../bindings';
import { Dataset, DatasetIndex, type DescriptionSource } from '../dataset';
import { checkedIri, loadTemplate, type CheckedIri, type QueryTemplate } from '../queries';
import {
  NoVersion,
  StoreClosed,
  StoreUnavailable,
  type Opened,
  type Store,
  type StoreHealth,
} from '../store';
import { canonicalNTriples } from './canonical';
import {
  descriptionGraph,
  readRegistry,
  REGISTRY_QUERY,
  versionGraph,
  type VersionEntry,
} from './layout';
import { SparqlClient, type ClientSettings } from './sparqlClient';

const JSON_RESULTS = 'application/sparql-results+json';
const N_TRIPLES = 'application/n-triples';

/** One version's descriptions in the remote store, as the HTTP thread's `Dataset` reads them. */
class RemoteDescriptions implements DescriptionSource {
  private freed = false;

  constructor(
    private readonly store: SparqlStore,
    readonly version: string,
    readonly size: number,
  ) {}

  describe(iri: CheckedIri): Promise<string> {
    if (this.freed) throw new Error('the version was freed');
    return this.store.describe(this.version, iri);
  }

  free(): void {
    this.freed = true;
  }
}

/** The SPARQL JSON bindings of an answer. */
function bindingsOf(body: string): SelectBinding[] {
  return (JSON.parse(body) as { results: { bindings: SelectBinding[] } }).results.bindings;
}

/**
 * Virtuoso's pragma that has it read a graph through its GS index (graph, subject). Without it,
 * from about a million quads on, its optimizer scans the whole POGS index for the graph of one
 * description: 10 ms a description against 2 ms (measured on 1.4 million quads, Virtuoso
 * 07.20.3229). Another store would refuse the DEFINE: it is sent to Virtuoso only.
 */
export const VIRTUOSO_GRAPH_INDEX = 'DEFINE sql:table-option "index G"\n';

/** Rows of the index asked for at once: the most Virtuoso sorts for a LIMIT by default. */
const INDEX_PAGE = 10_000;

export class SparqlStore implements Store {
  readonly client: SparqlClient;
  private readonly describeQuery: QueryTemplate;
  private readonly institutionsText: string;
  private state: StoreHealth;
  private closed = false;

  constructor(
    private readonly settings: ClientSettings,
    private readonly baseIri: string,
  ) {
    this.client = new SparqlClient(settings);
    this.describeQuery = loadTemplate('describe.rq', Algebra.types.CONSTRUCT);
    this.institutionsText = loadTemplate('institutions.rq', Algebra.types.PROJECT).text();
    this.state = { kind: 'remote', state: 'available', endpoint: settings.endpoint };
  }

  /** The registry: every complete version, and the current one (NoVersion when there is none). */
  async registry(): Promise<{ entries: VersionEntry[]; current: VersionEntry }> {
    const { entries, current } = readRegistry(
      bindingsOf(await this.ask(REGISTRY_QUERY, JSON_RESULTS)),
    );
    if (!current)
      throw new NoVersion(
        `the store at ${this.settings.endpoint} holds no dataset version: load one (npm run load -- --remote …, docs/scaling.md)`,
      );
    return { entries, current };
  }

  async open(): Promise<Opened> {
    const { current } = await this.registry();
    const { version, triples, baseIri } = current;
    if (baseIri !== this.baseIri)
      throw new Error(
        `the store's current version ${version} was loaded for the base ${baseIri}, this service's BASE_IRI is ${this.baseIri}`,
      );
    const rows = await this.indexRows(version);
    const source = new RemoteDescriptions(this, version, triples);
    const dataset = await Dataset.fromRows(source, this.baseIri, version, DatasetIndex.order(rows));
    return {
      dataset,
      report: {
        files: [],
        institutions: dataset.institutionCount,
        withdrawn: dataset.withdrawnCount,
        triples,
        rewritten: 0,
        skipped: [],
        conflicts: [],
        defects: [],
        defective: 0,
        validated: false,
        warnings: dataset.warnings,
        version,
      },
    };
  }

  /** The description of `iri` in `version`, as canonical N-Triples. */
  describe(version: string, iri: CheckedIri): Promise<string> {
    const description = descriptionIriOf(iri);
    if (description === undefined) throw new Error(`not an institution's IRI: ${iri}`);
    const graph = descriptionGraph(version, checkedIri(description));
    const query = this.describeQuery.bind(graph);
    return this.ask(
      this.client.isVirtuoso ? `${VIRTUOSO_GRAPH_INDEX}${query}` : query,
      N_TRIPLES,
    ).then(canonicalNTriples);
  }

  health(): StoreHealth {
    return this.state;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.client.close();
  }

  /**
   * The index's rows, read in pages ordered by institution, each page the institutions after the
   * last one read (not an OFFSET: Virtuoso sorts at most 10,000 rows of OFFSET and LIMIT together,
   * MaxSortedTopRows). A store may also cap the rows of one answer without saying so (Virtuoso's
   * ResultSetMaxRows: 10,000 in Debian's configuration), so a page shorter than asked for is not
   * taken for the end: reading goes on after its last row until a page comes back empty.
   */
  private async indexRows(version: string): Promise<SelectBinding[]> {
    const rows: SelectBinding[] = [];
    let after = '';
    for (;;) {
      const page = bindingsOf(await this.ask(this.indexQuery(version, after), JSON_RESULTS));
      if (page.length === 0) return rows;
      for (const row of page) rows.push(row);
      after = page.at(-1)!.institution!.value;
    }
  }

  /** institutions.rq over the graph of every triple of `version`: the page after `after`. */
  private indexQuery(version: string, after: string): string {
    const factory = new Factory();
    const algebra = translate(this.institutionsText);
    const text = toSparql(
      factory.createFrom(algebra, [DataFactory.namedNode(versionGraph(version))], []),
    );
    // The FILTER goes in before the grouping: a page's institutions are found, not all of them.
    const typed =
      /\?institution (?:a|rdf:type|<http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#type>) (?:foaf:Organization|<http:\/\/xmlns\.com\/foaf\/0\.1\/Organization>)(\s*\.)?/;
    if (!typed.test(text))
      throw new Error(`queries/institutions.rq: no "?institution a foaf:Organization" to page by`);
    const from = JSON.stringify(after);
    return `${text.replace(typed, (pattern) => `${pattern.replace(/\s*\.$/, '')} . FILTER(STR(?institution) > ${from})`)}\nORDER BY STR(?institution) LIMIT ${INDEX_PAGE}`;
  }

  /** Sends a query; what the store's answer says of its health is kept for /readyz. */
  private async ask(text: string, accept: string): Promise<string> {
    if (this.closed) throw new StoreClosed('the remote store was closed');
    try {
      const { body } = await this.client.query(text, accept);
      if (this.state.state !== 'available')
        this.state = {
          kind: 'remote',
          state: 'available',
          endpoint: this.settings.endpoint,
          since: new Date().toISOString(),
        };
      return body;
    } catch (error) {
      if (error instanceof StoreUnavailable && this.state.state !== 'unavailable')
        this.state = {
          kind: 'remote',
          state: 'unavailable',
          endpoint: this.settings.endpoint,
          since: new Date().toISOString(),
          error: error.message,
        };
      throw error;
    }
  }
}
