// The home page, `GET /`: what the service is, its licence, and an example institution.
import type { RequestHandler } from 'express';
import { CONTEXT_PATH } from '../rdf/context';
import { RESOURCE_PATH } from '../rdf/iris';
import { CC0 } from '../rdf/namespaces';
import { escapeHtml } from '../serving/page';
import { cacheControl, currentDocuments, type RouteDeps } from './deps';
import { commonHeaders } from './middleware';

export function home({ service, config }: RouteDeps): RequestHandler {
  const cache = cacheControl(config);
  return function home(_req, res) {
    const { dataset } = currentDocuments(service);
    const example = dataset.institutions().next().value;
    const link = example
      ? `<p>For example: <a href="${escapeHtml(RESOURCE_PATH + example.isil)}">${escapeHtml(example.name ?? example.isil)}</a>.</p>`
      : '';
    res.set({ ...commonHeaders(res), 'Cache-Control': cache });
    res
      .type('html')
      .send(
        `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>ISIL Linked Data</title></head><body><h1>ISIL Linked Data</h1><p>The address data of ${dataset.institutionCount} libraries, archives and museums, identified by ISIL, as Linked Data (FOAF and vCard) under <a rel="license" href="${CC0}">CC0 1.0</a>.</p>${link}<p>JSON-LD context: <a href="${CONTEXT_PATH}">${CONTEXT_PATH}</a>.</p></body></html>\n`,
      );
  };
}
