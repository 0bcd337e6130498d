// A search's filters: the facets (city, ISIL prefix, kind) and the geo filters (near a point,
// inside a box), and the distance they measure.
import type { FlatRecord } from '../record/flatRecord';
import { fold } from './fold';
import type { SearchRequest } from './searchIndex';

export interface GeoPoint {
  readonly lat: number;
  readonly lon: number;
}

/** Great-circle distance in km (haversine, mean Earth radius). */
export function distanceKm(a: GeoPoint, b: GeoPoint): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Whether an entry passes the request's filters (facets, geo). */
export function keeper(request: SearchRequest): (e: FlatRecord) => boolean {
  const { near, bbox } = request;
  const city = request.city === undefined ? undefined : fold(request.city);
  const country = request.country?.toUpperCase();
  return (e) => {
    if (city !== undefined && !e.cities.some((c) => fold(c) === city)) return false;
    if (country !== undefined && e.country !== country) return false;
    if (request.type !== undefined && (e.type ?? 'unknown') !== request.type) return false;
    if (bbox) {
      const [w, s, east, n] = bbox;
      if (e.lat === undefined || e.lon === undefined) return false;
      if (e.lat < s || e.lat > n) return false;
      if (w <= east ? e.lon < w || e.lon > east : e.lon < w && e.lon > east) return false;
    }
    if (near) {
      if (e.lat === undefined || e.lon === undefined) return false;
      if (distanceKm(near, { lat: e.lat, lon: e.lon }) > near.radiusKm) return false;
    }
    return true;
  };
}
