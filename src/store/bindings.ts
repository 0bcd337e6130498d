// The solutions of a SELECT as the SPARQL 1.1 Query Results JSON Format has them: what the store
// answers the index query with, whichever store it is.
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
