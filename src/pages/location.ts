// The institution page's location: the coordinates as text and the map (drawn by /assets/map.js
// where scripts and tiles are), from the record, else from Wikidata, saying so.
import { PREFIXES, WIKIDATA } from '../rdf/namespaces';
import type { PageOptions } from './institutionPage';
import { escapeHtml, escapeMarkup } from './escape';
import type { Graph } from './graph';
import { PAGE } from './institutionWords';

const { geo } = PREFIXES;

/** The coordinates as text, and the map (drawn by /assets/map.js where scripts and tiles are). */
export function location(g: Graph, r: string, name: string, options: PageOptions): string {
  const t = PAGE[options.language.lang];
  const at = g.objects(r, `${geo}location`)[0];
  const own = at && g.first(at, `${geo}lat`) && g.first(at, `${geo}long`);
  // The record's own coordinates, else Wikidata's, said to be so and linked to their item.
  const wikidata = own ? undefined : options.position;
  const lat = wikidata ? String(wikidata.lat) : at && g.first(at, `${geo}lat`);
  const long = wikidata ? String(wikidata.lon) : at && g.first(at, `${geo}long`);
  if (!lat || !long) return '';
  const from = wikidata
    ? ` (<a class="position-source" href="${escapeMarkup(`${WIKIDATA}${wikidata.item}`)}">${t.fromWikidata}</a>, ${escapeHtml(wikidata.created)})`
    : '';
  return `<p>${t.coordinates}: <span class="coordinates">${escapeHtml(lat)}, ${escapeHtml(long)}</span>${from}</p>
<div id="map" role="region" aria-label="${escapeHtml(`${t.map}: ${name}`)}" data-lat="${escapeHtml(lat)}" data-lon="${escapeHtml(long)}" data-name="${escapeHtml(name)}" data-tiles="${escapeHtml(options.mapTiles)}" data-attribution="${escapeHtml(options.mapAttribution)}"></div>`;
}
