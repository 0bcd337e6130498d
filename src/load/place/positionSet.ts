// The positions a load reads from positions sources (src/load/read/wikidataPositions.ts), held until the
// links graph is placed and then written into the version's positions graph (POSITIONS_PATH):
// each live institution whose links name a Wikidata item with a position gets that item as its
// `wgs84:location`, the item its point, and the graph says where and when it is from. Never in a
// description's graph: the documents stay as their records make them.
import { linksGraphIri } from '../../rdf/iris';
import { CC0, PREFIXES, RDF_TYPE, WIKIDATA } from '../../rdf/namespaces';
import type { DatasetStore } from '../../store/embedded/datasetStore';
import {
  positionsGraphIri,
  positionsHeld,
  positionsQuery,
  type Position,
} from '../../store/positions';
import { checkedIri } from '../../store/queries';
import { VOID } from './linkSet';
import type { PositionRecord } from '../read/wikidata';

export const WGS84 = 'http://www.w3.org/2003/01/geo/wgs84_pos#';

/** A coordinate as an `xsd:decimal` lexical form (no exponent). */
const decimal = (n: number) => {
  const text = String(n);
  return /e/i.test(text) ? n.toFixed(8) : text.includes('.') ? text : `${text}.0`;
};

export class PositionSet {
  private readonly byItem = new Map<string, PositionRecord>();
  private newest: Date | undefined;
  private readonly sources = new Set<string>();

  get size(): number {
    return this.byItem.size;
  }

  add(record: PositionRecord, file: string): void {
    if (!this.byItem.has(record.item)) this.byItem.set(record.item, record);
    if (this.newest === undefined || record.modified > this.newest) this.newest = record.modified;
    this.sources.add(file);
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
      `SELECT ?institution ?item WHERE { GRAPH <${links}> { ?institution <${PREFIXES.owl}sameAs> ?item ` +
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
      const xsd = PREFIXES.xsd;
      quads.push(
        `<${institution}> <${WGS84}location> ${item} ${graph} .\n`,
        `${item} <${WGS84}lat> "${decimal(position.lat)}"^^<${xsd}decimal> ${graph} .\n`,
        `${item} <${WGS84}long> "${decimal(position.lon)}"^^<${xsd}decimal> ${graph} .\n`,
      );
    }
    if (quads.length === 0 || this.newest === undefined) return 0;
    store.update(`DROP SILENT GRAPH ${graph}`);
    store.load(quads.join(''), 'nq');
    store.load(this.description(graph, this.newest), 'nq');
    return placed.size;
  }

  /** The graph as VoID describes a subset of a dataset: from where, under what licence, and when. */
  private description(graph: string, created: Date): string {
    const sources = [...this.sources].map((file) => file.split('/').at(-1)!);
    return [
      `${graph} <${RDF_TYPE}> <${VOID}Dataset>`,
      `${graph} <${PREFIXES.dcterms}created> "${created.toISOString().slice(0, 10)}"^^<${PREFIXES.xsd}date>`,
      `${graph} <${PREFIXES.dcterms}license> <${CC0}>`,
      `${graph} <${PREFIXES.dcterms}source> <http://www.wikidata.org/>`,
      ...sources.map((name) => `${graph} <${PREFIXES.rdfs}comment> ${JSON.stringify(name)}`),
    ]
      .map((triple) => `${triple} ${graph} .\n`)
      .join('');
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
