// The SHACL Core constraint components the compiled shapes (compiledShapes.ts) check, each as
// shacl-engine 0.1 runs it: over a property shape's values, per value, or on a node; the value its
// result names and its default message. What is not here is refused (UNSUPPORTED).
import type { Term } from 'n3';
import type { CompiledShape, Compiler, Constraint, Context } from './compiledShapes';
import { ShapesError } from './shapes';
import { distinct, key, LEXICAL, nt } from './shapeData';

const SH = 'http://www.w3.org/ns/shacl#';
const sh = (local: string) => SH + local;

const NODE_KINDS: Readonly<Record<string, readonly string[]>> = {
  [sh('BlankNode')]: ['BlankNode'],
  [sh('BlankNodeOrIRI')]: ['BlankNode', 'NamedNode'],
  [sh('BlankNodeOrLiteral')]: ['BlankNode', 'Literal'],
  [sh('IRI')]: ['NamedNode'],
  [sh('IRIOrLiteral')]: ['NamedNode', 'Literal'],
  [sh('Literal')]: ['Literal'],
};

type Compile = (c: Compiler, term: Term, shape: CompiledShape) => Constraint[];

/** The SHACL Core components in shacl-engine's registry that are not compiled here. */
export const UNSUPPORTED = new Set(
  [
    'closed',
    'disjoint',
    'equals',
    'lessThan',
    'lessThanOrEquals',
    'languageIn',
    'uniqueLang',
  ].concat(['maxExclusive', 'maxInclusive', 'minExclusive', 'minInclusive']),
);

/** Whether `shape` holds with `node` as its focus, checked apart (no report), as the engine nests. */
const holdsAt = (shape: CompiledShape, at: Context, node: Term) =>
  shape.validate({ data: at.data, focus: node, value: at.value, results: undefined });

const integer = (c: Compiler, term: Term, local: string) => parseInt(c.one(term, sh(local))!.value);

export const COMPONENTS = new Map<string, Compile>([
  [
    'maxCount',
    (c, t) => {
      const n = integer(c, t, 'maxCount');
      return [
        {
          kind: 'property',
          check: (at, _n, fail, values) =>
            values.length <= n ||
            (fail(at, at.value, 'More than {$maxCount} values', { maxCount: String(n) }), false),
        },
      ];
    },
  ],
  [
    'minCount',
    (c, t) => {
      const n = integer(c, t, 'minCount');
      return [
        {
          kind: 'property',
          check: (at, _n, fail, values) =>
            values.length >= n ||
            (fail(at, at.value, 'Less than {$minCount} values', { minCount: String(n) }), false),
        },
      ];
    },
  ],
  [
    'and',
    (c, t) => {
      const shapes = c
        .objects(t, sh('and'))
        .flatMap((l) => c.list(l))
        .map((s) => c.shape(s));
      return [
        {
          kind: 'generic',
          check: (at, node, fail) =>
            shapes.every((s) => holdsAt(s, at, node)) || (fail(at, node), false),
        },
      ];
    },
  ],
  [
    'or',
    (c, t) => {
      const shapes = c
        .objects(t, sh('or'))
        .flatMap((l) => c.list(l))
        .map((s) => c.shape(s));
      return [
        {
          kind: 'generic',
          check: (at, node, fail) =>
            shapes.some((s) => holdsAt(s, at, node)) || (fail(at, node), false),
        },
      ];
    },
  ],
  [
    'xone',
    (c, t) => {
      const shapes = c
        .objects(t, sh('xone'))
        .flatMap((l) => c.list(l))
        .map((s) => c.shape(s));
      return [
        {
          kind: 'generic',
          check: (at, node, fail) =>
            shapes.filter((s) => holdsAt(s, at, node)).length === 1 || (fail(at, node), false),
        },
      ];
    },
  ],
  [
    'not',
    (c, t) => {
      const term = c.one(t, sh('not'))!;
      const shape = c.shape(term);
      return [
        {
          kind: 'generic',
          check: (at, node, fail) =>
            !holdsAt(shape, at, node) ||
            (fail(at, node, 'Value does have shape {$not}', { not: nt(term) }), false),
        },
      ];
    },
  ],
  [
    'node',
    (c, t) =>
      c.objects(t, sh('node')).map((term): Constraint => {
        const shape = c.shape(term);
        return {
          kind: 'generic',
          check: (at, node, fail) =>
            holdsAt(shape, at, node) ||
            (fail(at, node, 'Value does not have shape {$node}', { node: nt(term) }), false),
        };
      }),
  ],
  [
    'property',
    (c, t) => {
      const shapes = c.objects(t, sh('property')).map((s) => c.shape(s));
      return [
        {
          kind: 'generic',
          check: (at, node) => shapes.map((s) => s.validate({ ...at, focus: node })).every(Boolean),
        },
      ];
    },
  ],
  ['qualifiedValueShape', qualified],
  [
    'hasValue',
    (c, t) => {
      const value = c.one(t, sh('hasValue'))!;
      const args = { hasValue: nt(value) };
      return [
        {
          kind: 'node',
          check: (at, node, fail) =>
            key(node) === key(value) ||
            (fail(at, at.value, 'Value must be {$hasValue}', args), false),
        },
        {
          kind: 'property',
          check: (at, _n, fail, values) =>
            values.some((v) => key(v) === key(value)) ||
            (fail(at, at.value, 'Missing expected value {$hasValue}', args), false),
        },
      ];
    },
  ],
  [
    'in',
    (c, t) => {
      const members = c.objects(t, sh('in')).flatMap((l) => c.list(l));
      const keys = new Set(members.map(key));
      const args = {
        in: distinct(members)
          .map((m) => m.value)
          .join(', '),
      };
      return [
        {
          kind: 'generic',
          check: (at, node, fail) =>
            keys.has(key(node)) || (fail(at, node, 'Value is not in {$in}', args), false),
        },
      ];
    },
  ],
  [
    'maxLength',
    (c, t) => {
      const n = integer(c, t, 'maxLength');
      return [
        {
          kind: 'generic',
          check: (at, node, fail) =>
            (node.termType !== 'BlankNode' && node.value.length <= n) ||
            (fail(at, node, 'Value has more than {$maxLength} characters', {
              maxLength: String(n),
            }),
            false),
        },
      ];
    },
  ],
  [
    'minLength',
    (c, t) => {
      const n = integer(c, t, 'minLength');
      return [
        {
          kind: 'generic',
          check: (at, node, fail) =>
            (node.termType !== 'BlankNode' && node.value.length >= n) ||
            (fail(at, node, 'Value has less than {$minLength} characters', {
              minLength: String(n),
            }),
            false),
        },
      ];
    },
  ],
  [
    'pattern',
    (c, t) => {
      const pattern = c.one(t, sh('pattern'))!.value;
      const flags = c.one(t, sh('flags'))?.value;
      const regex = new RegExp(pattern, flags);
      const args = { flags: String(flags), pattern };
      return [
        {
          kind: 'generic',
          check: (at, node, fail) =>
            regex.test(node.value) ||
            (fail(at, node, 'Value does not match pattern "{$pattern}"', args), false),
        },
      ];
    },
  ],
  [
    'class',
    (c, t) =>
      c.objects(t, sh('class')).map((term): Constraint => {
        const classes = c.subclasses([term]);
        return {
          kind: 'generic',
          check: (at, node, fail) =>
            at.data.typesOf(node).some((type) => classes.has(key(type))) || (fail(at, node), false),
        };
      }),
  ],
  [
    'datatype',
    (c, t) => {
      const datatype = c.one(t, sh('datatype'))!;
      const lexical = LEXICAL[datatype.value];
      if (!lexical && datatype.value.startsWith('http://www.w3.org/2001/XMLSchema#'))
        throw new ShapesError(`shape ${t.value}: sh:datatype ${datatype.value} is not compiled`);
      const args = { datatype: nt(datatype) };
      return [
        {
          kind: 'generic',
          check: (at, node, fail) =>
            (node.termType === 'Literal' &&
              node.datatype.value === datatype.value &&
              (lexical?.(node.value) ?? true)) ||
            (fail(at, node, 'Value does not have datatype {$datatype}', args), false),
        },
      ];
    },
  ],
  [
    'nodeKind',
    (c, t) => {
      const kind = c.one(t, sh('nodeKind'))!;
      const kinds = NODE_KINDS[kind.value] ?? [];
      const args = { nodeKind: nt(kind) };
      return [
        {
          kind: 'generic',
          check: (at, node, fail) =>
            kinds.includes(node.termType) ||
            (fail(at, node, 'Value does not have node kind {$nodeKind}', args), false),
        },
      ];
    },
  ],
]);

/** sh:qualifiedValueShape with sh:qualifiedMaxCount / sh:qualifiedMinCount (not disjoint). */
function qualified(c: Compiler, t: Term): Constraint[] {
  const term = c.one(t, sh('qualifiedValueShape'))!;
  const disjoint = c.one(t, sh('qualifiedValueShapesDisjoint'));
  if (disjoint?.value === 'true')
    throw new ShapesError(`shape ${t.value}: sh:qualifiedValueShapesDisjoint is not compiled`);
  const shape = c.shape(term);
  const max = c.one(t, sh('qualifiedMaxCount'));
  const min = c.one(t, sh('qualifiedMinCount'));
  const args = (name: string, n: string) => ({
    [name]: n,
    qualifiedValueShape: nt(term),
    qualifiedValueShapesDisjoint: 'false',
  });
  return [
    {
      kind: 'property',
      check: (at, _n, fail, values) => {
        const count = values.filter((v) => holdsAt(shape, at, v)).length;
        let holds = true;
        if (max && count > parseInt(max.value)) {
          fail(
            at,
            at.value,
            'More than {$qualifiedMaxCount} values have shape {$qualifiedValueShape}',
            args('qualifiedMaxCount', max.value),
          );
          holds = false;
        }
        if (min && count < parseInt(min.value)) {
          fail(
            at,
            at.value,
            'Less than {$qualifiedMinCount} values have shape {$qualifiedValueShape}',
            args('qualifiedMinCount', min.value),
          );
          holds = false;
        }
        return holds;
      },
    },
  ];
}
