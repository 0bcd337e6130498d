// What a version's links graph holds (queries/links.rq), read alike from both adapters: the links
// to the same institutions elsewhere that a links source gave (src/load/place/wikidataSets.ts writes them).
import { Algebra } from 'sparqlalgebrajs';
import type { SelectBinding } from './bindings';
import { loadTemplate, type CheckedIri, type QueryTemplate } from './queries';

export interface LinksHeld {
  /** When the newest links source in it was made: every document's Last-Modified covers it. */
  readonly modified: Date;
  /** Its `owl:sameAs` statements. */
  readonly links: number;
  /** The institutions with at least one. */
  readonly institutions: number;
  /** Of `links`, those to Wikidata items and those to GND entities. */
  readonly wikidata: number;
  readonly gnd: number;
}

let template: QueryTemplate | undefined;

/** queries/links.rq over the links graph `graph` (as the store names it). */
export function linksQuery(graph: CheckedIri): string {
  template ??= loadTemplate('links.rq', Algebra.types.PROJECT);
  return template.bind({ links: graph });
}

/** The answer of `linksQuery` as what the graph holds; undefined when it holds no links. */
export function linksHeld(rows: readonly SelectBinding[]): LinksHeld | undefined {
  const row = rows[0];
  const links = Number(row?.links?.value ?? 0);
  const modified = new Date(row?.modified?.value ?? Number.NaN);
  if (!(links > 0) || Number.isNaN(modified.getTime())) return undefined;
  const count = (name: string) => Number(row?.[name]?.value ?? 0);
  return {
    modified,
    links,
    institutions: count('institutions'),
    wikidata: count('wikidata'),
    gnd: count('gnd'),
  };
}
