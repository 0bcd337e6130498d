// The links of a document to its past (RFC 7089): the `Link` relations to its TimeGate and
// TimeMap that current documents, redirects and 410s carry, absolute under `base` (publicOrigin).
import type { Format } from '../rdf/formats';
import { DIRECTORY_PATH, documentPath, timegatePath, timemapPath } from '../rdf/iris';

/** RFC 6690: the TimeMap's own format. */
export const LINK_FORMAT = 'application/link-format';

/** The original resource of the page (the HTML document) or of an RDF document. */
export const originalPath = (isil: string, format: Format): string =>
  format.name === 'html' ? `${DIRECTORY_PATH}${isil}` : documentPath(isil, format.ext);

/** The `Link` to the TimeMap alone. */
export const timemapLink = (base: string, original: string): string =>
  `<${base}${timemapPath(original)}>; rel="timemap"; type="${LINK_FORMAT}"`;

/**
 * The `Link` relations of a current document to its TimeGate and TimeMap; also those of the 301
 * and 410 of an ISIL the current version lacks (its past is still asked at the TimeGate).
 */
export const timeLinks = (base: string, original: string): string =>
  `<${base}${timegatePath(original)}>; rel="timegate", ${timemapLink(base, original)}`;
