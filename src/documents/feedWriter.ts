// Writes the change feed's statements (src/documents/feedStatements.ts) in each of its formats: TriG with the
// payloads as named graphs, N-Quads, N-Triples, Turtle, and JSON-LD with an inline context; the
// feed's own IRIs are made absolute under the origin asked.
import { PREFIXES } from '../rdf/namespaces';
import { decodeTerm } from '../rdf/ntriples';

export const LDES = 'https://w3id.org/ldes#';
export const TREE = 'https://w3id.org/tree#';
export const AS = 'https://www.w3.org/ns/activitystreams#';
export const SH = 'http://www.w3.org/ns/shacl#';

const { rdf, xsd, owl, dcterms } = PREFIXES;

/** One statement: N-Triples terms (an IRI of the feed may be relative), and its graph if named. */
export type Statement = readonly [s: string, p: string, o: string, g?: string];

/** The formats a feed document is written in, in the server's order of preference. */
export type FeedFormatName = 'trig' | 'jsonld' | 'ttl' | 'nq' | 'nt';

/** A relative IRI of the feed made absolute under `origin`. */
const absolute = (term: string, origin: string) =>
  term.startsWith('</') ? `<${origin}${term.slice(1)}` : term;

/** The statements written in `format`, the feed's own IRIs absolute under `origin`. */
export function writeFeed(
  relative: readonly Statement[],
  format: FeedFormatName,
  origin: string,
): string {
  const statements = relative.map(([s, p, o, g]): Statement => {
    const triple = [absolute(s, origin), p, absolute(o, origin)] as const;
    return g === undefined ? triple : [...triple, absolute(g, origin)];
  });
  switch (format) {
    case 'jsonld':
      return toJsonLd(statements);
    case 'nq':
    case 'nt': {
      let text = '';
      for (const [s, p, o, g] of statements)
        text += `${s} ${p} ${o}${g && format === 'nq' ? ` ${g}` : ''} .\n`;
      return text;
    }
    case 'ttl': {
      // Turtle has no named graphs: the payloads' triples stand beside the activities.
      let text = '';
      for (const [s, p, o] of statements) text += `${s} ${p} ${o} .\n`;
      return text;
    }
    case 'trig': {
      let text = '';
      const graphs = new Map<string, string>();
      for (const [s, p, o, g] of statements) {
        if (!g) text += `${s} ${p} ${o} .\n`;
        else graphs.set(g, `${graphs.get(g) ?? ''}  ${s} ${p} ${o} .\n`);
      }
      for (const [g, body] of graphs) text += `${g} {\n${body}}\n`;
      return text;
    }
  }
}

/** The inline context: the prefixes of the feed's own terms (clients may have no network). */
const CONTEXT: Readonly<Record<string, string>> = {
  ldes: LDES,
  tree: TREE,
  as: AS,
  dcterms,
  xsd,
  owl,
  sh: SH,
};

const COMPACT = Object.entries(CONTEXT);

/** `value` as a compact IRI when one of the context's prefixes names it. */
function compact(value: string): string {
  for (const [prefix, namespace] of COMPACT) {
    if (!value.startsWith(namespace)) continue;
    const local = value.slice(namespace.length);
    if (/^[A-Za-z][\w-]*$/.test(local)) return `${prefix}:${local}`;
  }
  return value;
}

type JsonNode = Record<string, unknown> & { '@id': string };

function jsonValue(term: string): Record<string, string> {
  const t = decodeTerm(term);
  if (t.termType === 'NamedNode') return { '@id': t.value };
  if (t.termType === 'BlankNode') return { '@id': `_:${t.value}` };
  if (t.termType !== 'Literal') throw new Error(`not an object term: ${term}`);
  if (t.language) return { '@value': t.value, '@language': t.language };
  if (t.datatype.value === `${xsd}string`) return { '@value': t.value };
  return { '@value': t.value, '@type': compact(t.datatype.value) };
}

/** JSON-LD with its context inline: a node per subject, each payload as its activity's `@graph`. */
function toJsonLd(statements: readonly Statement[]): string {
  const graphs = new Map<string, Map<string, JsonNode>>();
  for (const [s, p, o, g = ''] of statements) {
    let nodes = graphs.get(g);
    if (!nodes) graphs.set(g, (nodes = new Map()));
    const id = (jsonValue(s)['@id'] ?? s) as string;
    let node = nodes.get(id);
    if (!node) nodes.set(id, (node = { '@id': id }));
    const predicate = decodeTerm(p).value;
    const [key, value] =
      predicate === `${rdf}type`
        ? ['@type', compact(decodeTerm(o).value)]
        : [compact(predicate), jsonValue(o)];
    const values = node[key] as unknown[] | undefined;
    if (values) values.push(value);
    else node[key] = [value];
  }
  const top = graphs.get('') ?? new Map<string, JsonNode>();
  for (const [g, nodes] of graphs) {
    if (g === '') continue;
    const id = (jsonValue(g)['@id'] ?? g) as string;
    let holder = top.get(id);
    if (!holder) top.set(id, (holder = { '@id': id }));
    holder['@graph'] = [...nodes.values()];
  }
  return `${JSON.stringify({ '@context': CONTEXT, '@graph': [...top.values()] })}\n`;
}
