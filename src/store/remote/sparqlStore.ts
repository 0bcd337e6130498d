// The second adapter of the store port: a remote SPARQL 1.1 endpoint (Virtuoso, Fuseki, GraphDB,
// Oxigraph server) that the loader writes dataset versions into (layout.ts). Opening a version reads
// the registry for the current one and its index of institutions; describing an institution is
// one CONSTRUCT over its description's graph of that version, sent through the client's bounded
// keep-alive pool with a deadline. Nothing is held here but the index: a version that is no longer
// served is freed by forgetting it; its graphs stay in the store until `prune` drops them.
import { DataFactory } from 'n3';
import { toSparql, translate, Factory, Algebra } from 'sparqlalgebrajs';
import { linksGraphIri } from '../../rdf/iris';
import type { SelectBinding } from '../bindings';
import { linksHeld, linksQuery } from '../linksHeld';
import { Dataset, type DescriptionSource } from '../dataset';
import { DatasetIndex } from '../datasetIndex';
import {
  checkedIri,
  describeIris,
  loadTemplate,
  type CheckedIri,
  type QueryTemplate,
} from '../queries';
import {
  NoVersion,
  StoreClosed,
  StoreUnavailable,
  type Opened,
  type Store,
  type StoreHealth,
} from '../store';
import { canonicalNTriples } from './canonicalNTriples';
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
    /** Whether the version holds links: without, its descriptions are read without them. */
    private readonly withLinks: boolean,
  ) {}

  describe(iri: CheckedIri): Promise<string> {
    if (this.freed) throw new Error('the version was freed');
    return this.store.describe(this.version, iri, this.withLinks);
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
 * description (docs/benchmark.md, "Virtuoso's graph index"). Another store would refuse the
 * DEFINE: it is sent to Virtuoso only.
 */
export const VIRTUOSO_GRAPH_INDEX = 'DEFINE sql:table-option "index G"\n';

/** Institutions listed at once when a store caps its answers: the most Virtuoso sorts for a LIMIT. */
const INDEX_PAGE = 10_000;
/** Institutions whose index rows are asked for in one query. */
const INDEX_CHUNK = 2_000;
const FOAF_ORGANIZATION = 'http://xmlns.com/foaf/0.1/Organization';

export class SparqlStore implements Store<unknown> {
  readonly client: SparqlClient;
  private readonly describeQuery: QueryTemplate;
  private readonly describeOwnQuery: QueryTemplate;
  private readonly institutionsText: string;
  private state: StoreHealth;
  private closed = false;

  constructor(
    private readonly settings: ClientSettings,
    private readonly baseIri: string,
  ) {
    this.client = new SparqlClient(settings);
    this.describeQuery = loadTemplate('describe.rq', Algebra.types.CONSTRUCT);
    this.describeOwnQuery = loadTemplate('describeOwn.rq', Algebra.types.CONSTRUCT);
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
    const links = linksHeld(
      bindingsOf(
        await this.ask(
          linksQuery(descriptionGraph(version, checkedIri(linksGraphIri(this.baseIri)))),
          JSON_RESULTS,
        ),
      ),
    );
    const source = new RemoteDescriptions(this, version, triples, links !== undefined);
    const rowsInOrder = DatasetIndex.order(rows);
    const dataset = await Dataset.fromRows(source, this.baseIri, version, rowsInOrder, links);
    return { dataset };
  }

  /**
   * The description of `iri` in `version`, as canonical N-Triples: with the links of the version's
   * links graph (queries/describe.rq), or, for a version without links, without looking there.
   */
  describe(version: string, iri: CheckedIri, withLinks = true): Promise<string> {
    const iris = describeIris(iri, (graph) => descriptionGraph(version, graph));
    if (iris === undefined) throw new Error(`not an institution's IRI: ${iri}`);
    const query = (withLinks ? this.describeQuery : this.describeOwnQuery).bind(iris);
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
   * The index's rows: the version's institutions listed first, then their rows asked for a few
   * thousand at a time (`VALUES`). One query of the whole index grouped every institution of the
   * version for each page asked of it: seconds a page for a million institutions on Virtuoso.
   */
  private async indexRows(version: string): Promise<SelectBinding[]> {
    const institutions = await this.institutionIris(version);
    const rows: SelectBinding[] = [];
    for (let i = 0; i < institutions.length; i += INDEX_CHUNK) {
      const chunk = institutions.slice(i, i + INDEX_CHUNK).map((iri) => `<${iri}>`);
      const values = `VALUES ?institution { ${chunk.join(' ')} }`;
      for (const row of bindingsOf(await this.ask(this.indexQuery(version, values), JSON_RESULTS)))
        rows.push(row);
    }
    return rows;
  }

  /**
   * The IRIs of the version's institutions: in one answer when the store gives them whole (as many
   * as it counts), else in pages ordered by IRI, each after the last one read. A store may cap an
   * answer's rows without saying so (Virtuoso's ResultSetMaxRows: 10,000 in Debian's
   * configuration), and Virtuoso sorts at most 10,000 rows for a LIMIT (MaxSortedTopRows), so a
   * page is no longer, and one shorter than asked for is not taken for the end.
   */
  private async institutionIris(version: string): Promise<string[]> {
    const where = `FROM <${versionGraph(version)}> WHERE { ?institution a <${FOAF_ORGANIZATION}> FILTER(isIRI(?institution))`;
    const iris = (body: string) => bindingsOf(body).map((row) => row.institution!.value);
    const counted = bindingsOf(
      await this.ask(`SELECT (COUNT(DISTINCT ?institution) AS ?n) ${where} }`, JSON_RESULTS),
    );
    const count = Number(counted[0]?.n?.value);
    const whole = iris(await this.ask(`SELECT DISTINCT ?institution ${where} }`, JSON_RESULTS));
    if (whole.length === count) return whole;
    const all: string[] = [];
    for (;;) {
      const after = JSON.stringify(all.at(-1) ?? '');
      const page = iris(
        await this.ask(
          `SELECT DISTINCT ?institution ${where} FILTER(STR(?institution) > ${after}) } ORDER BY STR(?institution) LIMIT ${INDEX_PAGE}`,
          JSON_RESULTS,
        ),
      );
      if (page.length === 0) return all;
      for (const iri of page) all.push(iri);
    }
  }

  /** institutions.rq over the graph of every triple of `version`, for the institutions `values` names. */
  private indexQuery(version: string, values: string): string {
    const factory = new Factory();
    const algebra = translate(this.institutionsText);
    const text = toSparql(
      factory.createFrom(algebra, [DataFactory.namedNode(versionGraph(version))], []),
    );
    const typed =
      /\?institution (?:a|rdf:type|<http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#type>) (?:foaf:Organization|<http:\/\/xmlns\.com\/foaf\/0\.1\/Organization>)(\s*\.)?/;
    if (!typed.test(text))
      throw new Error(
        `queries/institutions.rq: no "?institution a foaf:Organization" to name institutions in`,
      );
    return text.replace(typed, (pattern) => `${values} ${pattern.replace(/\s*\.$/, '')} .`);
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
