// The headers every HTML page of the service sends beside its own: a Content-Security-Policy that
// lets a page run only this host's scripts and styles, load images from this host and the map's
// tile server (MAP_TILES), and fetch from this host (autocomplete). A value from the data or the
// settings that reached the page as markup still runs nothing. The staff editor has a policy of its
// own (sparql/editor.ts).
import type { Config } from '../config/config';

/**
 * The CSP source of the tiles a MAP_TILES template names: its scheme and host (a leading `{s}.`,
 * Leaflet's subdomains, as `*.`); a placeholder elsewhere in the host allows the scheme alone.
 */
export function tileSource(template: string): string {
  const at = /^(https?:)\/\/(?:[^/?#@]*@)?([^/?#]+)/i.exec(template);
  if (!at) return '';
  const host = at[2]!.replace(/^\{s\}\./, '*.');
  return /[{}]/.test(host) ? at[1]!.toLowerCase() : `${at[1]!.toLowerCase()}//${host}`;
}

/**
 * The policy (CSP Level 3). `default-src 'none'` refuses what is not named; inline scripts, event
 * handler attributes and `style` attributes are refused because no `'unsafe-inline'` is given
 * (JSON-LD in `<script type="application/ld+json">` is data, never run, and allowed).
 */
export function pagePolicy(mapTiles: string): string {
  const tiles = mapTiles === '' ? '' : ` ${tileSource(mapTiles)}`;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self'${tiles}`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
  ].join('; ');
}

const NO_MAP = { 'Content-Security-Policy': pagePolicy('') };
const made = new WeakMap<Config, Readonly<Record<string, string>>>();

/** The headers of an HTML page; without `config`, those of a page that shows no map (errors). */
export function pageHeaders(config?: Config): Readonly<Record<string, string>> {
  if (!config) return NO_MAP;
  let headers = made.get(config);
  if (!headers)
    made.set(config, (headers = { 'Content-Security-Policy': pagePolicy(config.mapTiles) }));
  return headers;
}
