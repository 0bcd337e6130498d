// The remote store's SPARQL JSON results in the shapes the result writers read (staffResults.ts):
// rows as TSV with terms in N-Triples syntax, an ASK's boolean. Virtuoso's own TSV is not SPARQL's
// (values unescaped, raw tabs and line ends in them), and its JSON answers an ASK with a one-row
// table (`__ASK_RETVAL`): both are read from its JSON here.
import type { BoundTerm, SelectBinding } from '../bindings';

/** Escapes a literal's text for N-Triples. */
function quoted(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
}

/** A term of SPARQL JSON results (Virtuoso's `typed-literal` too) as N-Triples text. */
export function termText(
  term: BoundTerm | { type: string; value: string; datatype?: string; 'xml:lang'?: string },
): string {
  if (term.type === 'uri') return `<${term.value}>`;
  if (term.type === 'bnode') return `_:${term.value.replace(/[^A-Za-z0-9]/g, '_')}`;
  const lang = term['xml:lang'];
  if (lang) return `${quoted(term.value)}@${lang}`;
  const { datatype } = term;
  return datatype && datatype !== 'http://www.w3.org/2001/XMLSchema#string'
    ? `${quoted(term.value)}^^<${datatype}>`
    : quoted(term.value);
}

/** SPARQL JSON results as the TSV the result writers read (terms in N-Triples syntax). */
export function tsvOf(json: {
  head: { vars?: string[] };
  results: { bindings: SelectBinding[] };
}): string {
  const vars = json.head.vars ?? [];
  const lines = [vars.map((v) => `?${v}`).join('\t')];
  for (const row of json.results.bindings)
    lines.push(vars.map((v) => (row[v] ? termText(row[v]) : '')).join('\t'));
  return `${lines.join('\n')}\n`;
}

/** An ASK's answer: SPARQL JSON's boolean, or Virtuoso's one-row `__ASK_RETVAL`. */
export function booleanOf(body: string): boolean {
  const json = JSON.parse(body) as { boolean?: boolean; results?: { bindings: SelectBinding[] } };
  if (typeof json.boolean === 'boolean') return json.boolean;
  const row = json.results?.bindings[0];
  const value = row && Object.values(row)[0]?.value;
  return value === '1' || value === 'true';
}
