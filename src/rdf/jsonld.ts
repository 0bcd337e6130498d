// JSON-LD: compacted with the service's context (./context.ts) and framed so that the institution
// is the top object.
import jsonld from 'jsonld';
import type { Description } from './description';
import { CONTEXT } from './context';
import { toNTriples } from './turtle';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Calls `visit` with every object in `value`, depth first. */
function eachObject(value: Json, visit: (object: { [key: string]: Json }) => void): void {
  if (Array.isArray(value)) for (const item of value) eachObject(item, visit);
  else if (value !== null && typeof value === 'object') {
    visit(value);
    for (const item of Object.values(value)) eachObject(item, visit);
  }
}

/**
 * jsonld.js (9.0) loses an empty string that shares a property with other values when it frames:
 * its `cleanupNull` filters every falsy item out of arrays (`"" , "b"` comes back as `["b"]`).
 * So each empty string of the expanded input becomes a placeholder that no value of the
 * description is, which the output turns back into `""`. Returns the placeholder, if any.
 */
function hideEmptyStrings(expanded: Json): string | undefined {
  const values = new Set<string>();
  const empty: { [key: string]: Json }[] = [];
  eachObject(expanded, (object) => {
    const value = object['@value'];
    if (typeof value !== 'string') return;
    values.add(value);
    // Typed and tagged ones too: a term of the context with a type (`modified`) compacts
    // `""^^xsd:dateTime` to a bare `""` as well.
    if (value === '') empty.push(object);
  });
  if (empty.length === 0) return undefined;
  let placeholder = '\u0000empty';
  while (values.has(placeholder)) placeholder += '\u0000';
  for (const object of empty) object['@value'] = placeholder;
  return placeholder;
}

/** Compacted, framed JSON-LD whose `@context` is the URL of the served context. */
export async function toJsonLd(description: Description, contextUrl: string): Promise<string> {
  const ntriples = toNTriples(description);
  const expanded = await jsonld.fromRDF(ntriples, { format: 'application/n-quads' });
  // N-Triples writes an empty literal as `""`; without one (nearly always) nothing is walked.
  const placeholder = ntriples.includes('""') ? hideEmptyStrings(expanded as Json) : undefined;
  const framed = await jsonld.frame(
    expanded,
    { '@context': CONTEXT, '@id': description.subject, '@embed': '@once' } as Parameters<
      typeof jsonld.frame
    >[1],
    { omitGraph: true } as jsonld.Options.Frame,
  );
  const restore =
    placeholder === undefined
      ? undefined
      : (_key: string, value: unknown) => (value === placeholder ? '' : value);
  return `${JSON.stringify({ ...framed, '@context': contextUrl }, restore, 2)}\n`;
}
