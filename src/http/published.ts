// The two documents the service publishes beside the data: the JSON-LD context its documents name
// (`/context.jsonld`) and the SHACL shapes the loader validates every institution against
// (`/shapes.ttl`), each with validators and content codings as every document (§4).
import fs from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
import { contextDocument } from '../rdf/context';
import { formatByName } from '../rdf/formats';
import { CC0 } from '../rdf/namespaces';
import { Representation } from '../documents/representation';
import { QUERY_DIR } from '../util/paths';
import { cacheControl, type RouteDeps } from './deps';
import { documentAnswer, sendDocument } from './respond';

/** Where the SHACL shapes of the published model (queries/shapes.ttl) are served. */
export const SHAPES_PATH = '/shapes.ttl';

export function context({ config }: RouteDeps): RequestHandler {
  const jsonld = formatByName('jsonld');
  const cache = cacheControl(config);
  const answer = documentAnswer(
    {
      'Content-Type': 'application/ld+json',
      'Cache-Control': cache,
      Link: `<${CC0}>; rel="license"`,
    },
    jsonld,
  );
  const document = new Representation(Buffer.from(contextDocument()), new Date(), answer);
  return function context(req, res) {
    sendDocument(req, res, document);
  };
}

export function shapes({ config }: RouteDeps): RequestHandler {
  const ttl = formatByName('ttl');
  const cache = cacheControl(config);
  // Read once when the app is built, as the query templates are at start; Last-Modified is the
  // file's, so a client revalidates exactly when the shapes changed.
  const file = path.join(QUERY_DIR, 'shapes.ttl');
  const answer = documentAnswer({ 'Content-Type': ttl.contentType, 'Cache-Control': cache }, ttl);
  const document = new Representation(fs.readFileSync(file), fs.statSync(file).mtime, answer);
  return function shapes(req, res) {
    sendDocument(req, res, document);
  };
}
