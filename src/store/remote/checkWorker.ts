// The thread that does the staff queries' CPU work for the remote adapter (staffRemote.ts): it parses
// and checks each query, and writes the store's answer in the format the client chose. Parsing is
// linear at best and far worse on deep nesting (docs/benchmark.md, "a staff query parsed"), and
// writing a large answer takes seconds: neither runs on the thread that answers HTTP, and this one
// is ended at the query's time limit.
import { negotiateAmong } from '../../util/accept';
import { serve } from '../../threads/serve';
import { NoFormatAccepted, RESULT_FORMATS, type ResultFormat } from '../staff';
import { checkQuery, type CheckedQuery, type QueryForm } from '../staffQuery';
import { writeBoolean, writeGraph, writeSolutions, type Written } from '../staffResults';
import { canonicalNTriples } from './canonicalNTriples';
import { booleanOf, tsvOf } from './results';
import { scopeQuery, unscope } from './scope';

export interface CheckRequest {
  readonly text: string;
  readonly accept: string | undefined;
  readonly maxRows: number;
  readonly base: string;
  /** The version the query is to run on, and the dataset the protocol request named. */
  readonly version: string;
  readonly defaultGraphs: readonly string[];
  readonly namedGraphs: readonly string[];
}

export interface Checked {
  readonly checked: CheckedQuery;
  readonly format: ResultFormat;
  /** The text to send: the checked query scoped to the version's graphs (scope.ts). */
  readonly scoped: string;
}

/** The store's answer to write: its body (SPARQL JSON, or N-Triples for a graph) and how. */
export interface WriteRequest {
  readonly op: 'write';
  readonly body: string;
  readonly form: QueryForm;
  readonly kind: ResultFormat['kind'];
  readonly variables: readonly string[];
  readonly version: string;
  readonly maxRows: number;
  readonly maxBytes: number;
}

export type Request = ({ readonly op: 'check' } & CheckRequest) | WriteRequest;
export type Reply = Checked | Written;

function check(request: CheckRequest): Checked {
  const { text, accept, maxRows, base } = request;
  const checked = checkQuery(text, maxRows, base);
  const format = negotiateAmong(accept, RESULT_FORMATS[checked.form]);
  if (!format) throw new NoFormatAccepted(checked.form);
  return { checked, format, scoped: scopeQuery(checked.text, base, request) };
}

function write(request: WriteRequest): Written {
  const { body, form, kind, variables, version, maxRows, maxBytes } = request;
  if (form === 'ask') return writeBoolean(booleanOf(body), kind);
  if (form === 'select')
    return writeSolutions(
      unscope(tsvOf(JSON.parse(body)), version),
      variables,
      kind,
      maxRows,
      maxBytes,
    );
  return writeGraph(unscope(canonicalNTriples(body), version), kind, maxRows, maxBytes);
}

serve<Request, Reply>((request) => (request.op === 'check' ? check(request) : write(request)));
