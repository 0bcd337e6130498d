// The ISIL agency's code lists (vocab/code-lists.ttl, our own data): four SKOS concept schemes,
// read once and checked, so that a list the service cannot serve stops start-up with its defect.
import fs from 'node:fs';
import path from 'node:path';
import { Parser, type Quad } from 'n3';
import { PROJECT_ROOT } from '../util/paths';
import { PREFIXES, RDF_TYPE } from './namespaces';

export const CODE_LISTS_FILE = path.join(PROJECT_ROOT, 'vocab', 'code-lists.ttl');
export const SKOS = 'http://www.w3.org/2004/02/skos/core#';
/** Where the schemes are served: `{BASE_IRI}/vocab/<scheme>/<code>`. */
export const VOCAB_PATH = '/vocab';

/** The schemes, each with the subfield of PICA+ 035E whose codes it lists. */
export const SCHEMES = [
  { name: 'institution-types', subfield: 'f' },
  { name: 'funders', subfield: 'g' },
  { name: 'stock-sizes', subfield: 'h' },
  { name: 'status', subfield: 'a' },
] as const;

export type SchemeName = (typeof SCHEMES)[number]['name'];

export interface Labels {
  readonly de: string;
  readonly en: string;
}

export interface Concept extends Labels {
  readonly scheme: SchemeName;
  readonly code: string;
  readonly iri: string;
}

export interface Scheme {
  readonly name: SchemeName;
  readonly iri: string;
  readonly subfield: string;
  readonly title: Labels;
  /** By code, in the file's order of `skos:hasTopConcept`. */
  readonly concepts: ReadonlyMap<string, Concept>;
}

export interface CodeLists {
  readonly baseIri: string;
  readonly schemes: readonly Scheme[];
  /** Every triple of the file, its IRIs resolved under `{baseIri}/vocab/`. */
  readonly quads: readonly Quad[];
}

/** A code list that does not hold what the service serves: names the file and the node. */
export class CodeListError extends Error {
  override readonly name = 'CodeListError';
}

/** The lists under `baseIri`, read and checked once per base. */
export function codeLists(baseIri: string): CodeLists {
  let lists = read.get(baseIri);
  if (!lists) read.set(baseIri, (lists = parseCodeLists(readText(), baseIri)));
  return lists;
}

const read = new Map<string, CodeLists>();
let text: string | undefined;
const readText = () => (text ??= fs.readFileSync(CODE_LISTS_FILE, 'utf8'));

/** The codes of `scheme` and their concepts, whatever the base (the loader checks codes by them). */
export function codesOf(scheme: SchemeName): ReadonlyMap<string, Concept> {
  return codeLists('https://codes.invalid').schemes.find((s) => s.name === scheme)!.concepts;
}

/** `text` (Turtle) as the code lists under `baseIri`; throws a CodeListError for any defect. */
export function parseCodeLists(text: string, baseIri: string, file = CODE_LISTS_FILE): CodeLists {
  const base = `${baseIri}${VOCAB_PATH}/`;
  let quads: Quad[];
  try {
    quads = new Parser({ baseIRI: base, format: 'text/turtle' }).parse(text);
  } catch (error) {
    throw new CodeListError(`${file}: ${(error as Error).message}`);
  }
  const defect = (node: string, why: string) => new CodeListError(`${file}: <${node}> ${why}`);
  const of = (s: string, p: string) =>
    quads.filter((q) => q.subject.value === s && q.predicate.value === p).map((q) => q.object);
  const labels = (s: string, p: string): Labels => {
    const values = of(s, p);
    const one = (lang: 'de' | 'en') => {
      const found = values.filter((o) => o.termType === 'Literal' && o.language === lang);
      if (found.length !== 1) throw defect(s, `needs one ${p} in "${lang}", has ${found.length}`);
      return found[0]!.value;
    };
    return { de: one('de'), en: one('en') };
  };
  const known = new Set<string>();
  const schemes = SCHEMES.map(({ name, subfield }): Scheme => {
    const iri = `${base}${name}`;
    known.add(iri);
    if (!of(iri, RDF_TYPE).some((t) => t.value === `${SKOS}ConceptScheme`))
      throw defect(iri, 'is not a skos:ConceptScheme');
    const concepts = new Map<string, Concept>();
    for (const top of of(iri, `${SKOS}hasTopConcept`)) {
      const code = top.value.startsWith(`${iri}/`) ? top.value.slice(iri.length + 1) : '';
      if (!/^[0-9A-Z]{1,3}$/.test(code)) throw defect(top.value, `is no code of ${name}`);
      if (!of(top.value, RDF_TYPE).some((t) => t.value === `${SKOS}Concept`))
        throw defect(top.value, 'is not a skos:Concept');
      const inScheme = of(top.value, `${SKOS}inScheme`).map((o) => o.value);
      if (inScheme.length !== 1 || inScheme[0] !== iri)
        throw defect(top.value, `must be in the one scheme <${iri}>`);
      const notation = of(top.value, `${SKOS}notation`).map((o) => o.value);
      if (notation.length !== 1 || notation[0] !== code)
        throw defect(top.value, `needs the one skos:notation "${code}"`);
      known.add(top.value);
      concepts.set(code, {
        scheme: name,
        code,
        iri: top.value,
        ...labels(top.value, `${SKOS}prefLabel`),
      });
    }
    if (concepts.size === 0) throw defect(iri, 'has no skos:hasTopConcept');
    return { name, iri, subfield, title: labels(iri, `${PREFIXES.dcterms}title`), concepts };
  });
  const stray = quads.find((q) => !known.has(q.subject.value));
  if (stray) throw defect(stray.subject.value, 'is neither a scheme nor a concept one lists');
  return { baseIri, schemes, quads };
}
