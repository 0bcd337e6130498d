// Bulk exports of a search (JSON Lines, GeoJSON, CSV), in the index's thread: an export holds the index
// of the version it started in and its matches in ranking order (references to the index's own
// entries, nothing more per match), and hands its text out a chunk at a time as the client reads
// it. A reload builds a new index beside it; the export goes on in its own version.
import type { FlatRecord } from '../record/flatRecord';
import { institutionFields, type FieldContext, type FieldName } from '../record/fields';
import { csvLine } from '../record/csv';
import type { SearchIndex, SearchRequest } from './searchIndex';

export type ExportFormat = 'jsonl' | 'geojson' | 'csv';

/** What an export is asked for: the search, its format, and the fields of each line. */
export interface ExportSpec {
  readonly request: SearchRequest;
  readonly format: ExportFormat;
  /** JSON Lines' keys or the CSV's columns (GeoJSON's properties are fixed: name, city, type, page, uri). */
  readonly fields: readonly FieldName[];
  readonly context: FieldContext;
}

export interface ExportStarted {
  readonly id: number;
  readonly version: string;
  readonly total: number;
  /** The matches without coordinates (GeoJSON leaves them out and says how many). */
  readonly withoutCoordinates: number;
}

export interface ExportChunk {
  readonly version: string;
  readonly text: string;
  readonly done: boolean;
}

/** Institutions written into one chunk: some hundreds of KB of JSON Lines. */
const CHUNK = 1000;

/** Exports held at once in the thread: the route admits fewer; past this the oldest is dropped. */
const MAX_HELD = 32;

/** The GeoJSON Feature's properties: what a map's pop-up shows. */
const GEOJSON_PROPERTIES: readonly FieldName[] = [
  'name',
  'city',
  'type',
  'page',
  'uri',
  'positionFrom',
];

interface Held {
  readonly index: SearchIndex;
  readonly spec: ExportSpec;
  readonly entries: readonly FlatRecord[];
  at: number;
  written: number;
}

const hasPoint = (e: FlatRecord) => e.lat !== undefined && e.lon !== undefined;

/**
 * One match as its text: a JSON line, a CSV row (RFC 4180, its CRLF), or a GeoJSON Feature
 * (RFC 7946 §3.2, `[lon, lat]`).
 */
function line(e: FlatRecord, spec: ExportSpec): string {
  if (spec.format === 'jsonl')
    return `${JSON.stringify(institutionFields(e, spec.context, spec.fields))}\n`;
  if (spec.format === 'csv') return `${csvLine(e, spec.fields, spec.context)}\r\n`;
  return JSON.stringify({
    type: 'Feature',
    id: e.isil,
    geometry: { type: 'Point', coordinates: [e.lon, e.lat] },
    properties: institutionFields(e, spec.context, GEOJSON_PROPERTIES),
  });
}

export class Exports {
  private readonly held = new Map<number, Held>();
  private nextId = 1;

  start(index: SearchIndex, spec: ExportSpec): ExportStarted {
    const all = index.matches(spec.request);
    const entries = spec.format === 'geojson' ? all.filter(hasPoint) : all;
    const id = this.nextId++;
    this.held.set(id, { index, spec, entries, at: 0, written: 0 });
    if (this.held.size > MAX_HELD) this.held.delete(this.held.keys().next().value!);
    return {
      id,
      version: index.version,
      total: all.length,
      withoutCoordinates: all.length - entries.length,
    };
  }

  /** The next chunk of the export `id`; the last says `done` and ends it. */
  next(id: number): ExportChunk {
    const held = this.held.get(id);
    if (!held) throw new Error(`no export ${id} is open`);
    const { entries, spec } = held;
    const to = Math.min(entries.length, held.at + CHUNK);
    let text = '';
    for (let i = held.at; i < to; i++) {
      const separator = spec.format === 'geojson' && held.written > 0 ? ',\n' : '';
      text += `${separator}${line(entries[i]!, spec)}`;
      held.written++;
    }
    held.at = to;
    const done = to >= entries.length;
    if (done) this.held.delete(id);
    return { version: held.index.version, text, done };
  }

  end(id: number): void {
    this.held.delete(id);
  }

  /** Exports open now. */
  get size(): number {
    return this.held.size;
  }
}
