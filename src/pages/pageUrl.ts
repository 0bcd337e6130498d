// Where an institution's page lives: this service's `/isil/<isil>` when no ISIL_DIRECTORY_URL is
// set, else the agency's directory. Every link to a page (home, search, reconciliation, sitemap,
// the `.html` document's redirect) and the route table's choice of the page route ask here.
import type { Config } from '../config/config';
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
  /** What a URL of this service starts with (publicOrigin, for an absolute one); '' for a path. */
  readonly base?: string;
}

/**
 * The URL of the page of the institution `isil` (given as it goes into the URL: encoded, or a
 * template's placeholder).
 */
export function institutionPage(
  config: Pick<Config, 'isilDirectoryUrl'>,
  isil: string,
  { direct = false, base = '' }: PageOptions = {},
): string {
  if (servesPages(config) || direct)
    return `${servesPages(config) ? base : config.isilDirectoryUrl}${DIRECTORY_PATH}${isil}`;
  return `${base}${RESOURCE_PATH}${isil}`;
}
