// The solutions of a SELECT as the SPARQL 1.1 Query Results JSON Format has them: what the store
// answers the index query with, whichever store it is.
import type { Literal } from 'n3';
import { decodeTerm } from '../rdf/ntriples';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** One term of a SELECT result, as the SPARQL JSON results format gives it. */
export interface BoundTerm {
  readonly type: 'uri' | 'bnode' | 'literal';
  readonly value: string;
  readonly datatype?: string;
  readonly 'xml:lang'?: string;
  readonly 'its:dir'?: string;
}

export interface SelectBinding {
  readonly [variable: string]: BoundTerm | undefined;
}

/**
 * A term of SPARQL TSV results: N-Triples syntax, or a number or boolean in Turtle's short form.
 * An IRI is taken as Oxigraph writes it, raw (a lenient load may have let a `\\` into one); a
 * language tag with a direction (`@ar--rtl`, RDF 1.2) is split as the JSON results split it. The
 * project's queries select no triple terms, so one is refused.
 */
export function boundTerm(text: string): BoundTerm {
  if (text.startsWith('<<'))
    throw new Error(`a triple term in SELECT results: ${text.slice(0, 80)}`);
  if (text.startsWith('<')) return { type: 'uri', value: text.slice(1, -1) };
  if (text.startsWith('_:')) return { type: 'bnode', value: text.slice(2) };
  if (!text.startsWith('"')) {
    const datatype =
      text === 'true' || text === 'false'
        ? 'boolean'
        : /^[+-]?\d+$/.test(text)
          ? 'integer'
          : /[eE]/.test(text)
            ? 'double'
            : 'decimal';
    return { type: 'literal', value: text, datatype: `${XSD}${datatype}` };
  }
  const { value, language, datatype } = decodeTerm(text) as Literal;
  if (language) {
    const [lang, direction] = language.split('--');
    return direction === undefined
      ? { type: 'literal', value, 'xml:lang': language }
      : { type: 'literal', value, 'xml:lang': lang!, 'its:dir': direction };
  }
  // A simple literal has no datatype in the JSON results either.
  return datatype.value === `${XSD}string`
    ? { type: 'literal', value }
    : { type: 'literal', value, datatype: datatype.value };
}
