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
import { PROFILES, PROFILES_PATH, profileIri, type ProfileName } from '../rdf/profiles';
import { cacheControl, pathBelow, type RouteDeps } from './deps';
import { notFound } from './errors';
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

/** Where the profiles are described: `/profiles/<token>`, and the full profile's shapes. */
export const PROFILES_PREFIX = PROFILES_PATH;
const FULL_SHAPES = 'full/shapes.ttl';

/**
 * `/profiles/zdb`, `/profiles/full`: each profile described in the W3C Profiles Vocabulary (what
 * its IRI names, dx-prof-conneg §6), the full one with its SHACL shapes (queries/shapes-full.ttl).
 */
export function profiles({ config }: RouteDeps): RequestHandler {
  const ttl = formatByName('ttl');
  const answer = documentAnswer(
    { 'Content-Type': ttl.contentType, 'Cache-Control': cacheControl(config) },
    ttl,
  );
  const file = path.join(QUERY_DIR, 'shapes-full.ttl');
  const made = new Date();
  const documents = new Map<string, Representation>([
    [FULL_SHAPES, new Representation(fs.readFileSync(file), fs.statSync(file).mtime, answer)],
    ...PROFILES.map(
      (p) =>
        [
          p,
          new Representation(Buffer.from(profileDescription(config.baseIri, p)), made, answer),
        ] as const,
    ),
  ]);
  return function profiles(req, res) {
    const document = documents.get(pathBelow(req));
    if (!document) throw notFound(`The profiles are ${PROFILES.join(', ')}.`);
    sendDocument(req, res, document);
  };
}

function profileDescription(baseIri: string, profile: ProfileName): string {
  const iri = profileIri(baseIri, profile);
  const what =
    profile === 'zdb'
      ? "The ISIL agency's original Linked Data model (FOAF, vCard): the default."
      : "Everything the ISIL agency's PICA+ record holds that can be published, in FOAF, vCard, schema.org and this service's terms.";
  const shapes =
    profile === 'zdb' ? `${baseIri}${SHAPES_PATH}` : `${baseIri}${PROFILES_PATH}${FULL_SHAPES}`;
  return `@prefix prof: <http://www.w3.org/ns/dx/prof/> .
@prefix role: <http://www.w3.org/ns/dx/prof/role/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

<${iri}> a prof:Profile ;
  prof:hasToken "${profile}" ;
  rdfs:label "${profile}" ;
  rdfs:comment "${what}" ;
  prof:hasResource [ a prof:ResourceDescriptor ; prof:hasRole role:validation ;
    dcterms:format <https://www.iana.org/assignments/media-types/text/turtle> ;
    prof:hasArtifact <${shapes}> ] .
`;
}
