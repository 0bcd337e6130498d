// Where an institution's page lives: this service's `/isil/<isil>` when no ISIL_DIRECTORY_URL is
// set, else the agency's directory. Every link to a page (home, search, reconciliation, sitemap,
// the `.html` document's redirect) and the route table's choice of the page route ask here.
import type { Config } from '../config';
import { DIRECTORY_PATH, RESOURCE_PATH } from '../rdf/iris';

/** Whether this service serves the institutions' pages itself (the route `/isil/`). */
export const servesPages = (config: Pick<Config, 'isilDirectoryUrl'>): boolean =>
  config.isilDirectoryUrl === '';

export interface PageOptions {
  /**
   * `direct`: the page itself, in the agency's directory when it has them (the `.html` redirect,
   * reconciliation's view). Otherwise a URL of this service: the page, or with a directory the
   * institution's URI, which 303s to it (search, home page, sitemap).
   */
  readonly direct?: boolean;
  /** An absolute URL (under BASE_IRI when on this service) rather than a path. */
  readonly absolute?: boolean;
}

/**
 * The URL of the page of the institution `isil` (given as it goes into the URL: encoded, or a
 * template's placeholder).
 */
export function institutionPage(
  config: Pick<Config, 'isilDirectoryUrl' | 'baseIri'>,
  isil: string,
  { direct = false, absolute = false }: PageOptions = {},
): string {
  if (servesPages(config) || direct)
    return `${absolute && servesPages(config) ? config.baseIri : config.isilDirectoryUrl}${DIRECTORY_PATH}${isil}`;
  return `${absolute ? config.baseIri : ''}${RESOURCE_PATH}${isil}`;
}
