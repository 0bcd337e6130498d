// The answers of staff queries, written from Oxigraph's results in the query's worker: SPARQL JSON,
// XML, CSV and TSV for solutions and booleans, Turtle, N-Triples, RDF/XML and JSON-LD for graphs.
// Written here rather than by Oxigraph so that an answer can stop at a row or byte cap and still
// be a whole document in its format (the caller says it was cut, in a header).
import oxigraph from 'oxigraph';
import type { ResultFormat } from '../staff';

type Kind = ResultFormat['kind'];
type Solution = Map<string, oxigraph.Term>;

export interface Written {
  readonly body: string;
  readonly rows: number;
  readonly cut?: 'rows' | 'bytes';
}

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';

function jsonTerm(term: oxigraph.Term): Record<string, unknown> {
  switch (term.termType) {
    case 'NamedNode':
      return { type: 'uri', value: term.value };
    case 'BlankNode':
      return { type: 'bnode', value: term.value };
    case 'Literal': {
      const literal = term as oxigraph.Literal;
      if (literal.language)
        return { type: 'literal', value: literal.value, 'xml:lang': literal.language };
      const datatype = literal.datatype.value;
      return datatype === XSD_STRING
        ? { type: 'literal', value: literal.value }
        : { type: 'literal', value: literal.value, datatype };
    }
    case 'Quad': {
      const quad = term as unknown as oxigraph.Quad;
      return {
        type: 'triple',
        value: {
          subject: jsonTerm(quad.subject),
          predicate: jsonTerm(quad.predicate),
          object: jsonTerm(quad.object),
        },
      };
    }
    default:
      return { type: 'literal', value: term.value };
  }
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

function xmlTerm(term: oxigraph.Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return `<uri>${xmlText(term.value)}</uri>`;
    case 'BlankNode':
      return `<bnode>${xmlText(term.value)}</bnode>`;
    case 'Literal': {
      const literal = term as oxigraph.Literal;
      const datatype = literal.datatype.value;
      const attribute = literal.language
        ? ` xml:lang="${xmlText(literal.language)}"`
        : datatype === XSD_STRING || datatype === RDF_LANG_STRING
          ? ''
          : ` datatype="${xmlText(datatype)}"`;
      return `<literal${attribute}>${xmlText(literal.value)}</literal>`;
    }
    case 'Quad': {
      const quad = term as unknown as oxigraph.Quad;
      return `<triple><subject>${xmlTerm(quad.subject)}</subject><predicate>${xmlTerm(quad.predicate)}</predicate><object>${xmlTerm(quad.object)}</object></triple>`;
    }
    default:
      return `<literal>${xmlText(term.value)}</literal>`;
  }
}

/** RFC 4180: a field with a quote, comma or line break is quoted, its quotes doubled. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvTerm(term: oxigraph.Term): string {
  if (term.termType === 'BlankNode') return `_:${term.value}`;
  if (term.termType === 'Quad') return csvField(term.toString());
  return csvField(term.value);
}

/** TSV results: terms as in Turtle (N-Triples form), with tabs and line breaks escaped. */
function tsvTerm(term: oxigraph.Term): string {
  return term.toString().replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

interface Table {
  readonly start: string;
  row(solution: Solution, first: boolean): string;
  readonly end: string;
}

function table(kind: Kind, variables: readonly string[]): Table {
  switch (kind) {
    case 'json':
      return {
        start: `{"head":{"vars":${JSON.stringify(variables)}},"results":{"bindings":[`,
        row: (solution, first) => {
          const binding: Record<string, unknown> = {};
          for (const name of variables) {
            const term = solution.get(name);
            if (term !== undefined) binding[name] = jsonTerm(term);
          }
          return `${first ? '' : ','}\n${JSON.stringify(binding)}`;
        },
        end: '\n]}}\n',
      };
    case 'xml':
      return {
        start: `<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head>${variables.map((v) => `<variable name="${xmlText(v)}"/>`).join('')}</head>\n<results>\n`,
        row: (solution) => {
          const bindings = variables
            .filter((name) => solution.has(name))
            .map(
              (name) =>
                `<binding name="${xmlText(name)}">${xmlTerm(solution.get(name)!)}</binding>`,
            );
          return `<result>${bindings.join('')}</result>\n`;
        },
        end: '</results>\n</sparql>\n',
      };
    case 'csv':
      return {
        start: `${variables.map(csvField).join(',')}\r\n`,
        row: (solution) =>
          `${variables
            .map((name) => {
              const term = solution.get(name);
              return term === undefined ? '' : csvTerm(term);
            })
            .join(',')}\r\n`,
        end: '',
      };
    case 'tsv':
      return {
        start: `${variables.map((v) => `?${v}`).join('\t')}\n`,
        row: (solution) =>
          `${variables
            .map((name) => {
              const term = solution.get(name);
              return term === undefined ? '' : tsvTerm(term);
            })
            .join('\t')}\n`,
        end: '',
      };
    default:
      throw new Error(`solutions cannot be written as ${kind}`);
  }
}

/** Solutions, at most `maxRows` of them and `maxBytes` in all (UTF-8), as one whole document. */
export function writeSolutions(
  solutions: readonly Solution[],
  variables: readonly string[],
  kind: Kind,
  maxRows: number,
  maxBytes: number,
): Written {
  const { start, row, end } = table(kind, variables);
  const parts = [start];
  let bytes = Buffer.byteLength(start) + Buffer.byteLength(end);
  let rows = 0;
  let cut: Written['cut'];
  for (const solution of solutions) {
    if (rows === maxRows) {
      cut = 'rows';
      break;
    }
    const text = row(solution, rows === 0);
    bytes += Buffer.byteLength(text);
    if (bytes > maxBytes) {
      cut = 'bytes';
      break;
    }
    parts.push(text);
    rows++;
  }
  parts.push(end);
  return { body: parts.join(''), rows, cut };
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
  nt: 'application/n-triples',
  rdf: 'application/rdf+xml',
  jsonld: 'application/ld+json',
};

function dumpTriples(quads: readonly oxigraph.Quad[], kind: Kind): string {
  const format = GRAPH_MEDIA_TYPES[kind];
  if (format === undefined) throw new Error(`a graph cannot be written as ${kind}`);
  const store = new oxigraph.Store(quads);
  try {
    return store.dump({ format, from_graph_name: oxigraph.defaultGraph() });
  } finally {
    (store as unknown as { free(): void }).free();
  }
}

/** A graph's triples, at most `maxRows` and `maxBytes` in the format asked for. */
export function writeGraph(
  quads: readonly oxigraph.Quad[],
  kind: Kind,
  maxRows: number,
  maxBytes: number,
): Written {
  let kept = quads.length > maxRows ? quads.slice(0, maxRows) : quads;
  let cut: Written['cut'] = kept.length < quads.length ? 'rows' : undefined;
  // The triples as N-Triples first: the cheap measure of how many fit.
  let bytes = 0;
  for (let i = 0; i < kept.length; i++) {
    const q = kept[i]!;
    bytes +=
      Buffer.byteLength(q.subject.toString()) +
      Buffer.byteLength(q.predicate.toString()) +
      Buffer.byteLength(q.object.toString()) +
      4;
    if (bytes > maxBytes) {
      kept = kept.slice(0, i);
      cut = 'bytes';
      break;
    }
  }
  let body = dumpTriples(kept, kind);
  // A format more verbose than N-Triples (RDF/XML, JSON-LD) may still be over: fewer, until it fits.
  while (Buffer.byteLength(body) > maxBytes && kept.length > 0) {
    kept = kept.slice(0, Math.floor(((kept.length * maxBytes) / Buffer.byteLength(body)) * 0.9));
    cut = 'bytes';
    body = dumpTriples(kept, kind);
  }
  return { body, rows: kept.length, cut };
}
