// The SHACL Core constraint components the compiled shapes (compiledShapes.ts) check, those the
// published shapes use, each as shacl-engine 0.1 runs it: over a property shape's values, per
// value, or on a node; the value its result names and its default message. What SHACL Core has
// beside them is refused (REFUSED).
import type { Term } from 'n3';
import type { CompiledShape, Compiler, Constraint, Context } from './compiledShapes';
import { sh, ShapesError } from './shapes';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

const NODE_KINDS: Readonly<Record<string, readonly string[]>> = {
  [sh('BlankNode')]: ['BlankNode'],
  [sh('BlankNodeOrIRI')]: ['BlankNode', 'NamedNode'],
  [sh('BlankNodeOrLiteral')]: ['BlankNode', 'Literal'],
  [sh('IRI')]: ['NamedNode'],
  [sh('IRIOrLiteral')]: ['NamedNode', 'Literal'],
  [sh('Literal')]: ['Literal'],
};

/** The lexical forms the engine checks for sh:datatype (rdf-validation's XSD patterns). */
const LEXICAL: Readonly<Record<string, (value: string) => boolean>> = {
  [`${XSD}dateTime`]: (v) =>
    /^(-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|(24:00:00(\.0+)?))(Z|(\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?)$/.test(
      v,
    ),
  [`${XSD}string`]: (v) => /^([^\ud8ff-\udfff\ufffe-\uffff]*)$/.test(v),
  [`${XSD}boolean`]: (v) => ['1', 'true', '0', 'false'].includes(v),
};

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
};

/** A term in N-Triples, as the engine writes the arguments of its default messages. */
function nt(t: Term): string {
  if (t.termType === 'NamedNode') return `<${t.value}>`;
  if (t.termType === 'BlankNode') return `_:${t.value}`;
  const text = `"${t.value.replace(/["\\\n\r]/g, (c) => ESCAPES[c]!)}"`;
  if (t.termType !== 'Literal') return text;
  if (t.language) return `${text}@${t.language}`;
  return t.datatype.value === `${XSD}string` ? text : `${text}^^<${t.datatype.value}>`;
}

type Compile = (c: Compiler, term: Term) => Constraint[];

/**
 * The SHACL Core components (and targets, and sh:deactivated) the published shapes do not use:
 * a shapes graph that names one is refused rather than checked otherwise than shacl-engine would.
 */
export const REFUSED = new Set([
  ...['and', 'xone', 'closed', 'disjoint', 'equals', 'lessThan', 'lessThanOrEquals'],
  ...['languageIn', 'uniqueLang', 'minLength', 'qualifiedMinCount', 'qualifiedValueShapesDisjoint'],
  ...['maxExclusive', 'maxInclusive', 'minExclusive', 'minInclusive'],
  ...['targetNode', 'targetSubjectsOf', 'targetObjectsOf', 'deactivated'],
]);

/** Whether `shape` holds with `node` as its focus, checked apart (no report), as the engine nests. */
const holdsAt = (shape: CompiledShape, at: Context, node: Term) =>
  shape.validate({ data: at.data, focus: node, value: at.value, results: undefined });

/** A constraint checked per value (or on the node), its result naming the value. */
const perValue = (
  holds: (node: Term, at: Context) => boolean,
  message?: string,
  args?: Record<string, string>,
): Constraint[] => [
  {
    kind: 'generic',
    check: (at, node, fail) => holds(node, at) || (fail(at, node, message, args), false),
  },
];

/** sh:minCount and sh:maxCount: the number of a property shape's values against the parameter's. */
const counted =
  (local: string, holds: (count: number, n: number) => boolean, message: string): Compile =>
  (c, t) => {
    const n = parseInt(c.one(t, sh(local))!.value);
    const args = { [local]: String(n) };
    return [
      {
        kind: 'property',
        check: (at, _n, fail, values) =>
          holds(values.length, n) || (fail(at, at.value, message, args), false),
      },
    ];
  };

export const COMPONENTS = new Map<string, Compile>([
  ['maxCount', counted('maxCount', (count, n) => count <= n, 'More than {$maxCount} values')],
  ['minCount', counted('minCount', (count, n) => count >= n, 'Less than {$minCount} values')],
  [
    'or',
    (c, t) => {
      const shapes = c
        .objects(t, sh('or'))
        .flatMap((l) => c.list(l))
        .map((s) => c.shape(s));
      return perValue((node, at) => shapes.some((s) => holdsAt(s, at, node)));
    },
  ],
  [
    'not',
    (c, t) => {
      const term = c.one(t, sh('not'))!;
      const shape = c.shape(term);
      return perValue((node, at) => !holdsAt(shape, at, node), 'Value does have shape {$not}', {
        not: nt(term),
      });
    },
  ],
  [
    'node',
    (c, t) =>
      c.objects(t, sh('node')).flatMap((term) => {
        const shape = c.shape(term);
        return perValue(
          (node, at) => holdsAt(shape, at, node),
          'Value does not have shape {$node}',
          {
            node: nt(term),
          },
        );
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
  [
    'qualifiedValueShape',
    (c, t) => {
      const term = c.one(t, sh('qualifiedValueShape'))!;
      const shape = c.shape(term);
      const max = c.one(t, sh('qualifiedMaxCount'))?.value;
      if (max === undefined) return [];
      const n = parseInt(max);
      const args = {
        qualifiedMaxCount: max,
        qualifiedValueShape: nt(term),
        qualifiedValueShapesDisjoint: 'false',
      };
      const message = 'More than {$qualifiedMaxCount} values have shape {$qualifiedValueShape}';
      return [
        {
          kind: 'property',
          check: (at, _n, fail, values) =>
            values.filter((v) => holdsAt(shape, at, v)).length > n
              ? (fail(at, at.value, message, args), false)
              : true,
        },
      ];
    },
  ],
  [
    'hasValue',
    (c, t) => {
      const value = c.one(t, sh('hasValue'))!;
      const args = { hasValue: nt(value) };
      return [
        {
          kind: 'node',
          check: (at, node, fail) =>
            node.id === value.id || (fail(at, at.value, 'Value must be {$hasValue}', args), false),
        },
        {
          kind: 'property',
          check: (at, _n, fail, values) =>
            values.some((v) => v.id === value.id) ||
            (fail(at, at.value, 'Missing expected value {$hasValue}', args), false),
        },
      ];
    },
  ],
  [
    'in',
    (c, t) => {
      const lists = c.objects(t, sh('in')).flatMap((l) => c.list(l));
      const members = new Map(lists.map((m) => [m.id, m.value]));
      return perValue((node) => members.has(node.id), 'Value is not in {$in}', {
        in: [...members.values()].join(', '),
      });
    },
  ],
  [
    'maxLength',
    (c, t) => {
      const n = parseInt(c.one(t, sh('maxLength'))!.value);
      return perValue(
        (node) => node.termType !== 'BlankNode' && node.value.length <= n,
        'Value has more than {$maxLength} characters',
        { maxLength: String(n) },
      );
    },
  ],
  [
    'pattern',
    (c, t) => {
      const pattern = c.one(t, sh('pattern'))!.value;
      const flags = c.one(t, sh('flags'))?.value;
      const regex = new RegExp(pattern, flags);
      return perValue(
        (node) => regex.test(node.value),
        'Value does not match pattern "{$pattern}"',
        {
          flags: String(flags),
          pattern,
        },
      );
    },
  ],
  [
    'class',
    (c, t) =>
      c.objects(t, sh('class')).flatMap((term) => {
        const classes = c.subclasses([term]);
        return perValue((node, at) => at.data.typesOf(node).some((type) => classes.has(type.id)));
      }),
  ],
  [
    'datatype',
    (c, t) => {
      const datatype = c.one(t, sh('datatype'))!;
      const lexical = LEXICAL[datatype.value];
      if (!lexical && datatype.value.startsWith(XSD))
        throw new ShapesError(`shape ${t.value}: sh:datatype ${datatype.value} is not compiled`);
      return perValue(
        (node) =>
          node.termType === 'Literal' &&
          node.datatype.value === datatype.value &&
          (lexical?.(node.value) ?? true),
        'Value does not have datatype {$datatype}',
        { datatype: nt(datatype) },
      );
    },
  ],
  [
    'nodeKind',
    (c, t) => {
      const kind = c.one(t, sh('nodeKind'))!;
      const kinds = NODE_KINDS[kind.value] ?? [];
      return perValue(
        (node) => kinds.includes(node.termType),
        'Value does not have node kind {$nodeKind}',
        { nodeKind: nt(kind) },
      );
    },
  ],
]);
