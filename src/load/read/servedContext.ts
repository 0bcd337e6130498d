// JSON-LD documents the service itself served name its context by IRI (under BASE_IRI), which the
// store's JSON-LD reader does not fetch: the context is put in place of its IRI before loading.
import { CONTEXT, CONTEXT_PATH } from '../../rdf/context';
import { otherScheme } from '../../rdf/iris';

/**
 * A JSON-LD document with the context this service serves put in place of its IRI: the documents
 * the service serves name it by its absolute IRI under BASE_IRI, which the store's JSON-LD reader
 * does not fetch (and which a deployment not yet public does not answer). Any other document, and
 * one that is not JSON, is handed on as it is: the store's reader says where it is broken. One that
 * is rewritten goes through JSON.parse: an integer beyond 2^53 would lose digits there (JSON-LD
 * makes RDF of numbers by their value, so `1.0` and `1` stay what they were); the service's own
 * documents hold no JSON numbers.
 */
export function servedContextInline(bytes: Buffer, baseIri: string): Buffer {
  if (!bytes.includes(CONTEXT_PATH)) return bytes;
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch {
    return bytes;
  }
  let replaced = false;
  // The context this service serves, named under either form of the base.
  const inline = (value: unknown): unknown => {
    if (typeof value !== 'string' || !value.endsWith(CONTEXT_PATH)) return value;
    const base = value.slice(0, -CONTEXT_PATH.length);
    if (base !== baseIri && base !== otherScheme(baseIri)) return value;
    replaced = true;
    return CONTEXT;
  };
  // Recursion is safe: the document nests MAX_NESTING_DEPTH levels at most (checkJsonDepth).
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      // A value object's content is data (an `@json` literal may hold any key): left as it is.
      if ('@value' in object) return;
      for (const [key, item] of Object.entries(object)) {
        if (key === '@context') object[key] = Array.isArray(item) ? item.map(inline) : inline(item);
        else visit(item);
      }
    }
  };
  visit(document);
  return replaced ? Buffer.from(JSON.stringify(document)) : bytes;
}
