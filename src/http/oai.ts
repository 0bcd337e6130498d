// The OAI-PMH 2.0 provider (docs/history.md, "Harvesting by OAI-PMH"): a request's arguments read
// from a GET's query or a form POST's body, answered by src/oai/answer.ts from the dataset served
// and its history. Every protocol error is an OAI-PMH answer (200, `<error code="…">`); HTTP
// errors are left for what is not a request of the protocol (a POST that is not a form, too large)
// and for a service that cannot answer yet (503), and are written in XML too.
import type { Request, RequestHandler } from 'express';
import { answerOai, httpErrorAnswer, type OaiSettings } from '../oai/answer';
import { repositoryIdentifier } from '../oai/identifiers';
import { requestBody } from './body';
import { currentDocuments, DATASET_VERSION, pathBelow, queryOf, type RouteDeps } from './deps';
import {
  ALLOW_WITH_POST,
  METHODS_WITH_POST,
  methodNotAllowed,
  notFound,
  unsupportedMediaType,
} from './errors';
import { commonHeaders, formPostPreflight } from './middleware';
import type { OwnErrorBody } from './respond';
import { publicOrigin } from './publicOrigin';

export const OAI_PATH = '/oai';

/** The protocol's specification, which VoID names the provider by (`dcterms:conformsTo`). */
export const OAI_PMH_SPECIFICATION = 'http://www.openarchives.org/OAI/2.0/openarchivesprotocol.htm';

/** The provider's entry in the route table: GET and form POST (§3.1.1), its manual, its label. */
export const OAI_ROUTE = {
  contract: 'docs/history.md',
  label: 'oai',
  methods: METHODS_WITH_POST,
} as const;

/** Largest form a POST may send: the longest request of the protocol is well below it. */
const MAX_BODY = 16 * 1024;

/**
 * The settings of the provider, from the service's: its repository named after BASE_IRI, its
 * `baseURL` on `origin`, the one asked (publicOrigin).
 */
export function oaiSettings(deps: RouteDeps, origin: string): OaiSettings {
  const repository = repositoryIdentifier(deps.config.baseIri);
  return {
    baseUrl: `${origin}${OAI_PATH}`,
    repositoryName: `ISIL Linked Data (${repository})`,
    repository,
    adminEmail: deps.config.oaiAdminEmail,
    tokenKey: deps.config.oaiTokenKey,
  };
}

/** The arguments, in the order sent: a GET's query, a POST's form (§3.1.1). */
async function argumentsOf(req: Request): Promise<[string, string][]> {
  if (req.method !== 'POST') return [...queryOf(req)];
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw unsupportedMediaType(
      'OAI-PMH requests are POSTed as a form (application/x-www-form-urlencoded).',
    );
  return [...new URLSearchParams((await requestBody(req, MAX_BODY)).toString('utf8'))];
}

export function oai(deps: RouteDeps): RequestHandler {
  return async function oai(req, res) {
    const settings = oaiSettings(deps, publicOrigin(req));
    (res.locals as OwnErrorBody).errorBody = (http) => ({
      type: 'text/xml;charset=utf-8',
      body: httpErrorAnswer(http.status, http.message, {
        settings,
        now: Math.floor(Date.now() / 1000),
      }),
    });
    if (req.method === 'OPTIONS') return formPostPreflight(res);
    if (pathBelow(req) !== '') throw notFound();
    if (!['GET', 'HEAD', 'POST'].includes(req.method))
      throw methodNotAllowed(ALLOW_WITH_POST, `The OAI-PMH provider answers ${ALLOW_WITH_POST}.`);
    const pairs = await argumentsOf(req);
    const documents = currentDocuments(deps.service);
    const { dataset } = documents;
    // A list reads many descriptions: a reload meanwhile frees the store only once it is written.
    const body = await documents.hold(() =>
      answerOai(pairs, { settings, dataset, now: Math.floor(Date.now() / 1000) }),
    );
    res.writeHead(200, {
      ...commonHeaders(res),
      'Content-Type': 'text/xml;charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      // Every answer states its own time (responseDate): none is reused.
      'Cache-Control': 'no-store',
      [DATASET_VERSION]: dataset.version,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
