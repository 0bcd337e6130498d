// A loaded dataset: the store, the index of its institutions by ISIL, and descriptions read from it.
import { isilDefect, isilKey, type Isil } from '../rdf/isil';
import { descriptionIri, isilOfInstitutionIri } from '../rdf/iris';
import { parseModified, toDescription, type Description } from '../rdf/description';
import type { SelectBinding } from './bindings';
import type { LinksHeld } from './linksHeld';
import { institutionIriFor, type CheckedIri } from './queries';
import { TimeSlicer } from '../util/timeSlice';
import { NO_HISTORY } from '../history/memory';
import type { History, InstitutionState, VersionInfo } from '../history/model';

export interface Institution {
  readonly isil: Isil;
  readonly iri: string;
  readonly name: string | undefined;
  /** `dcterms:modified` of its description, when valid. */
  readonly modified: Date | undefined;
}

/**
 * Where the successors of a withdrawn institution lead. Successors that were withdrawn in turn are
 * followed here, so that a client gets one redirect to the live institution instead of a chain
 * (a cycle stops the walk): `live` is the 301's target; the other kinds answer 410 and say why.
 */
export type Successor =
  | { readonly kind: 'live'; readonly institution: Institution }
  | { readonly kind: 'none' }
  /** The data names a successor (`named`: its ISIL, or its IRI outside the base) not in the dataset. */
  | { readonly kind: 'unknown'; readonly named: string }
  /** The successor (`named`: its ISIL) was withdrawn too, and no live one follows it. */
  | { readonly kind: 'withdrawn'; readonly named: Isil };

/** An institution whose ISIL was withdrawn (docs/data-model.md, Lifecycle): `owl:deprecated true`. */
export interface Withdrawn {
  readonly isil: Isil;
  readonly iri: string;
  readonly name: string | undefined;
  readonly successor: Successor;
  /** `dcterms:modified` of its description, when valid: when its record last changed. */
  readonly modified?: Date | undefined;
}

/** Something the loader or the index found wrong with the data, by kind. */
export interface DataWarning {
  readonly kind:
    | 'no-name'
    | 'malformed-isil'
    | 'outside-base'
    | 'case-twin'
    | 'successor-unknown'
    | 'successor-cycle';
  readonly subject: string;
  readonly message: string;
}

/**
 * Where descriptions are read from: the store itself (`DatasetStore`, in this thread), or a handle
 * on a store in the store's own thread (`src/store/embedded/storeThread.ts`), which answers later.
 */
export interface DescriptionSource {
  /** Triples in the store. */
  readonly size: number;
  /**
   * The description of the institution `iri` as N-Triples (queries/describe.rq). Throws at once
   * when the store was freed.
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

export type Lookup =
  | { readonly kind: 'found'; readonly institution: Institution }
  | { readonly kind: 'withdrawn'; readonly withdrawn: Withdrawn }
  | { readonly kind: 'other-case'; readonly isil: Isil }
  | { readonly kind: 'unknown' };

const UNKNOWN: Lookup = Object.freeze({ kind: 'unknown' });

/** A withdrawn institution as the index query reads it, before its successors are followed. */
interface WithdrawnRow {
  readonly isil: Isil;
  readonly iri: string;
  readonly name: string | undefined;
  readonly replacedBy: string | undefined;
  readonly modified: Date | undefined;
}

/**
 * The index of a dataset, built one row of `queries/institutions.rq` at a time (so that a loader
 * can let the event loop turn between rows), in the order of the institutions' IRIs: of two ISILs
 * that differ only in case, the first in that order is the canonical one.
 */
export class DatasetIndex {
  /** Every served ISIL as spelled in the data, with its answer made once: a lookup allocates nothing. */
  readonly byIsil = new Map<string, Lookup>();
  /** The canonical spelling of each ISIL, by its case-folded key. */
  readonly folded = new Map<string, Isil>();
  readonly live = new Map<string, Institution>();
  readonly warnings: DataWarning[] = [];
  private readonly withdrawn = new Map<string, WithdrawnRow>();

  constructor(readonly baseIri: string) {}

  /** The rows in the order the index needs them. */
  static order(rows: SelectBinding[]): SelectBinding[] {
    return rows.sort((a, b) => (a.institution!.value < b.institution!.value ? -1 : 1));
  }

  /** Indexes one row; rows come in `order`. */
  add(row: SelectBinding): void {
    const { baseIri, warnings } = this;
    const iri = row.institution!.value;
    const text = isilOfInstitutionIri(baseIri, iri);
    if (text === undefined) {
      warnings.push({
        kind: 'outside-base',
        subject: iri,
        message: `not under ${baseIri}/resource/organisations/: not served`,
      });
      return;
    }
    const defect = isilDefect(text);
    if (defect !== undefined) {
      warnings.push({
        kind: 'malformed-isil',
        subject: iri,
        message: `"${text}" is not a well-formed ISIL (${defect}): not served`,
      });
      return;
    }
    const isil = text as Isil;
    const twin = this.folded.get(isilKey(isil));
    if (twin !== undefined) {
      warnings.push({
        kind: 'case-twin',
        subject: iri,
        message: `differs from ${twin} only in case; a lookup in another case finds ${twin}`,
      });
    } else {
      this.folded.set(isilKey(isil), isil);
    }
    // A withdrawn institution keeps a minimal description, where a name is optional.
    if (row.deprecated) {
      this.withdrawn.set(isil, {
        isil,
        iri,
        name: row.name?.value,
        replacedBy: row.replacedBy?.value,
        modified: parseModified(row.modified?.value),
      });
      return;
    }
    if (!row.name) warnings.push({ kind: 'no-name', subject: iri, message: 'has no foaf:name' });
    const institution: Institution = {
      isil,
      iri,
      name: row.name?.value,
      modified: parseModified(row.modified?.value),
    };
    this.live.set(isil, institution);
    this.byIsil.set(isil, Object.freeze({ kind: 'found', institution }));
  }

  /** Follows the successors of the withdrawn institutions, once every row is in; returns how many. */
  finish(): number {
    for (const row of this.withdrawn.values()) {
      const successor = this.follow(row);
      const entry: Withdrawn = {
        isil: row.isil,
        iri: row.iri,
        name: row.name,
        successor,
        modified: row.modified,
      };
      this.byIsil.set(row.isil, Object.freeze({ kind: 'withdrawn', withdrawn: entry }));
    }
    return this.withdrawn.size;
  }

  /**
   * Follows `dcterms:isReplacedBy` from a withdrawn institution through successors withdrawn in
   * turn, to the first live one; a successor named in another case is found by its canonical
   * spelling. Warns when the data names a successor that is not in it, or the chain is a cycle.
   */
  private follow(start: WithdrawnRow): Successor {
    const { withdrawn, warnings } = this;
    const seen = new Set<string>([start.isil]);
    let first: Isil | undefined;
    let row = start;
    for (;;) {
      if (row.replacedBy === undefined) {
        return first === undefined ? { kind: 'none' } : { kind: 'withdrawn', named: first };
      }
      const text = isilOfInstitutionIri(this.baseIri, row.replacedBy);
      const isil =
        text !== undefined && isilDefect(text) === undefined
          ? this.folded.get(isilKey(text))
          : undefined;
      if (isil === undefined) {
        if (row === start) {
          warnings.push({
            kind: 'successor-unknown',
            subject: start.iri,
            message: `its successor ${row.replacedBy} is not in the dataset: answered 410, not 301`,
          });
        }
        return first === undefined
          ? { kind: 'unknown', named: text ?? row.replacedBy }
          : { kind: 'withdrawn', named: first };
      }
      first ??= isil;
      const next = this.byIsil.get(isil);
      if (next?.kind === 'found') return { kind: 'live', institution: next.institution };
      if (seen.has(isil)) {
        warnings.push({
          kind: 'successor-cycle',
          subject: start.iri,
          message: `its successors lead back to ${isil}: answered 410`,
        });
        return { kind: 'withdrawn', named: first };
      }
      seen.add(isil);
      row = withdrawn.get(isil)!;
    }
  }
}

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

  /**
   * The description of the live institution `isil` as the store answers it (N-Triples), unread:
   * for work done in another thread (the dumps).
   */
  describeText(isil: Isil): Promise<string> {
    return Promise.resolve(this.store.describe(institutionIriFor(this.baseIri, isil)));
  }

  /**
   * The triples the service publishes for the institution (CONSTRUCT queries/describe.rq). The
   * query is run, or queued for the store's thread, before this returns: a store freed afterwards
   * (a reload's swap) still answers it. Throws at once, not through the promise, when the store
   * was freed before.
   */
  describe(institution: Institution): Promise<Description> {
    const { iri } = institution;
    const text = this.store.describe(institutionIriFor(this.baseIri, institution.isil));
    return Promise.resolve(text).then((answer) => toDescription(iri, answer));
  }

  documentIri(institution: Institution): string {
    return descriptionIri(this.baseIri, institution.isil);
  }

  free(): void {
    this.store.free();
    this.history.close();
  }
}
