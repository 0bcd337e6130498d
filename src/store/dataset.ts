// A loaded dataset: the store, the index of its institutions by ISIL (datasetIndex.ts), and the
// descriptions read from it.
import { isilKey, type Isil } from '../rdf/isil';
import { descriptionIri } from '../rdf/iris';
import { toDescription, type Description } from '../rdf/description';
import type { SelectBinding } from './bindings';
import {
  DatasetIndex,
  type DataWarning,
  type Institution,
  type Lookup,
  type Withdrawn,
} from './datasetIndex';
import type { LinksHeld } from './linksHeld';
import type { Position } from './positions';
import { institutionIriFor, type CheckedIri } from './queries';
import { TimeSlicer } from '../util/timeSlice';
import type { History, HistoryEvent, InstitutionState, VersionInfo } from '../history/model';
import { zdbNTriples, type ProfileName } from '../rdf/profiles';

export type { DataWarning, Institution, Lookup, Successor, Withdrawn } from './datasetIndex';

const NO_EVENTS: readonly HistoryEvent[] = Object.freeze([]);

/** The history of a version whose adapter keeps none (HISTORY_DIR=''): no version, no event. */
export const NO_HISTORY: History = Object.freeze({
  versions: [],
  events: () => NO_EVENTS,
  spelling: () => undefined,
  mementos: () => NO_EVENTS,
  lastChange: () => undefined,
  description: () => Promise.reject(new Error('no history is kept')),
  all: () => NO_EVENTS,
  size: 0,
  derived: false,
  close: () => undefined,
});

/**
 * Where descriptions are read from: the store itself (`DatasetStore`, in this thread), or a handle
 * on a store in the store's own thread (`src/store/embedded/storeThread.ts`), which answers later.
 */
export interface DescriptionSource {
  /** Triples in the store. */
  readonly size: number;
  /**
   * The description of the institution `iri` as stored, N-Triples (queries/describe.rq): the
   * `full` profile's. Throws at once when the store was freed.
   */
  describe(iri: CheckedIri): string | Promise<string>;
  /** Releases the store; describing afterwards fails. */
  free(): void;
}

/** A store in this thread, which reads its own index (the embedded `DatasetStore`). */
export interface IndexedSource extends DescriptionSource {
  /** The rows of queries/institutions.rq, in one query. */
  institutions(): SelectBinding[];
  /** The same rows, read a slice at a time with `slicer` pausing between. */
  institutionsInSlices(slicer: TimeSlicer): Promise<SelectBinding[]>;
}

/**
 * Whether descriptions are read from a store in this thread. Told by shape rather than by
 * `instanceof`, so that the HTTP thread, whose stores are in the store's thread, does not load
 * Oxigraph's WebAssembly for nothing.
 */
function isLocal(store: DescriptionSource): store is IndexedSource {
  return typeof (store as Partial<IndexedSource>).institutions === 'function';
}

const UNKNOWN: Lookup = Object.freeze({ kind: 'unknown' });

export class Dataset<S extends DescriptionSource = DescriptionSource> {
  private readonly byIsil: ReadonlyMap<string, Lookup>;
  private readonly folded: ReadonlyMap<string, Isil>;
  private readonly live: ReadonlyMap<string, Institution>;
  readonly withdrawnCount: number;
  readonly warnings: readonly DataWarning[];
  /** Counted once: it is shown after the store may have been freed by a reload. */
  readonly tripleCount: number;
  readonly loadedAt = new Date();
  /** The history this version ends (docs/history.md), set by the adapter that opened it. */
  history: History = NO_HISTORY;
  /** Every ISIL's state, when the load made them (the version's own history is derived with them). */
  states: ReadonlyMap<string, InstitutionState> | undefined;
  /** The log's version its snapshot's trailer names, read with the data (store/embedded/embeddedHistory.ts). */
  logVersion: VersionInfo | undefined;
  /** Wikidata's positions by ISIL (store/positions.ts), when the version holds any. */
  positions: ReadonlyMap<string, Position> | undefined;

  /** The rows of `queries/institutions.rq` in the order the index takes them, read in slices. */
  static async indexRows(store: IndexedSource): Promise<SelectBinding[]> {
    return DatasetIndex.order(await store.institutionsInSlices(new TimeSlicer()));
  }

  /**
   * The dataset of `store` indexed from `rows` (as `indexRows` reads them), in slices with turns of
   * the event loop between (a server reloading keeps answering meanwhile): the same dataset as the
   * constructor builds in one go. A store in another thread is indexed from the rows it read there.
   */
  static async fromRows<T extends DescriptionSource>(
    store: T,
    baseIri: string,
    version: string,
    rows: readonly SelectBinding[],
    links?: LinksHeld,
  ): Promise<Dataset<T>> {
    const slicer = new TimeSlicer();
    const index = new DatasetIndex(baseIri);
    for (const row of rows) {
      index.add(row);
      await slicer.pause();
    }
    return new Dataset(store, baseIri, version, index, links);
  }

  constructor(
    readonly store: S,
    readonly baseIri: string,
    /** Its name (src/history/canonical.ts `versionOf`), set by the loader once it is read. */
    public version: string,
    /** Built already (by `load`), its rows all added; by default, from the one index query. */
    index?: DatasetIndex,
    /**
     * The links to the same institutions elsewhere that the version holds beside its descriptions
     * (queries/links.rq), when it holds any: their date is part of every document's Last-Modified.
     */
    readonly links?: LinksHeld,
  ) {
    if (!index) {
      if (!isLocal(store))
        throw new TypeError('a store in another thread is indexed from its rows (fromRows)');
      index = new DatasetIndex(baseIri);
      for (const row of DatasetIndex.order(store.institutions())) index.add(row);
    }
    this.withdrawnCount = index.finish();
    this.byIsil = index.byIsil;
    this.folded = index.folded;
    this.live = index.live;
    this.warnings = index.warnings;
    this.tripleCount = store.size;
  }

  /** Live institutions: withdrawn ones are not counted. */
  get institutionCount(): number {
    return this.live.size;
  }

  /**
   * What the data says about an ISIL as spelled: a live institution, a withdrawn one, or else the
   * canonical spelling of another case (so a case variant of a withdrawn ISIL is redirected to its
   * canonical spelling first, like any other).
   */
  lookup(isil: Isil): Lookup {
    const hit = this.exact(isil);
    if (hit) return hit;
    const canonical = this.folded.get(isilKey(isil));
    return canonical === undefined ? UNKNOWN : { kind: 'other-case', isil: canonical };
  }

  /**
   * What the data says about exactly this text, which may be any request text: live or withdrawn,
   * or `undefined`. A hit is a well-formed ISIL, since every ISIL of the dataset was checked when it
   * was loaded; a miss is to be checked before `lookup` tries its other case.
   */
  exact(text: string): Lookup | undefined {
    return this.byIsil.get(text);
  }

  private replaced: ReadonlyMap<string, readonly Withdrawn[]> | undefined;

  /**
   * The withdrawn institutions whose successor is `isil` (followed through successors withdrawn
   * in turn): what its page lists as "formerly". Made on first use.
   */
  predecessors(isil: Isil): readonly Withdrawn[] {
    if (!this.replaced) {
      const map = new Map<string, Withdrawn[]>();
      for (const lookup of this.byIsil.values())
        if (lookup.kind === 'withdrawn' && lookup.withdrawn.successor.kind === 'live') {
          const to = lookup.withdrawn.successor.institution.isil;
          map.set(to, [...(map.get(to) ?? []), lookup.withdrawn]);
        }
      for (const list of map.values()) list.sort((a, b) => (a.isil < b.isil ? -1 : 1));
      this.replaced = map;
    }
    return this.replaced.get(isil) ?? [];
  }

  /** The live institutions. */
  institutions(): IterableIterator<Institution> {
    return this.live.values();
  }

  /** The withdrawn institutions. */
  *withdrawnInstitutions(): IterableIterator<Withdrawn> {
    for (const lookup of this.byIsil.values())
      if (lookup.kind === 'withdrawn') yield lookup.withdrawn;
  }

  /** The description of `isil` in `profile` as N-Triples, unread: for the dumps. */
  describeText(isil: Isil, profile: ProfileName = 'zdb'): Promise<string> {
    const text = this.store.describe(institutionIriFor(this.baseIri, isil));
    return Promise.resolve(text).then((answer) => inProfile(answer, profile));
  }

  /**
   * The triples the service publishes for the institution in `profile` (CONSTRUCT
   * queries/describe.rq, projected by `inProfile`). The query is run, or queued for the store's
   * thread, before this returns: a store freed afterwards (a reload's swap) still answers it.
   * Throws at once, not through the promise, when the store was freed before.
   */
  describe(institution: Institution, profile: ProfileName = 'zdb'): Promise<Description> {
    const { iri } = institution;
    const text = this.store.describe(institutionIriFor(this.baseIri, institution.isil));
    return Promise.resolve(text).then((answer) => toDescription(iri, inProfile(answer, profile)));
  }

  documentIri(institution: Institution): string {
    return descriptionIri(this.baseIri, institution.isil);
  }

  free(): void {
    this.store.free();
    this.history.close();
  }
}

/**
 * A description as stored (the `full` profile) in `profile`: the `zdb` one is its projection, a
 * filter over its lines in one pass (docs/benchmark.md, "the zdb projection").
 */
function inProfile(stored: string, profile: ProfileName): string {
  return profile === 'zdb' ? zdbNTriples(stored) : stored;
}
