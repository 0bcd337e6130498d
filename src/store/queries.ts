// Loads the SPARQL templates from queries/, checks them with sparqlalgebrajs, and binds IRIs into
// them: the one place where request input becomes query text.
import fs from 'node:fs';
import path from 'node:path';
import { DataFactory } from 'n3';
import { Algebra, type Factory, toSparql, translate, Util } from 'sparqlalgebrajs';
import { QUERY_DIR } from '../util/paths';
import { descriptionIriOf, institutionIri, linksGraphOf } from '../rdf/iris';
import { isilDefect, type Isil } from '../rdf/isil';

/** The placeholder a template names the bound IRI by: in describe.rq, the description's graph. */
export const PLACEHOLDER = '<urn:x-bind:description>';

export class QueryTemplateError extends Error {
  override name = 'QueryTemplateError';
}

/** A placeholder's text: `<urn:x-bind:NAME>`, NAME a lower-case word. */
const NAMED_PLACEHOLDER = /<urn:x-bind:([a-z]+)>/;

/**
 * A query with placeholder IRIs (`<urn:x-bind:NAME>`), split once at start so that binding is a
 * join. The text is parsed at construction: a template that is not SPARQL, or not of the expected
 * kind, stops start-up.
 */
export class QueryTemplate {
  /** The text between placeholders; `names[i]` stands between `parts[i]` and `parts[i + 1]`. */
  private readonly parts: readonly string[];
  private readonly names: readonly string[];

  constructor(
    readonly name: string,
    text: string,
    expected: Algebra.types.CONSTRUCT | Algebra.types.PROJECT,
  ) {
    let algebra: Algebra.Operation;
    try {
      algebra = translate(text, { quads: true });
    } catch (error) {
      throw new QueryTemplateError(`${name}: not a SPARQL query: ${(error as Error).message}`);
    }
    if (algebra.type !== expected) {
      throw new QueryTemplateError(`${name}: expected a ${expected} query, got ${algebra.type}`);
    }
    // split() with a capturing group interleaves the names with the text between them.
    const pieces = withoutCommentLines(text).split(NAMED_PLACEHOLDER);
    this.parts = pieces.filter((_, i) => i % 2 === 0);
    this.names = pieces.filter((_, i) => i % 2 === 1);
  }

  /** Whether the template takes an IRI at all. */
  get bindable(): boolean {
    return this.names.length > 0;
  }

  /** The placeholders' names, each once. */
  get placeholders(): readonly string[] {
    return [...new Set(this.names)];
  }

  /**
   * The query with IRIs in place of the placeholders: one IRI in place of all of them, or each
   * placeholder's by its name. Every IRI must come from `checkedIri`; a name without one throws.
   */
  bind(iris: CheckedIri | Readonly<Record<string, CheckedIri>>): string {
    let out = this.parts[0]!;
    for (let i = 0; i < this.names.length; i++) {
      const iri = typeof iris === 'string' ? iris : iris[this.names[i]!];
      if (iri === undefined)
        throw new QueryTemplateError(`${this.name}: no IRI for <urn:x-bind:${this.names[i]}>`);
      out += `<${iri}>${this.parts[i + 1]!}`;
    }
    return out;
  }

  /** The query text of a template without placeholder. */
  text(): string {
    if (this.bindable) throw new QueryTemplateError(`${this.name} needs an IRI`);
    return this.parts[0]!;
  }
}

/**
 * The query without its whole-line comments and blank lines: Oxigraph parses the text on every
 * request (it has no prepared queries), and the comment block of describe.rq cost a measurable
 * part of the query's time. A `#` inside a line is left alone: it may be part of an IRI.
 */
function withoutCommentLines(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*(#.*)?$/.test(line))
    .join('\n');
}

export type CheckedIri = string & { readonly __checkedIri: unique symbol };

/**
 * The security boundary between request input and SPARQL text (the store has no parameter
 * binding). Only an absolute http(s) IRI of IRI characters passes: nothing that could close the
 * `<…>` and go on as query text (`>`, whitespace, quotes, braces, `\`, `^`, `|`, backtick,
 * control or non-ASCII characters), and nothing relative. Callers build `iri` from an `Isil`.
 */
export function checkedIri(iri: string): CheckedIri {
  if (
    !/^https?:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/.test(iri) ||
    /[<>"{}|\\^`\s]/.test(iri)
  ) {
    throw new QueryTemplateError(`refused to bind ${JSON.stringify(iri)} into a query`);
  }
  return iri as CheckedIri;
}

/**
 * The one function through which request input reaches a query: it takes an ISIL and nothing else
 * (checked again here, since a type assertion can fake the `Isil` brand) and returns the
 * institution's IRI, itself checked by `checkedIri`.
 */
export function institutionIriFor(baseIri: string, isil: Isil): CheckedIri {
  const defect = isilDefect(isil);
  if (defect !== undefined)
    throw new QueryTemplateError(`refused to bind ${JSON.stringify(isil)}: ${defect}`);
  return checkedIri(institutionIri(baseIri, isil));
}

export function loadTemplate(
  file: string,
  expected: Algebra.types.CONSTRUCT | Algebra.types.PROJECT,
): QueryTemplate {
  const text = fs.readFileSync(path.join(QUERY_DIR, file), 'utf8');
  return new QueryTemplate(file, text, expected);
}

/** The IRI a ValuesTemplate stands for its list of IRIs with while it is built. */
const VALUES_PLACEHOLDER = 'urn:x-bind:values';

/**
 * A SELECT asked for a few of its solutions at a time: `VALUES ?variable { … }` is joined, in the
 * query's algebra (sparqlalgebrajs), with the pattern its GROUP BY reads (or its whole pattern),
 * and the query written back as text once; binding is then a join of checked IRIs.
 */
export class ValuesTemplate {
  private readonly parts: readonly string[];
  readonly name: string;

  constructor(template: QueryTemplate, variable: string) {
    const name = (this.name = template.name);
    const algebra = translate(template.text());
    const values = (input: Algebra.Operation, factory: Factory) =>
      factory.createJoin([
        factory.createValues(
          [DataFactory.variable(variable)],
          [{ [`?${variable}`]: DataFactory.namedNode(VALUES_PLACEHOLDER) }],
        ),
        input,
      ]);
    let bound = false;
    const bind = (op: Algebra.Group | Algebra.Project, factory: Factory) => {
      bound = true;
      const input = values(op.input, factory);
      return {
        recurse: false,
        result:
          op.type === Algebra.types.GROUP
            ? factory.createGroup(input, op.variables, op.aggregates)
            : factory.createProject(input, op.variables),
      };
    };
    const grouped = Util.mapOperation(algebra, { [Algebra.types.GROUP]: bind });
    const rewritten = bound
      ? grouped
      : Util.mapOperation(algebra, { [Algebra.types.PROJECT]: bind });
    if (!bound) throw new QueryTemplateError(`${name}: not a SELECT to bind ?${variable} in`);
    this.parts = toSparql(rewritten).split(`<${VALUES_PLACEHOLDER}>`);
    if (this.parts.length !== 2)
      throw new QueryTemplateError(`${name}: ?${variable} cannot be bound with VALUES`);
  }

  /** The query for the solutions of `iris` alone; each from `checkedIri`. */
  bind(iris: readonly CheckedIri[]): string {
    return this.parts.join(iris.map((iri) => `<${iri}>`).join(' '));
  }
}

/** Every template the service uses, parsed and checked: call once at start. */
export function loadQueries() {
  const institutions = loadTemplate('institutions.rq', Algebra.types.PROJECT);
  const queries = {
    describe: loadTemplate('describe.rq', Algebra.types.CONSTRUCT),
    /** describe.rq for a version without links: the description's graph alone. */
    describeOwn: loadTemplate('describeOwn.rq', Algebra.types.CONSTRUCT),
    institutions,
    /** institutions.rq for a few institutions at a time (`?institution` bound with VALUES). */
    institutionsOf: new ValuesTemplate(institutions, 'institution'),
  };
  if (queries.describeOwn.placeholders.join() !== 'description')
    throw new QueryTemplateError('describeOwn.rq: expected the placeholder description alone');
  const placeholders = [...queries.describe.placeholders].sort().join(', ');
  if (placeholders !== 'description, institution, links')
    throw new QueryTemplateError(
      `describe.rq: expected the placeholders description, institution and links, found ${placeholders || 'none'}`,
    );
  return Object.freeze(queries);
}

export type Queries = ReturnType<typeof loadQueries>;

/**
 * What describe.rq is bound to for the institution `institution` (from `institutionIriFor`): the
 * graph of its description and the links graph, each found from the IRI by a fixed path
 * (src/rdf/iris.ts), and mapped by `graph` to where the store keeps it (a remote store keeps each
 * version's graphs under names of its own). `undefined` for an IRI that names no institution.
 */
export function describeIris(
  institution: CheckedIri,
  graph: (iri: CheckedIri) => CheckedIri = (iri) => iri,
): Record<'description' | 'institution' | 'links', CheckedIri> | undefined {
  const description = descriptionIriOf(institution);
  const links = linksGraphOf(institution);
  if (description === undefined || links === undefined) return undefined;
  // Each is `institution`, checked, with one fixed path in place of another: checked again all
  // the same, as every IRI bound into a query is.
  return {
    description: graph(checkedIri(description)),
    institution,
    links: graph(checkedIri(links)),
  };
}
