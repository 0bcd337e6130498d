// A staff query scoped to one dataset version of the remote store (layout.ts), on its algebra:
// every graph it names becomes that graph of the version (`<version graph>:<IRI>`; one the version
// does not hold is an empty graph, as in the embedded store), and its dataset is always stated, so
// that a store which matches every graph when a query names none (Virtuoso) never sees another
// version. With no dataset in the request or the query, the default graph is every triple of the
// version, and the named graphs are those the query names in GRAPH <…>: a GRAPH ?g ranges over
// those alone, where the embedded store ranges over every description (docs/sparql.md). Answers
// carry the IRIs the query used (`unscope`).
import { DataFactory } from 'n3';
import type * as RDF from '@rdfjs/types';
import { Algebra, Factory, toSparql, translate, Util } from 'sparqlalgebrajs';
import { versionGraph } from './layout';

const factory = new Factory();

export interface Scope {
  readonly version: string;
  readonly defaultGraphs: readonly string[];
  readonly namedGraphs: readonly string[];
}

/** The text of `text` (a checked query) with every graph and its dataset scoped to `version`. */
export function scopeQuery(text: string, base: string, scope: Scope): string {
  const prefix = `${versionGraph(scope.version)}:`;
  const graph = (iri: string) => DataFactory.namedNode(`${prefix}${iri}`);
  /** The graphs the query names in GRAPH <…>: the named graphs when no dataset is stated. */
  const mentioned = new Map<string, RDF.NamedNode>();
  const term = <T extends RDF.Term>(t: T): T => {
    if (t.termType !== 'NamedNode') return t;
    const scoped = graph(t.value);
    mentioned.set(scoped.value, scoped);
    return scoped as unknown as T;
  };
  let own: { default: RDF.NamedNode[]; named: RDF.NamedNode[] } | undefined;
  const algebra = Util.mapOperation(translate(text, { quads: true, baseIRI: base }), {
    [Algebra.types.FROM]: (op: Algebra.From) => {
      own = {
        default: op.default.map((g) => graph(g.value)),
        named: op.named.map((g) => graph(g.value)),
      };
      return { recurse: true, result: op.input };
    },
    [Algebra.types.PATTERN]: (op: Algebra.Pattern) => ({
      recurse: false,
      result: factory.createPattern(op.subject, op.predicate, op.object, term(op.graph)),
    }),
    [Algebra.types.PATH]: (op: Algebra.Path) => ({
      recurse: false,
      result: factory.createPath(op.subject, op.predicate, op.object, term(op.graph)),
    }),
  });
  const given = scope.defaultGraphs.length > 0 || scope.namedGraphs.length > 0;
  const dataset = given
    ? { default: scope.defaultGraphs.map(graph), named: scope.namedGraphs.map(graph) }
    : (own ?? {
        default: [DataFactory.namedNode(versionGraph(scope.version))],
        named: [...mentioned.values()],
      });
  // A dataset without named graphs is stated with one the store holds nowhere: Virtuoso takes a
  // query without FROM NAMED to range GRAPH ?g over every graph it holds.
  const named = dataset.named.length > 0 ? dataset.named : [graph('urn:isil-ld:no-named-graph')];
  // A dataset without a default graph likewise: an empty one.
  const defaults =
    dataset.default.length > 0 ? dataset.default : [graph('urn:isil-ld:no-default-graph')];
  return toSparql(wrapFrom(algebra, defaults, named));
}

/** The query's operation with FROM and FROM NAMED put just below its form (SELECT, ASK, …). */
function wrapFrom(
  op: Algebra.Operation,
  defaults: RDF.NamedNode[],
  named: RDF.NamedNode[],
): Algebra.Operation {
  return factory.createFrom(op, defaults, named);
}

/** What the store answers, with the version's graph names back as the IRIs the query used. */
export function unscope(text: string, version: string): string {
  return text.split(`${versionGraph(version)}:`).join('');
}
