// The codes of a record's 035E that the agency's code lists (vocab/code-lists.ttl) do not know: each
// a warning naming the ISIL, the field and the code. The record is loaded all the same, and the
// converter writes the code as it is (an unknown type is its own term, never another's).
import { codesOf, SCHEMES, VOCAB_PATH } from '../../rdf/codeLists';
import type { PicaRecord } from './read';

export interface CodeWarning {
  readonly kind: 'unknown-code';
  /** The record's ISIL. */
  readonly subject: string;
  readonly message: string;
}

/** Warnings for the codes of 035E $f, $g and $h outside their lists (the status is checked apart). */
export function codeWarnings(record: PicaRecord, isil: string): CodeWarning[] {
  const field = record.fields.find((f) => f.tag === '035E');
  if (!field) return [];
  const warnings: CodeWarning[] = [];
  for (const { name, subfield } of SCHEMES) {
    if (subfield === 'a') continue;
    const code = field.subfields.find((s) => s.code === subfield)?.value.trim();
    if (code && !codesOf(name).has(code))
      warnings.push({
        kind: 'unknown-code',
        subject: isil,
        message: `035E $${subfield}: the code "${code}" is in no list of ${VOCAB_PATH}/${name}`,
      });
  }
  return warnings;
}
