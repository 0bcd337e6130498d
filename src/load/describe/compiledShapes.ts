// The SHACL Core shapes of queries/shapes.ttl compiled into direct checks: each shape becomes a
// function over an institution's triples that reports what shacl-engine reports (the same shapes,
// focus nodes, values and messages, in the same order: test/integration/load/compiledShapes.test.ts
// holds them equal over every fixture and the generated set). What the published shapes do not use
// is not compiled (shapeComponents.ts): shapes using it are refused with a ShapesError.
import { Parser, type Quad, type Term } from 'n3';
import { readShapes, sh, SH, shapeKey, ShapesError, type DefectClass } from './shapes';
import { COMPONENTS, REFUSED } from './shapeComponents';

/** A result of a shape: the key of the shape that produced it, and values. */
export interface WireResult {
  readonly shape: string;
  readonly focus: string;
  readonly value: string | undefined;
  readonly message: readonly string[];
}

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDF_TYPE = `${RDF}type`;
const SUBCLASS = 'http://www.w3.org/2000/01/rdf-schema#subClassOf';

/** Appends `item` to the list of `map` at `at`. */
function push<T>(map: Map<string, T[]>, at: string, item: T): void {
  const list = map.get(at);
  if (list) list.push(item);
  else map.set(at, [item]);
}

/**
 * The terms without repeats, each at its first place. Terms are keyed by n3's id, which tells the
 * kinds of term apart (`_:` a blank node, `"` a literal with its language or datatype) and is kept
 * on the term, not computed.
 */
function distinct(terms: readonly Term[]): Term[] {
  if (terms.length < 2) return terms as Term[];
  const seen = new Set<string>();
  const kept: Term[] = [];
  for (const t of terms)
    if (!seen.has(t.id)) {
      seen.add(t.id);
      kept.push(t);
    }
  return kept;
}

/** Triples looked up by subject: one institution's, or the shapes graph. */
export class Data {
  private readonly out = new Map<string, Quad[]>();
  private readonly types = new Map<string, Term[]>();

  constructor(readonly quads: readonly Quad[]) {
    for (const q of quads) {
      push(this.out, q.subject.id, q);
      if (q.predicate.id === RDF_TYPE) push(this.types, q.object.id, q.subject);
    }
  }

  about(subject: Term): readonly Quad[] {
    return this.out.get(subject.id) ?? [];
  }

  objects(subject: Term, predicate: string): Term[] {
    const found: Term[] = [];
    for (const q of this.about(subject)) if (q.predicate.id === predicate) found.push(q.object);
    return found;
  }

  /** The nodes typed with the class of id `classId`, in the triples' order. */
  typed(classId: string): readonly Term[] {
    return this.types.get(classId) ?? [];
  }

  typesOf(node: Term): Term[] {
    return this.objects(node, RDF_TYPE);
  }
}

/** Where a shape is checked: its focus node, the value the engine's context carries down, the report. */
export interface Context {
  readonly data: Data;
  readonly focus: Term;
  readonly value: Term | undefined;
  /** Where results go; undefined in a nested check, where only whether it holds counts. */
  readonly results: WireResult[] | undefined;
}

/** A constraint failed: the value its result names, its default message and the message's arguments. */
export type Fail = (
  at: Context,
  value: Term | undefined,
  message?: string,
  args?: Record<string, string>,
) => void;

/** One constraint: whether it holds at `node` (the value or the focus node) of `at`. */
export type Check = (at: Context, node: Term, fail: Fail, values: readonly Term[]) => boolean;

export interface Constraint {
  /** `property`: once over a property shape's values; `generic`: per value, or on the node; `node`: node shapes only. */
  readonly kind: 'property' | 'generic' | 'node';
  readonly check: Check;
}

/** `{$name}` and `{?name}` replaced by the arguments, first occurrence each, as the engine does. */
function resolved(message: string, args: Record<string, string>): string {
  let text = message;
  for (const [name, value] of Object.entries(args))
    text = text.replace(`{$${name}}`, value).replace(`{?${name}}`, value);
  return text;
}

/** A path step: predicates followed forwards (several for sh:alternativePath). */
type Step = readonly string[];

export class CompiledShape {
  path: readonly Step[] | undefined;
  messages: readonly string[] = [];
  constraints: Constraint[] = [];

  constructor(readonly term: Term) {}

  /** Reports a failure of one of the shape's constraints at `at`, when `at` has a report. */
  private readonly fail: Fail = (at, value, message, args = {}) => {
    if (!at.results) return;
    const said = this.messages.length > 0 ? this.messages : message ? [message] : [];
    at.results.push({
      shape: shapeKey(this.term),
      focus: at.focus.value,
      value: value?.value,
      message: said.map((m) => resolved(m, args)),
    });
  };

  /** The nodes the path reaches from `focus`, in the order the engine finds them, repeats included. */
  private follow(data: Data, focus: Term, path: readonly Step[]): Term[] {
    let nodes: Term[] = [focus];
    for (const step of path)
      nodes = nodes.flatMap((n) => step.flatMap((predicate) => data.objects(n, predicate)));
    return nodes;
  }

  /** Whether the shape holds at `at`, each failure reported when `at.results` is a report. */
  validate(at: Context): boolean {
    let holds = true;
    const fail = this.fail;
    const nested = at.results === undefined;
    if (!this.path) {
      const node = at.value ?? at.focus;
      for (const c of this.constraints) {
        if (c.kind !== 'property' && !c.check(at, node, fail, [])) holds = false;
        if (!holds && nested) return false;
      }
      return holds;
    }
    const values = distinct(this.follow(at.data, at.focus, this.path));
    for (const c of this.constraints)
      if (c.kind === 'property' && !c.check(at, at.focus, fail, values)) holds = false;
    for (const value of values) {
      const ctx: Context = { data: at.data, focus: at.focus, value, results: at.results };
      for (const c of this.constraints) {
        if (!holds && nested) return false;
        if (c.kind === 'generic' && !c.check(ctx, value, fail, values)) holds = false;
      }
    }
    return holds;
  }
}

/** The shapes graph, indexed, and the shapes compiled from it on demand. */
export class Compiler extends Data {
  private readonly seen = new Map<string, number>();
  private readonly shapes = new Map<string, CompiledShape>();

  constructor(quads: readonly Quad[]) {
    super(quads);
    for (const q of quads) {
      const local = q.predicate.value.slice(SH.length);
      if (q.predicate.value.startsWith(SH) && REFUSED.has(local))
        throw new ShapesError(`shape ${q.subject.value}: ${q.predicate.value} is not compiled`);
      for (const t of [q.subject, q.predicate, q.object])
        if (!this.seen.has(t.id)) this.seen.set(t.id, this.seen.size);
    }
  }

  /** The order the engine's store lists terms in: the order they were first added. */
  order = (t: Term) => this.seen.get(t.id) ?? Infinity;

  one(subject: Term, predicate: string): Term | undefined {
    return this.objects(subject, predicate)[0];
  }

  list(head: Term | undefined): Term[] {
    const items: Term[] = [];
    for (let at = head; at && at.value !== `${RDF}nil`; at = this.one(at, `${RDF}rest`)) {
      const first = this.one(at, `${RDF}first`);
      if (!first) break;
      items.push(first);
    }
    return items;
  }

  isList(t: Term): boolean {
    return t.value === `${RDF}nil` || this.one(t, `${RDF}first`) !== undefined;
  }

  /** `classes` and their subclasses in the shapes graph (rdfs:subClassOf, any depth). */
  subclasses(classes: readonly Term[]): Set<string> {
    const found = new Set(classes.map((t) => t.id));
    for (let grew = true; grew;) {
      grew = false;
      for (const q of this.quads)
        if (q.predicate.value === SUBCLASS && found.has(q.object.id) && !found.has(q.subject.id)) {
          found.add(q.subject.id);
          grew = true;
        }
    }
    return found;
  }

  shape(term: Term): CompiledShape {
    const known = this.shapes.get(term.id);
    if (known) return known;
    const shape = new CompiledShape(term);
    this.shapes.set(term.id, shape);
    const pathTerm = this.one(term, sh('path'));
    if (pathTerm) shape.path = this.path(pathTerm);
    shape.messages = this.objects(term, sh('message')).map((m) => m.value);
    const predicates = distinct(this.about(term).map((q) => q.predicate)).sort(
      (a, b) => this.order(a) - this.order(b),
    );
    for (const predicate of predicates) {
      const compile =
        predicate.value.startsWith(SH) && COMPONENTS.get(predicate.value.slice(SH.length));
      if (compile) shape.constraints.push(...compile(this, term));
    }
    return shape;
  }

  private path(term: Term): Step[] {
    return (this.isList(term) ? this.list(term) : [term]).map((step) => {
      if (step.termType === 'NamedNode') return [step.value];
      const alternative = this.one(step, sh('alternativePath'));
      if (alternative && this.isList(alternative))
        return this.list(alternative).map((t) => t.value);
      throw new ShapesError(
        `path step ${step.value}: only predicates, sequences and alternatives are compiled`,
      );
    });
  }

  /**
   * The shapes that have targets, in the engine's order, each with how it finds its focus nodes:
   * the instances of its target classes, and of itself when it is a node shape.
   */
  targets(): { shape: CompiledShape; focusNodes: (data: Data) => Term[] }[] {
    const bySubjectOf = (predicate: string, object?: string) =>
      this.quads
        .filter((q) => q.predicate.value === predicate && (!object || q.object.value === object))
        .sort(
          (a, b) =>
            this.order(a.object) - this.order(b.object) ||
            this.order(a.subject) - this.order(b.subject),
        )
        .map((q) => q.subject);
    const order = distinct([
      ...bySubjectOf(sh('targetClass')),
      ...bySubjectOf(RDF_TYPE, sh('NodeShape')),
    ]);
    return order.map((term) => {
      const nodeShape = this.typesOf(term).some((t) => t.value === sh('NodeShape'));
      const targets = [...(nodeShape ? [term] : []), ...this.objects(term, sh('targetClass'))];
      const classes = [...this.subclasses(targets)];
      return {
        shape: this.shape(term),
        focusNodes: (data: Data) => distinct(classes.flatMap((c) => data.typed(c))),
      };
    });
  }
}

/** What the compiled shapes find in one institution's triples, as shacl-engine reports it. */
export type CompiledCheck = (quads: readonly Quad[]) => WireResult[];

/** Compiles the shapes (as readShapes gives them); throws a ShapesError for what is not compiled. */
export function compileShapes(quads: readonly Quad[]): CompiledCheck {
  const targets = new Compiler(quads).targets();
  return (institution) => {
    const data = new Data(institution);
    const results: WireResult[] = [];
    for (const { shape, focusNodes } of targets)
      for (const focus of focusNodes(data))
        shape.validate({ data, focus, value: undefined, results });
    return results;
  };
}

/** The shapes as the describe stage checks with them: compiled, and each shape's defect class. */
export interface Shapes {
  readonly check: CompiledCheck;
  readonly classes: ReadonlyMap<string, DefectClass>;
}

/**
 * Reads and compiles the shapes of `shapesFile`; a ShapesError when they cannot be used (they do
 * not parse, a shape names no defect class, or uses what is not compiled).
 */
export function compiledShapes(shapesFile: string): Shapes {
  const { classes, ntriples } = readShapes(shapesFile);
  const parsed = new Parser({ format: 'N-Triples', blankNodePrefix: '' }).parse(ntriples);
  try {
    return { check: compileShapes(parsed), classes };
  } catch (error) {
    if (!(error instanceof ShapesError)) throw error;
    throw new ShapesError(`${shapesFile}: ${error.message}`);
  }
}
