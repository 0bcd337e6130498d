// The profiles the service describes an institution in (W3C dx-prof-conneg), by token and IRI.
import { PREFIXES } from './namespaces';
import { splitWrittenNTriples } from './ntriples';

export type ProfileName = 'zdb' | 'full';

/** What the service publishes under each profile; the first is the default. */
export const PROFILES: readonly ProfileName[] = ['zdb', 'full'];

/** The path a profile's IRI and description live at: `{BASE_IRI}/profiles/<token>`. */
export const PROFILES_PATH = '/profiles/';

export function profileIri(baseIri: string, profile: ProfileName): string {
  return `${baseIri}${PROFILES_PATH}${profile}`;
}

/** The terms of this service where FOAF, vCard and schema.org have none (docs/data-model.md). */
export const TERMS = 'https://ld.zdb-services.de/terms#';

/** The code lists' concepts, `{BASE_IRI}/vocab/<scheme>/<code>` (served by the code lists' routes). */
export type CodeScheme = 'institution-types' | 'funders' | 'stock-sizes' | 'status';

export function conceptIri(baseIri: string, scheme: CodeScheme, code: string): string {
  return `${baseIri}/vocab/${scheme}/${encodeURIComponent(code)}`;
}

const { schema, dcterms, owl } = PREFIXES;

/**
 * The terms of the `full` profile the `zdb` model has none of, beside every term of this service
 * (`TERMS`): docs/data-model.md lists the same.
 */
export const FULL_TERMS: readonly string[] = [
  ...['identifier', 'alternateName', 'parentOrganization', 'address', 'memberOf'].map(
    (local) => `${schema}${local}`,
  ),
  `${dcterms}replaces`,
  ...['dayOfWeek', 'opens', 'closes'].map((local) => `${schema}${local}`),
];

const FULL = new Set(FULL_TERMS);
const isFullTerm = (predicate: string) => predicate.startsWith(TERMS) || FULL.has(predicate);

interface TermLike {
  readonly termType: string;
  readonly value: string;
}

interface TripleLike {
  readonly subject: TermLike;
  readonly predicate: TermLike;
  readonly object: TermLike;
}

/**
 * The `zdb` projection of a description's triples as stored: without the `full` terms, the blank
 * nodes that carry one or are reached through one, and `dcterms:isReplacedBy` of an institution
 * that is not withdrawn. One pass in this thread, for the store's documents (src/store/dataset.ts)
 * and the mementos alike: the same filter in SPARQL, NOT EXISTS per blank node, cost the store
 * several times the plain scan (docs/benchmark.md, "the zdb projection").
 */
export function zdbProjection<T extends TripleLike>(triples: readonly T[]): T[] {
  const full = new Set<string>();
  const withdrawn = new Set<string>();
  for (const { subject, predicate, object } of triples) {
    if (predicate.value === `${owl}deprecated`)
      withdrawn.add(`${subject.termType}:${subject.value}`);
    if (!isFullTerm(predicate.value)) continue;
    if (subject.termType === 'BlankNode') full.add(subject.value);
    if (object.termType === 'BlankNode') full.add(object.value);
  }
  const fullNode = (term: TermLike) => term.termType === 'BlankNode' && full.has(term.value);
  return triples.filter(
    ({ subject, predicate, object }) =>
      !isFullTerm(predicate.value) &&
      (predicate.value !== `${dcterms}isReplacedBy` ||
        withdrawn.has(`${subject.termType}:${subject.value}`)) &&
      !fullNode(subject) &&
      !fullNode(object),
  );
}

/** A term of an N-Triples line as its kind and value (a literal's value left as written). */
function termOf(written: string): TermLike {
  if (written.startsWith('_:')) return { termType: 'BlankNode', value: written.slice(2) };
  if (written.startsWith('<')) return { termType: 'NamedNode', value: written.slice(1, -1) };
  return { termType: 'Literal', value: written };
}

/** `zdbProjection` of N-Triples text as the store and the history write it. */
export function zdbNTriples(text: string): string {
  const triples = splitWrittenNTriples(text).map((line) => ({
    line,
    subject: termOf(line.s),
    predicate: termOf(line.p),
    object: termOf(line.o),
  }));
  return zdbProjection(triples)
    .map(({ line }) => `${line.s} ${line.p} ${line.o} .\n`)
    .join('');
}
