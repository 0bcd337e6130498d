// The search index's worker thread (src/search/searchHolder.ts): it holds the index of the version
// served and answers search, autocomplete, reconciliation and entry lookups by message, so that the
// index (tens of megabytes of old-generation heap for 18,000 institutions) is not walked by the
// serving thread's collector while documents are served. A new version's entries come in batches
// and are indexed beside the old index, which answers until the new one replaces it.
import { serve } from '../threads/serve';
import type { FlatRecord } from '../record/flatRecord';
import { reconcile, type Candidate, type ReconcileQuery } from './candidates';
import { searchCsv, type MadeCsv } from '../record/csv';
import { SearchIndex, type SearchAnswer, type SearchRequest } from './searchIndex';
import { Exports, type ExportChunk, type ExportSpec, type ExportStarted } from './exports';
import type { FieldContext, FieldName } from '../record/fields';

export type SearchAsk =
  | { readonly kind: 'begin'; readonly version: string }
  | { readonly kind: 'add'; readonly version: string; readonly entries: readonly FlatRecord[] }
  | { readonly kind: 'finish'; readonly version: string }
  | { readonly kind: 'search'; readonly request: SearchRequest }
  | {
      readonly kind: 'csv';
      readonly request: SearchRequest;
      readonly context: FieldContext;
      readonly fields: readonly FieldName[];
    }
  | { readonly kind: 'exportStart'; readonly spec: ExportSpec }
  | { readonly kind: 'exportNext'; readonly id: number }
  | { readonly kind: 'exportEnd'; readonly id: number }
  | { readonly kind: 'suggest'; readonly q: string; readonly limit: number }
  | { readonly kind: 'entry'; readonly isil: string }
  | { readonly kind: 'entries'; readonly isils: readonly string[] }
  | { readonly kind: 'example' }
  | { readonly kind: 'reconcile'; readonly query: ReconcileQuery };

/** Each answer names the version of the index that gave it. */
export type SearchReply =
  | { readonly version: string; readonly institutions: number }
  | { readonly version: string; readonly answer: SearchAnswer }
  | { readonly version: string; readonly csv: MadeCsv }
  | { readonly version: string; readonly entries: readonly FlatRecord[] }
  | { readonly version: string; readonly entry: FlatRecord | null }
  | { readonly version: string; readonly found: readonly (FlatRecord | null)[] }
  | { readonly version: string; readonly candidates: readonly Candidate[] }
  | { readonly version: string; readonly started: ExportStarted }
  | { readonly version: string; readonly chunk: ExportChunk }
  | null;

/** The index answering now. */
let current: SearchIndex | undefined;
/** The entries of the version being indexed. */
let next: { version: string; entries: FlatRecord[] } | undefined;
/** The bulk exports under way, each in the version it started in. */
const bulkExports = new Exports();

function ready(): SearchIndex {
  if (!current) throw new Error('the search index is not built yet');
  return current;
}

function building(version: string): FlatRecord[] {
  if (next?.version !== version) throw new Error(`no index of version ${version} is being built`);
  return next.entries;
}

serve<SearchAsk, SearchReply>(async (ask) => {
  switch (ask.kind) {
    case 'begin':
      next = { version: ask.version, entries: [] };
      return null;
    case 'add':
      building(ask.version).push(...ask.entries);
      return null;
    case 'finish': {
      const entries = building(ask.version);
      next = undefined;
      // A reload of an unchanged snapshot: the same version, the same index.
      if (current?.version !== ask.version) current = await SearchIndex.build(ask.version, entries);
      return { version: current.version, institutions: current.size };
    }
    case 'search': {
      const index = ready();
      return { version: index.version, answer: index.search(ask.request) };
    }
    case 'csv': {
      // Made here: rows copied to the serving thread and written there held it (searchCsv.ts).
      const index = ready();
      const { hits } = index.search(ask.request);
      return {
        version: index.version,
        csv: searchCsv(
          hits.map((h) => h.entry),
          ask.context,
          ask.fields,
        ),
      };
    }
    case 'exportStart': {
      const started = bulkExports.start(ready(), ask.spec);
      return { version: started.version, started };
    }
    case 'exportNext': {
      const chunk = bulkExports.next(ask.id);
      return { version: chunk.version, chunk };
    }
    case 'exportEnd':
      bulkExports.end(ask.id);
      return null;
    case 'suggest': {
      const index = ready();
      return { version: index.version, entries: index.suggest(ask.q, ask.limit) };
    }
    case 'entry': {
      const index = ready();
      return { version: index.version, entry: index.entry(ask.isil) ?? null };
    }
    case 'entries': {
      const index = ready();
      return { version: index.version, found: ask.isils.map((isil) => index.entry(isil) ?? null) };
    }
    case 'example': {
      // An institution to show on the home page: the first with a place and coordinates.
      const index = ready();
      const entry = index.all().find((e) => e.cities.length > 0 && e.lat !== undefined);
      return { version: index.version, entry: entry ?? null };
    }
    case 'reconcile': {
      const index = ready();
      return { version: index.version, candidates: reconcile(index, ask.query) };
    }
  }
});
