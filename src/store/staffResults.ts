// The answers of staff queries, written in the query's worker from the text Oxigraph writes (SPARQL
// TSV for solutions, N-Triples for graphs): SPARQL JSON, XML, CSV and TSV for solutions and
// booleans; Turtle, N-Triples, RDF/XML and JSON-LD for graphs. Written here so that an answer can
// stop at a row or byte cap and still be a whole document in its format (the caller says it was
// cut, in a header). Oxigraph's text, not its JS objects: a Map of terms a row cost seconds of
// garbage collection past some ten thousand rows.
import oxigraph from 'oxigraph';
import { lines } from '../rdf/ntriples';
import { boundTerm, type BoundTerm } from './bindings';
import { CannotWrite, type ResultFormat } from './staff';

type Kind = ResultFormat['kind'];

export interface Written {
  readonly body: string;
  readonly rows: number;
  readonly cut?: 'rows' | 'bytes';
}

/** XML 1.0 text: markup escaped; characters XML 1.0 cannot carry at all become U+FFFD. */
function xmlText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function xmlTerm(term: BoundTerm): string {
  if (term.type === 'uri') return `<uri>${xmlText(term.value)}</uri>`;
  if (term.type === 'bnode') return `<bnode>${xmlText(term.value)}</bnode>`;
  const lang = term['xml:lang'];
  const attribute =
    lang !== undefined
      ? ` xml:lang="${xmlText(lang)}"`
      : term.datatype !== undefined
        ? ` datatype="${xmlText(term.datatype)}"`
        : '';
  return `<literal${attribute}>${xmlText(term.value)}</literal>`;
}

/** RFC 4180: a field with a quote, comma or line break is quoted, its quotes doubled. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvTerm = (term: BoundTerm) =>
  csvField(term.type === 'bnode' ? `_:${term.value}` : term.value);

interface Table {
  readonly start: string;
  /** One row from its TSV terms (in the order of `variables`; '' unbound). */
  row(terms: readonly string[], first: boolean): string;
  readonly end: string;
}

function table(kind: Kind, variables: readonly string[]): Table {
  const bound = (terms: readonly string[]) =>
    terms.map((text) => (text === '' ? undefined : boundTerm(text)));
  switch (kind) {
    case 'json':
      return {
        start: `{"head":{"vars":${JSON.stringify(variables)}},"results":{"bindings":[`,
        row: (terms, first) => {
          const binding: Record<string, BoundTerm> = {};
          bound(terms).forEach((term, i) => {
            if (term) binding[variables[i]!] = term;
          });
          return `${first ? '' : ','}\n${JSON.stringify(binding)}`;
        },
        end: '\n]}}\n',
      };
    case 'xml':
      return {
        start: `<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head>${variables.map((v) => `<variable name="${xmlText(v)}"/>`).join('')}</head>\n<results>\n`,
        row: (terms) =>
          `<result>${bound(terms)
            .map((term, i) =>
              term ? `<binding name="${xmlText(variables[i]!)}">${xmlTerm(term)}</binding>` : '',
            )
            .join('')}</result>\n`,
        end: '</results>\n</sparql>\n',
      };
    case 'csv':
      return {
        start: `${variables.map(csvField).join(',')}\r\n`,
        row: (terms) =>
          `${bound(terms)
            .map((term) => (term ? csvTerm(term) : ''))
            .join(',')}\r\n`,
        end: '',
      };
    case 'tsv':
      return {
        start: `${variables.map((v) => `?${v}`).join('\t')}\n`,
        row: (terms) => `${terms.join('\t')}\n`,
        end: '',
      };
    default:
      throw new Error(`solutions cannot be written as ${kind}`);
  }
}

/**
 * Solutions from Oxigraph's TSV, at most `maxRows` of them and `maxBytes` in all (UTF-8), as one
 * whole document; columns in the order of `variables` (the query's projection), else the TSV's.
 */
export function writeSolutions(
  tsv: string,
  variables: readonly string[],
  kind: Kind,
  maxRows: number,
  maxBytes: number,
): Written {
  const rows = tsv.split('\n');
  if (rows.at(-1) === '') rows.pop();
  const header = (rows[0] ?? '')
    .split('\t')
    .filter((v) => v !== '')
    .map((v) => v.slice(1));
  const names = variables.length > 0 ? variables : header;
  const columns = names.map((name) => header.indexOf(name));
  const { start, row, end } = table(kind, names);
  const parts = [start];
  let bytes = Buffer.byteLength(start) + Buffer.byteLength(end);
  let count = 0;
  let cut: Written['cut'];
  for (let i = 1; i < rows.length; i++) {
    if (count === maxRows) {
      cut = 'rows';
      break;
    }
    const terms = rows[i]!.split('\t');
    const text = row(
      columns.map((c) => (c < 0 ? '' : (terms[c] ?? ''))),
      count === 0,
    );
    bytes += Buffer.byteLength(text);
    if (bytes > maxBytes) {
      cut = 'bytes';
      break;
    }
    parts.push(text);
    count++;
  }
  parts.push(end);
  return { body: parts.join(''), rows: count, ...(cut ? { cut } : {}) };
}

export function writeBoolean(value: boolean, kind: Kind): Written {
  const body =
    kind === 'xml'
      ? `<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head/>\n<boolean>${value}</boolean>\n</sparql>\n`
      : `{"head":{},"boolean":${value}}\n`;
  return { body, rows: 1 };
}

const GRAPH_MEDIA_TYPES: Partial<Record<Kind, string>> = {
  ttl: 'text/turtle',
  rdf: 'application/rdf+xml',
  jsonld: 'application/ld+json',
};

/** Characters XML 1.0 cannot carry, even escaped. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** N-Triples in another format, written by Oxigraph; CannotWrite when the format cannot hold it. */
function convert(ntriples: string, kind: Kind): string {
  if (kind === 'nt') return ntriples;
  const format = GRAPH_MEDIA_TYPES[kind];
  if (format === undefined) throw new Error(`a graph cannot be written as ${kind}`);
  const store = new oxigraph.Store();
  let text: string;
  try {
    store.load(ntriples, { format: 'application/n-triples' });
    text = store.dump({ format, from_graph_name: oxigraph.defaultGraph() });
  } catch (error) {
    throw new CannotWrite(`this graph cannot be written as ${kind}: ${(error as Error).message}`);
  } finally {
    (store as unknown as { free(): void }).free();
  }
  if (kind === 'rdf' && NOT_XML.test(text))
    throw new CannotWrite(
      'this graph cannot be written as RDF/XML: a literal holds a control character XML 1.0 cannot carry',
    );
  return text;
}

/** A graph's triples from Oxigraph's N-Triples, at most `maxRows` and `maxBytes` in the format asked. */
export function writeGraph(
  ntriples: string,
  kind: Kind,
  maxRows: number,
  maxBytes: number,
): Written {
  let kept: string[] = [];
  let cut: Written['cut'];
  let bytes = 0;
  for (const text of lines(ntriples)) {
    if (text.trim() === '') continue;
    if (kept.length === maxRows) {
      cut = 'rows';
      break;
    }
    bytes += Buffer.byteLength(text) + 1;
    if (bytes > maxBytes) {
      cut = 'bytes';
      break;
    }
    kept.push(text);
  }
  let body = convert(kept.length ? `${kept.join('\n')}\n` : '', kind);
  // A format more verbose than N-Triples (RDF/XML, JSON-LD) may still be over: fewer, until it fits.
  while (Buffer.byteLength(body) > maxBytes && kept.length > 0) {
    kept = kept.slice(0, Math.floor(((kept.length * maxBytes) / Buffer.byteLength(body)) * 0.9));
    cut = 'bytes';
    body = convert(kept.length ? `${kept.join('\n')}\n` : '', kind);
  }
  return { body, rows: kept.length, ...(cut ? { cut } : {}) };
}
