// A loaded dataset: the store, the index of its institutions by ISIL, and descriptions read from it.
import { isilDefect, isilKey, type Isil } from './rdf/isil';
import { descriptionIri, isilOfInstitutionIri } from './rdf/iris';
import { parseModified, toDescription, type Description } from './rdf/description';
import type { DatasetStore } from './store/datasetStore';
import { institutionIriFor } from './store/queries';

export interface Institution {
  readonly isil: Isil;
  readonly iri: string;
  readonly name: string | undefined;
  /** `dcterms:modified` of its description, when valid. */
  readonly modified: Date | undefined;
}

/** Something the loader or the index found wrong with the data, by kind. */
export interface DataWarning {
  readonly kind: 'no-name' | 'malformed-isil' | 'outside-base' | 'case-twin';
  readonly subject: string;
  readonly message: string;
}

export type Lookup =
  | { readonly kind: 'found'; readonly institution: Institution }
  | { readonly kind: 'other-case'; readonly isil: Isil }
  | { readonly kind: 'unknown' };

export class Dataset {
  private readonly exact = new Map<string, Institution>();
  private readonly folded = new Map<string, Institution>();
  readonly warnings: readonly DataWarning[];
  readonly loadedAt = new Date();

  constructor(
    readonly store: DatasetStore,
    readonly baseIri: string,
    /** A short hash of the loaded bytes: changes exactly when the data does. */
    readonly version: string,
  ) {
    const warnings: DataWarning[] = [];
    const rows = store.institutions();
    rows.sort((a, b) => (a.institution!.value < b.institution!.value ? -1 : 1));
    for (const row of rows) {
      const iri = row.institution!.value;
      const text = isilOfInstitutionIri(baseIri, iri);
      if (text === undefined) {
        warnings.push({
          kind: 'outside-base',
          subject: iri,
          message: `not under ${baseIri}/resource/organisations/: not served`,
        });
        continue;
      }
      const defect = isilDefect(text);
      if (defect !== undefined) {
        warnings.push({
          kind: 'malformed-isil',
          subject: iri,
          message: `"${text}" is not a well-formed ISIL (${defect}): not served`,
        });
        continue;
      }
      if (!row.name) warnings.push({ kind: 'no-name', subject: iri, message: 'has no foaf:name' });
      const institution: Institution = {
        isil: text as Isil,
        iri,
        name: row.name?.value,
        modified: parseModified(row.modified?.value),
      };
      this.exact.set(text, institution);
      const twin = this.folded.get(isilKey(text));
      if (twin) {
        warnings.push({
          kind: 'case-twin',
          subject: iri,
          message: `differs from ${twin.isil} only in case; a lookup in another case finds ${twin.isil}`,
        });
      } else {
        this.folded.set(isilKey(text), institution);
      }
    }
    this.warnings = warnings;
  }

  get institutionCount(): number {
    return this.exact.size;
  }

  get tripleCount(): number {
    return this.store.size;
  }

  /** Finds an institution by its ISIL as spelled, or tells the canonical spelling of another case. */
  lookup(isil: Isil): Lookup {
    const institution = this.exact.get(isil);
    if (institution) return { kind: 'found', institution };
    const other = this.folded.get(isilKey(isil));
    return other ? { kind: 'other-case', isil: other.isil } : { kind: 'unknown' };
  }

  institutions(): IterableIterator<Institution> {
    return this.exact.values();
  }

  /** The triples the service publishes for the institution (CONSTRUCT queries/describe.rq). */
  describe(institution: Institution): Description {
    return toDescription(
      institution.iri,
      this.store.describe(institutionIriFor(this.baseIri, institution.isil)),
    );
  }

  documentIri(institution: Institution): string {
    return descriptionIri(this.baseIri, institution.isil);
  }

  free(): void {
    this.store.free();
  }
}
