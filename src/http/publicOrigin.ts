// The one rule for the URLs a client is told to fetch (docs/http-contract.md, "URLs"): absolute,
// on PUBLIC_URL when it is set, else on the origin the request asked; identifiers stay under
// BASE_IRI.
import type { Application, Request } from 'express';
import type { Config } from '../config/config';

/** What the rule reads of the settings, BASE_IRI parsed once. */
interface OriginSettings {
  readonly publicUrl: string;
  readonly base: URL;
}

/** Gives the app the settings `publicOrigin` reads (createApp does, once). */
export function useOriginSettings(
  app: Application,
  config: Pick<Config, 'publicUrl' | 'baseIri'>,
): void {
  const settings: OriginSettings = { publicUrl: config.publicUrl, base: new URL(config.baseIri) };
  (app.locals as { origin?: OriginSettings }).origin = settings;
}

/** A host a URL can carry as it is: a name or IPv4 address, or a bracketed IPv6 one; a port. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The port a plain host names (0 when none). */
const portOf = (host: string): number => Number(/:(\d+)$/.exec(host)?.[1] ?? 0);

/**
 * The base of every URL a client is told to fetch, without a trailing slash. PUBLIC_URL when set;
 * else the scheme and host as Express reads them (`trust proxy` decides whether X-Forwarded-Proto
 * and X-Forwarded-Host count), with BASE_IRI's scheme when the host is BASE_IRI's, since a proxy
 * that ends TLS in front forwards plain HTTP. A request without a host, or with one no URL could
 * carry as it is, is answered on BASE_IRI's origin: nothing a client sends leaks into a URL raw.
 */
export function publicOrigin(req: Request): string {
  const { publicUrl, base } = (req.app.locals as { origin: OriginSettings }).origin;
  if (publicUrl !== '') return publicUrl;
  const host = req.host?.toLowerCase();
  if (host === undefined || !PLAIN_HOST.test(host) || portOf(host) > 65535) return base.origin;
  return `${host === base.host ? base.protocol : `${req.protocol}:`}//${host}`;
}
