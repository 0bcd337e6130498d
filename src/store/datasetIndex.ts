// A dataset version's index: its institutions by ISIL, its withdrawn ISILs followed to their
// successors, and what it found wrong, built from the rows of queries/institutions.rq.
import { isilDefect, isilKey, type Isil } from '../rdf/isil';
import { isilOfInstitutionIri } from '../rdf/iris';
import { parseModified } from '../rdf/description';
import type { SelectBinding } from './bindings';

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

export type Lookup =
  | { readonly kind: 'found'; readonly institution: Institution }
  | { readonly kind: 'withdrawn'; readonly withdrawn: Withdrawn }
  | { readonly kind: 'other-case'; readonly isil: Isil }
  | { readonly kind: 'unknown' };

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
