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
 * description is, and `restore` turns the placeholder back into `""` in the framed output.
 */
function hideEmptyStrings(expanded: Json): ((framed: Json) => Json) | undefined {
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
  const restore = (value: Json): Json =>
    value === placeholder
      ? ''
      : Array.isArray(value)
        ? value.map(restore)
        : value !== null && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, restore(v)]))
          : value;
  return restore;
}

/** Compacted, framed JSON-LD whose `@context` is the URL of the served context. */
export async function toJsonLd(description: Description, contextUrl: string): Promise<string> {
  const expanded = await jsonld.fromRDF(toNTriples(description), { format: 'application/n-quads' });
  const restore = hideEmptyStrings(expanded as Json);
  const framed = (await jsonld.frame(
    expanded,
    { '@context': CONTEXT, '@id': description.subject, '@embed': '@once' } as Parameters<
      typeof jsonld.frame
    >[1],
    { omitGraph: true } as jsonld.Options.Frame,
  )) as Json;
  const document = (restore ? restore(framed) : framed) as { [key: string]: Json };
  return `${JSON.stringify({ ...document, '@context': contextUrl }, null, 2)}\n`;
}
