// The links and positions a load reads from Wikidata's answers (src/load/read/wikidata.ts), held
// until the load's institutions are known and then written into graphs of their own, each with a
// VoID description of the set that says where and when it is from. Never in a description's
// graph: a description stays as its source publishes it, and queries/describe.rq serves the links
// beside it.
// - The links graph (LINKS_PATH): links of live institutions only, under the IRI the index serves
//   them by.
// - The positions graph (POSITIONS_PATH), placed once the links are: each live institution whose
//   links name a Wikidata item with a position gets that item as its `wgs84:location`, the item
//   its point.
import { isilOfInstitutionIri, linksGraphIri } from '../../rdf/iris';
import { isilKey } from '../../rdf/isil';
import { CC0, PREFIXES, RDF_TYPE, WIKIDATA } from '../../rdf/namespaces';
import type { SelectBinding } from '../../store/bindings';
import type { DatasetStore } from '../../store/embedded/datasetStore';
import { linksHeld, linksQuery } from '../../store/linksHeld';
import {
  positionsGraphIri,
  positionsHeld,
  positionsQuery,
  type Position,
} from '../../store/positions';
import { checkedIri } from '../../store/queries';
import type { LinkRecord, PositionRecord } from '../read/wikidata';

const VOID = 'http://rdfs.org/ns/void#';
const WGS84 = 'http://www.w3.org/2003/01/geo/wgs84_pos#';
const { dcterms, owl, rdfs, xsd } = PREFIXES;

/** What a load did with the links it read: placed, or left out because of their ISIL. */
export interface LinksPlaced {
  readonly placed: number;
  /** ISILs the dataset holds only as withdrawn: a retired ISIL is not the institution. */
  readonly withdrawn: number;
  /** ISILs the dataset does not hold (Wikidata's lookup is worldwide). */
  readonly unknown: number;
}

/** What both sets keep besides their records: the files they came from, and the newest's date. */
abstract class WikidataSet {
  protected newest: Date | undefined;
  private readonly sources = new Set<string>();

  protected noteSource(modified: Date, file: string): void {
    if (this.newest === undefined || modified > this.newest) this.newest = modified;
    this.sources.add(file);
  }

  /**
   * Puts `quads` into `graph` (what `clear` leaves of it) with the set's description: as VoID
   * describes a subset of a dataset, from where, under what licence, and when (`dated`). Not a
   * `void:Linkset`, which links two datasets: the links go into two, Wikidata and the GND, and
   * `/.well-known/void` describes a linkset to each within it (src/http/discovery.ts).
   */
  protected write(
    store: DatasetStore,
    graph: string,
    clear: string,
    quads: string[],
    dated: string,
  ) {
    const names = [...this.sources].map((file) => file.split('/').at(-1)!);
    const description = [
      `${graph} <${RDF_TYPE}> <${VOID}Dataset>`,
      `${graph} ${dated}`,
      `${graph} <${dcterms}license> <${CC0}>`,
      `${graph} <${dcterms}source> <http://www.wikidata.org/>`,
      ...names.map((name) => `${graph} <${rdfs}comment> ${JSON.stringify(name)}`),
    ];
    store.update(clear);
    store.load(quads.join(''), 'nq');
    store.load(description.map((triple) => `${triple} ${graph} .\n`).join(''), 'nq');
  }
}

export class LinkSet extends WikidataSet {
  private readonly byIsil = new Map<string, { isil: string; targets: Set<string> }>();

  get size(): number {
    return this.byIsil.size;
  }

  add(record: LinkRecord, file: string): void {
    const key = isilKey(record.isil);
    let entry = this.byIsil.get(key);
    if (!entry) this.byIsil.set(key, (entry = { isil: record.isil, targets: new Set() }));
    for (const target of record.targets) entry.targets.add(target);
    this.noteSource(record.modified, file);
  }

  /**
   * Writes the links of the live institutions among `rows` (queries/institutions.rq, in the index's
   * order: of case twins, the first is the one served) into the links graph of `store`, with the
   * set's description (replacing one a snapshot brought, its date kept if newer).
   */
  place(store: DatasetStore, baseIri: string, rows: readonly SelectBinding[]): LinksPlaced {
    const served = new Map<string, string | null>();
    for (const row of rows) {
      const iri = row.institution!.value;
      const isil = isilOfInstitutionIri(baseIri, iri);
      if (isil === undefined) continue;
      const key = isilKey(isil);
      if (!served.has(key)) served.set(key, row.deprecated === undefined ? iri : null);
    }
    const iri = checkedIri(linksGraphIri(baseIri));
    const graph = `<${iri}>`;
    const quads: string[] = [];
    let placed = 0;
    let withdrawn = 0;
    let unknown = 0;
    for (const [key, { targets }] of this.byIsil) {
      const institution = served.get(key);
      if (institution === undefined) unknown++;
      else if (institution === null) withdrawn++;
      else {
        placed++;
        for (const target of targets)
          quads.push(`<${institution}> <${owl}sameAs> <${target}> ${graph} .\n`);
      }
    }
    // Sources that gave no link of a live institution leave the graph as it was: a set described
    // with no link in it would be a set of nothing.
    if (this.newest !== undefined && quads.length > 0) {
      const held = linksHeld(store.select(linksQuery(iri)));
      const modified = held && held.modified > this.newest ? held.modified : this.newest;
      const dated = `<${dcterms}modified> "${modified.toISOString()}"^^<${xsd}dateTime>`;
      this.write(store, graph, `DELETE WHERE { GRAPH ${graph} { ${graph} ?p ?o } }`, quads, dated);
    }
    return { placed, withdrawn, unknown };
  }
}

/** A coordinate as an `xsd:decimal` lexical form (no exponent). */
const decimal = (n: number) => {
  const text = String(n);
  return /e/i.test(text) ? n.toFixed(8) : text.includes('.') ? text : `${text}.0`;
};

export class PositionSet extends WikidataSet {
  private readonly byItem = new Map<string, PositionRecord>();

  add(record: PositionRecord, file: string): void {
    if (!this.byItem.has(record.item)) this.byItem.set(record.item, record);
    this.noteSource(record.modified, file);
  }

  /**
   * Writes the positions of the institutions the links graph of `store` joins to an item (the
   * graph holds live institutions only), replacing the graph a snapshot brought; returns how many
   * institutions got one.
   */
  place(store: DatasetStore, baseIri: string): number {
    if (this.byItem.size === 0) return 0;
    const links = checkedIri(linksGraphIri(baseIri));
    const graph = `<${checkedIri(positionsGraphIri(baseIri))}>`;
    const rows = store.select(
      `SELECT ?institution ?item WHERE { GRAPH <${links}> { ?institution <${owl}sameAs> ?item ` +
        `FILTER (STRSTARTS(STR(?item), "${WIKIDATA}")) } } ORDER BY ?institution ?item`,
    );
    const quads: string[] = [];
    const placed = new Set<string>();
    for (const row of rows) {
      const institution = row.institution!.value;
      const position = this.byItem.get(row.item!.value);
      if (!position || placed.has(institution)) continue;
      placed.add(institution);
      const item = `<${position.item}>`;
      quads.push(
        `<${institution}> <${WGS84}location> ${item} ${graph} .\n`,
        `${item} <${WGS84}lat> "${decimal(position.lat)}"^^<${xsd}decimal> ${graph} .\n`,
        `${item} <${WGS84}long> "${decimal(position.lon)}"^^<${xsd}decimal> ${graph} .\n`,
      );
    }
    if (quads.length === 0 || this.newest === undefined) return 0;
    const created = this.newest.toISOString().slice(0, 10);
    this.write(
      store,
      graph,
      `DROP SILENT GRAPH ${graph}`,
      quads,
      `<${dcterms}created> "${created}"^^<${xsd}date>`,
    );
    return placed.size;
  }
}

/** The positions graph of `store` under `baseIri` by ISIL, when it holds any (asked first). */
export function readPositions(
  store: DatasetStore,
  baseIri: string,
): ReadonlyMap<string, Position> | undefined {
  const graph = checkedIri(positionsGraphIri(baseIri));
  if (!store.ask(`ASK { GRAPH <${graph}> { ?s <${WGS84}location> ?o } }`)) return undefined;
  return positionsHeld(baseIri, store.select(positionsQuery(graph)));
}
