// The SHACL Core shapes of queries/shapes.ttl compiled into direct checks: each shape becomes a
// function over an institution's triples that reports what shacl-engine reports (the same shapes,
// focus nodes, values and messages, in the same order: test/integration/load/compiledShapes.test.ts holds
// them equal over every fixture and the generated set), several times faster. A shape using what is
// not compiled here (sh:closed, sh:equals, ranges, path quantifiers, ...) is refused with a
// ShapesError: shacl-engine runs such shapes (the validator's `engine` option).
import type { Quad, Term } from 'n3';
import { ShapesError } from './shapes';
import { Data, distinct, followPath, key, push, shapeKey, type Step } from './shapeData';
import { COMPONENTS, UNSUPPORTED } from './shapeComponents';

/** A result as the engines' threads send it: the key of the shape that produced it, and values. */
export interface WireResult {
  readonly shape: string;
  readonly focus: string;
  readonly value: string | undefined;
  readonly message: readonly string[];
}

const SH = 'http://www.w3.org/ns/shacl#';
const sh = (local: string) => SH + local;
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const SUBCLASS = 'http://www.w3.org/2000/01/rdf-schema#subClassOf';

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

  /** Whether the shape holds at `at`, each failure reported when `at.results` is a report. */
  validate(at: Context): boolean {
    if (at.data.quads.length === 0) return true;
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
    const values = distinct(followPath(at.data, at.focus, this.path));
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
export class Compiler {
  private readonly out = new Map<string, Quad[]>();
  private readonly seen = new Map<string, number>();
  private readonly shapes = new Map<string, CompiledShape>();

  constructor(readonly quads: readonly Quad[]) {
    for (const q of quads) {
      push(this.out, key(q.subject), q);
      for (const t of [q.subject, q.predicate, q.object])
        if (!this.seen.has(key(t))) this.seen.set(key(t), this.seen.size);
    }
  }

  /** The order the engine's store lists terms in: the order they were first added. */
  order = (t: Term) => this.seen.get(key(t)) ?? Infinity;

  objects(subject: Term, predicate: string): Term[] {
    return (this.out.get(key(subject)) ?? [])
      .filter((q) => q.predicate.value === predicate)
      .map((q) => q.object);
  }

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
    const found = new Set(classes.map(key));
    for (let grew = true; grew;) {
      grew = false;
      for (const q of this.quads)
        if (
          q.predicate.value === SUBCLASS &&
          found.has(key(q.object)) &&
          !found.has(key(q.subject))
        ) {
          found.add(key(q.subject));
          grew = true;
        }
    }
    return found;
  }

  shape(term: Term): CompiledShape {
    const known = this.shapes.get(key(term));
    if (known) return known;
    const shape = new CompiledShape(term);
    this.shapes.set(key(term), shape);
    const deactivated = this.one(term, sh('deactivated'));
    if (deactivated?.value === 'true' || deactivated?.value === '1') return shape;
    const pathTerm = this.one(term, sh('path'));
    if (pathTerm) shape.path = this.path(pathTerm);
    shape.messages = this.objects(term, sh('message')).map((m) => m.value);
    const predicates = distinct((this.out.get(key(term)) ?? []).map((q) => q.predicate)).sort(
      (a, b) => this.order(a) - this.order(b),
    );
    for (const predicate of predicates) {
      const compile = COMPONENTS.get(predicate.value.slice(SH.length));
      if (predicate.value.startsWith(SH) && UNSUPPORTED.has(predicate.value.slice(SH.length)))
        throw new ShapesError(`shape ${term.value}: ${predicate.value} is not compiled`);
      if (predicate.value.startsWith(SH) && compile)
        shape.constraints.push(...compile(this, term, shape));
    }
    return shape;
  }

  private path(term: Term): Step[] {
    return (this.isList(term) ? this.list(term) : [term]).map((step) => {
      if (step.termType === 'NamedNode') return { predicates: [step.value], inverse: false };
      const alternative = this.one(step, sh('alternativePath'));
      if (alternative && this.isList(alternative))
        return { predicates: this.list(alternative).map((t) => t.value), inverse: false };
      const inverse = this.one(step, sh('inversePath'));
      if (inverse?.termType === 'NamedNode') return { predicates: [inverse.value], inverse: true };
      throw new ShapesError(
        `path step ${step.value}: only predicates, sequences, alternatives and inverses are compiled`,
      );
    });
  }

  /** The shapes that have targets, in the engine's order, each with how it finds its focus nodes. */
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
      ...['targetClass', 'targetNode', 'targetObjectsOf', 'targetSubjectsOf'].flatMap((t) =>
        bySubjectOf(sh(t)),
      ),
      ...bySubjectOf(`${RDF}type`, sh('NodeShape')),
    ]);
    return order.map((term) => {
      const nodeShape = this.objects(term, `${RDF}type`).some((t) => t.value === sh('NodeShape'));
      const classes = [
        ...this.subclasses([
          ...(nodeShape ? [term] : []),
          ...this.objects(term, sh('targetClass')),
        ]),
      ];
      const nodes = this.objects(term, sh('targetNode'));
      const objectsOf = this.objects(term, sh('targetObjectsOf')).map((t) => t.value);
      const subjectsOf = this.objects(term, sh('targetSubjectsOf')).map((t) => t.value);
      return {
        shape: this.shape(term),
        focusNodes: (data: Data) =>
          distinct([
            ...classes.flatMap((c) => data.typed(c)),
            ...nodes,
            ...objectsOf.flatMap((p) =>
              data.quads.filter((q) => q.predicate.value === p).map((q) => q.object),
            ),
            ...subjectsOf.flatMap((p) =>
              data.quads.filter((q) => q.predicate.value === p).map((q) => q.subject),
            ),
          ]),
      };
    });
  }
}

/** What the compiled shapes find in one institution's triples, as shacl-engine reports it. */
export type CompiledCheck = (quads: readonly Quad[]) => WireResult[];

/** Compiles the shapes (as the engines parse them); throws a ShapesError for what is not compiled. */
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
