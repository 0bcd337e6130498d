// The links a load reads from links sources (src/load/read/links.ts), held until the load's institutions
// are known and then written into the version's links graph (LINKS_PATH): only links of live
// institutions, under the IRI the index serves them by, with a VoID description of the set that
// says when it was made. The graph is the links' own: a description's graph stays as its source
// publishes it, and queries/describe.rq serves the two together.
import { isilOfInstitutionIri, linksGraphIri } from '../../rdf/iris';
import { isilKey } from '../../rdf/isil';
import { CC0, PREFIXES, RDF_TYPE } from '../../rdf/namespaces';
import type { SelectBinding } from '../../store/bindings';
import type { DatasetStore } from '../../store/embedded/datasetStore';
import { linksHeld, linksQuery } from '../../store/linksHeld';
import { checkedIri } from '../../store/queries';
import type { LinkRecord } from '../read/wikidata';

export const VOID = 'http://rdfs.org/ns/void#';

/** What a load did with the links it read: placed, or left out because of their ISIL. */
export interface LinksPlaced {
  readonly placed: number;
  /** ISILs the dataset holds only as withdrawn: a retired ISIL is not the institution. */
  readonly withdrawn: number;
  /** ISILs the dataset does not hold (Wikidata's lookup is worldwide). */
  readonly unknown: number;
}

export class LinkSet {
  private readonly byIsil = new Map<string, { isil: string; targets: Set<string> }>();
  private newest: Date | undefined;
  private readonly sources = new Set<string>();

  get size(): number {
    return this.byIsil.size;
  }

  add(record: LinkRecord, file: string): void {
    const key = isilKey(record.isil);
    let entry = this.byIsil.get(key);
    if (!entry) this.byIsil.set(key, (entry = { isil: record.isil, targets: new Set() }));
    for (const target of record.targets) entry.targets.add(target);
    if (this.newest === undefined || record.modified > this.newest) this.newest = record.modified;
    this.sources.add(file);
  }

  /**
   * Writes the links of the live institutions among `rows` (queries/institutions.rq, in the index's
   * order: of case twins, the first is the one served) into the links graph of `store`, with the
   * set's VoID description (replacing one a snapshot brought, its date kept if newer).
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
          quads.push(`<${institution}> <${PREFIXES.owl}sameAs> <${target}> ${graph} .\n`);
      }
    }
    // Sources that gave no link of a live institution leave the graph as it was: a set described
    // with no link in it would be a set of nothing.
    if (this.newest !== undefined && quads.length > 0) {
      const held = linksHeld(store.select(linksQuery(iri)));
      const modified = held && held.modified > this.newest ? held.modified : this.newest;
      store.update(`DELETE WHERE { GRAPH ${graph} { ${graph} ?p ?o } }`);
      store.load(quads.join(''), 'nq');
      store.load(this.description(graph, modified), 'nq');
    }
    return { placed, withdrawn, unknown };
  }

  /**
   * The set as VoID describes a subset of a dataset: from where, under what licence, and when. Not
   * a `void:Linkset`, which links two datasets: its links go into two, Wikidata and the GND, and
   * `/.well-known/void` describes a linkset to each within it (src/http/discovery.ts).
   */
  private description(graph: string, modified: Date): string {
    const xsd = PREFIXES.xsd;
    const sources = [...this.sources].map((file) => file.split('/').at(-1)!);
    return [
      `${graph} <${RDF_TYPE}> <${VOID}Dataset>`,
      `${graph} <${PREFIXES.dcterms}modified> "${modified.toISOString()}"^^<${xsd}dateTime>`,
      `${graph} <${PREFIXES.dcterms}license> <${CC0}>`,
      `${graph} <${PREFIXES.dcterms}source> <http://www.wikidata.org/>`,
      ...sources.map((name) => `${graph} <${PREFIXES.rdfs}comment> ${JSON.stringify(name)}`),
    ]
      .map((triple) => `${triple} ${graph} .\n`)
      .join('');
  }
}
