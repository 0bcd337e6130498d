// The injection boundary (institutionIriFor, checkedIri, QueryTemplate.bind, ValuesTemplate), the templates, and describe() on a real Oxigraph store.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Parser, type Quad } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { Algebra, translate, Util } from 'sparqlalgebrajs';
import type { Isil } from '../../../src/rdf/isil';
import { PROJECT_ROOT } from '../../../src/util/paths';
import { DatasetStore } from '../../../src/store/embedded/datasetStore';
import { MAX_BLANK_NODE_DEPTH } from '../../../src/store/descriptions';
import {
  checkedIri,
  describeIris,
  institutionIriFor,
  type CheckedIri,
  loadQueries,
  PLACEHOLDER,
  QueryTemplate,
  QueryTemplateError,
  ValuesTemplate,
} from '../../../src/store/queries';
import { asTriples, DE_1A_RDF, needsThirdParty } from '../../support';

const BASE = 'https://ld.zdb-services.de';
const DE_1A = `${BASE}/resource/organisations/DE-1a`;

/** Each row is text an attacker could put where an IRI goes, trying to leave the `<…>`. */
const INJECTIONS: [string, string][] = [
  ['closing angle bracket', `${DE_1A}>`],
  ['close the IRI and drop everything', `${DE_1A}> } ; DROP ALL #`],
  ['close the IRI and add a pattern', `${DE_1A}> ?p ?o . ?s ?p2 <${DE_1A}`],
  ['opening angle bracket', `${DE_1A}<x`],
  ['space', `${DE_1A} x`],
  ['tab', `${DE_1A}\tx`],
  ['newline', `${DE_1A}\n} DROP ALL`],
  ['trailing newline', `${DE_1A}\n`],
  ['carriage return', `${DE_1A}\rx`],
  ['double quote', `${DE_1A}"`],
  ['opening brace', `${DE_1A}{`],
  ['closing brace', `${DE_1A}}`],
  ['backslash', `${DE_1A}\\u003E`],
  ['caret', `${DE_1A}^^x`],
  ['backtick', `${DE_1A}\``],
  ['pipe', `${DE_1A}|x`],
  ['NUL byte', `${DE_1A}\u0000`],
  ['non-ASCII letter', `${BASE}/resource/organisations/DE-ä`],
  ['non-breaking space', `${DE_1A}\u00a0`],
  ['line separator U+2028', `${DE_1A}\u2028`],
  ['full-width greater-than U+FF1E', `${DE_1A}\uff1e`],
  ['relative path', '/resource/organisations/DE-1a'],
  ['bare ISIL', 'DE-1a'],
  ['scheme-relative', '//ld.zdb-services.de/resource/organisations/DE-1a'],
  ['javascript: IRI', 'javascript:alert(1)'],
  ['file: IRI', 'file:///etc/passwd'],
  ['scheme without host', 'https://'],
  ['empty', ''],
];

/** Absolute http(s) IRIs, some with characters that are legal inside `<…>` but look alarming. */
const VALID = [
  DE_1A,
  `${BASE}/resource/organisations/GB-LO/N38`,
  `${BASE}/resource/organisations/AT-9:UBW-002`,
  'http://example.org/a?b=c&d=e#f',
  'https://example.org/%3E%20%7D',
  "https://example.org/it's",
  'https://example.org/(a)[b]@c!$*+,;=~',
];

/** Every value of a NamedNode anywhere in a parsed query. */
function namedNodes(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) namedNodes(v, found);
  else if (value !== null && typeof value === 'object') {
    const term = value as { termType?: unknown; value?: unknown };
    if (term.termType === 'NamedNode' && typeof term.value === 'string') found.add(term.value);
    for (const v of Object.values(value)) namedNodes(v, found);
  }
  return found;
}

function parseNTriples(text: string): Quad[] {
  return new Parser({ format: 'application/n-triples' }).parse(text);
}

function distinctLines(ntriples: string): Set<string> {
  return new Set(ntriples.split('\n').filter((line) => line !== ''));
}

/** A store of `text` (Turtle, or `format`), each description in its graph, as every load leaves one. */
function storeOf(text: string | Buffer, format: 'ttl' | 'rdf' = 'ttl'): DatasetStore {
  const store = new DatasetStore();
  store.load(text, format, `${BASE}/`);
  store.placeDescriptions(BASE);
  return store;
}

describe('checkedIri refuses injection', () => {
  for (const [name, text] of INJECTIONS) {
    it(name, () => assert.throws(() => checkedIri(text), QueryTemplateError));
  }
});

describe('checkedIri and bind with valid IRIs', () => {
  const { describe: template } = loadQueries();
  const unbound = JSON.stringify(
    translate(fs.readFileSync(path.join(PROJECT_ROOT, 'queries', 'describe.rq'), 'utf8'), {
      quads: true,
    }),
  );
  for (const iri of VALID) {
    it(`${iri}: the bound query is the template's algebra with only the IRIs changed`, () => {
      const checked = checkedIri(iri);
      // An IRI that is no institution's stands for each of the three.
      const iris = describeIris(checked) ?? {
        description: checked,
        institution: checked,
        links: checked,
      };
      const bound = template.bind(iris);
      let expected = unbound;
      for (const [name, value] of Object.entries(iris))
        expected = expected.split(JSON.stringify(`urn:x-bind:${name}`)).join(JSON.stringify(value));
      assert.equal(JSON.stringify(translate(bound, { quads: true })), expected);
    });
  }
});

describe('QueryTemplate', () => {
  const NAMED = 'SELECT * WHERE { GRAPH <urn:x-bind:g> { <urn:x-bind:s> ?p ?o } }';

  it('binds each named placeholder to its own IRI', () => {
    const bound = new QueryTemplate('named', NAMED, Algebra.types.PROJECT).bind({
      g: checkedIri('https://example.org/g'),
      s: checkedIri(DE_1A),
    });
    assert.equal(bound, `SELECT * WHERE { GRAPH <https://example.org/g> { <${DE_1A}> ?p ?o } }`);
  });

  it('refuses to bind when a named placeholder has no IRI', () =>
    assert.throws(
      () =>
        new QueryTemplate('named', NAMED, Algebra.types.PROJECT).bind({
          g: checkedIri('https://example.org/g'),
        }),
      (error: unknown) => error instanceof QueryTemplateError && /urn:x-bind:s/.test(error.message),
    ));

  const TWICE = `CONSTRUCT { ${PLACEHOLDER} ?p ?o } WHERE { ${PLACEHOLDER} ?p ?o . OPTIONAL { ?o ?q ${PLACEHOLDER} } }`;

  it('bind replaces every occurrence of the placeholder', () => {
    const bound = new QueryTemplate('three', TWICE, Algebra.types.CONSTRUCT).bind(
      checkedIri(DE_1A),
    );
    assert.ok(!bound.includes('urn:x-bind'));
    assert.equal(bound.split(`<${DE_1A}>`).length - 1, 3);
    assert.deepEqual([...namedNodes(translate(bound, { quads: true }))], [DE_1A]);
  });

  it('text() refuses a template that needs an IRI', () => {
    assert.throws(
      () => new QueryTemplate('t', TWICE, Algebra.types.CONSTRUCT).text(),
      QueryTemplateError,
    );
  });

  it('text() gives a template without placeholder as it is', () => {
    const text = 'SELECT ?s WHERE { ?s ?p ?o }';
    assert.equal(new QueryTemplate('t', text, Algebra.types.PROJECT).text(), text);
  });

  const REFUSED: [string, string, Algebra.types.CONSTRUCT | Algebra.types.PROJECT][] = [
    ['not SPARQL', 'this is not a query', Algebra.types.CONSTRUCT],
    ['empty text', '', Algebra.types.CONSTRUCT],
    ['an unclosed pattern', 'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o', Algebra.types.CONSTRUCT],
    [
      'INSERT DATA',
      'INSERT DATA { <http://a.example/s> <http://a.example/p> <http://a.example/o> }',
      Algebra.types.CONSTRUCT,
    ],
    ['DELETE WHERE', 'DELETE WHERE { ?s ?p ?o }', Algebra.types.CONSTRUCT],
    ['DROP ALL', 'DROP ALL', Algebra.types.PROJECT],
    ['LOAD', 'LOAD <http://a.example/data>', Algebra.types.CONSTRUCT],
    [
      'a query followed by an update',
      'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } ; DROP ALL',
      Algebra.types.CONSTRUCT,
    ],
    ['SELECT where CONSTRUCT is expected', 'SELECT * WHERE { ?s ?p ?o }', Algebra.types.CONSTRUCT],
    ['ASK where CONSTRUCT is expected', 'ASK { ?s ?p ?o }', Algebra.types.CONSTRUCT],
    [
      'DESCRIBE where CONSTRUCT is expected',
      'DESCRIBE <http://a.example/s>',
      Algebra.types.CONSTRUCT,
    ],
    [
      'CONSTRUCT where SELECT is expected',
      'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }',
      Algebra.types.PROJECT,
    ],
  ];
  for (const [name, text, expected] of REFUSED) {
    it(`refuses ${name}`, () =>
      assert.throws(() => new QueryTemplate(name, text, expected), QueryTemplateError));
  }
});

describe('loadQueries', () => {
  const queries = loadQueries();
  it('loads describe.rq as a CONSTRUCT with a placeholder', () =>
    assert.ok(queries.describe.bindable));
  it('loads institutions.rq as a SELECT without one', () =>
    assert.equal(queries.institutions.bindable, false));
  it('is frozen', () => assert.ok(Object.isFrozen(queries)));
  it('binds describe.rq without its comment lines', () => {
    const description = `${BASE}/data/organisations/DE-1a`;
    const bound = queries.describe.bind(describeIris(institutionIriFor(BASE, 'DE-1a' as Isil))!);
    assert.ok(!bound.split('\n').some((line) => line.trimStart().startsWith('#')));
    assert.ok(bound.includes(`GRAPH <${description}>`));
    assert.ok(
      bound.includes(`GRAPH <${BASE}/data/links> { <${BASE}/resource/organisations/DE-1a>`),
    );
  });
  it('describe.rq names its description graph, its institution and the links graph', () =>
    assert.deepEqual([...queries.describe.placeholders].sort(), [
      'description',
      'institution',
      'links',
    ]));
  it('describeIris maps the graphs, not the institution, as the store names them', () => {
    const institution = institutionIriFor(BASE, 'DE-1a' as Isil);
    const iris = describeIris(institution, (graph) => `urn:v:${graph}` as CheckedIri)!;
    assert.deepEqual(iris, {
      description: `urn:v:${BASE}/data/organisations/DE-1a`,
      institution,
      links: `urn:v:${BASE}/data/links`,
    });
  });
  it('describeIris has nothing for an IRI that is not an institution', () =>
    assert.equal(describeIris(checkedIri(`${BASE}/resource/organisations/`)), undefined));
  it('binds a template without its comment lines, a `#` inside an IRI kept', () => {
    const text = `# a comment\nPREFIX v: <http://www.w3.org/2006/vcard/ns#>\n  # indented\nCONSTRUCT { ?s v:p ?o } WHERE { GRAPH ${PLACEHOLDER} { ?s v:p ?o } }`;
    const bound = new QueryTemplate('t', text, Algebra.types.CONSTRUCT).bind(checkedIri(DE_1A));
    assert.ok(!bound.split('\n').some((line) => line.trimStart().startsWith('#')));
    assert.ok(bound.includes('<http://www.w3.org/2006/vcard/ns#>'));
  });
});

describe('ValuesTemplate binds a slice of institutions through the algebra', () => {
  const queries = loadQueries();
  const ORG = '<http://xmlns.com/foaf/0.1/Organization>';
  const NAME = '<http://xmlns.com/foaf/0.1/name>';
  const iri = (n: number) => `${BASE}/resource/organisations/DE-${n}`;
  let store: DatasetStore;
  before(() => {
    store = new DatasetStore();
    const lines = [1, 2, 3, 4].map(
      (n) =>
        `<${iri(n)}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ${ORG} .\n<${iri(n)}> ${NAME} "N${n}" .`,
    );
    store.load(lines.join('\n'), 'nt', `${BASE}/`);
  });
  after(() => store.free());

  it('the VALUES block sits under GROUP BY, the rest of the algebra unchanged', () => {
    const bound = translate(queries.institutionsOf.bind([checkedIri(iri(1))]));
    const whole = translate(queries.institutions.text());
    const group = (op: Algebra.Operation): Algebra.Group =>
      op.type === Algebra.types.GROUP ? op : group((op as Algebra.Single).input);
    const values: Algebra.Values[] = [];
    Util.recurseOperation(group(bound).input, {
      [Algebra.types.VALUES]: (op: Algebra.Values) => (values.push(op), false),
    });
    assert.deepEqual(
      values.map((v) => [v.variables.map((x) => x.value), v.bindings.length]),
      [[['institution'], 1]],
    );
    assert.deepEqual(group(bound).aggregates, group(whole).aggregates);
  });

  it('answers exactly the rows of the whole query for the institutions bound', () => {
    const all = store.select(queries.institutions.text());
    const some = store.select(queries.institutionsOf.bind([2, 4].map((n) => checkedIri(iri(n)))));
    const key = (rows: typeof all) => rows.map((r) => JSON.stringify(r)).sort();
    assert.equal(all.length, 4);
    assert.deepEqual(
      key(some),
      key(all.filter((r) => [iri(2), iri(4)].includes(r.institution!.value))),
    );
  });

  it('a template that is no SELECT is refused', () =>
    assert.throws(
      () =>
        new ValuesTemplate(
          new QueryTemplate(
            't',
            'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }',
            Algebra.types.CONSTRUCT,
          ),
          'institution',
        ),
      QueryTemplateError,
    ));
});

describe('DatasetStore.describe on the real DE-1a document', () => {
  before(needsThirdParty);
  let store: DatasetStore;
  before(() => (store = storeOf(fs.readFileSync(DE_1A_RDF), 'rdf')));
  after(() => store.free());

  it('returns 63 distinct triples', () =>
    assert.equal(distinctLines(store.describe(checkedIri(DE_1A))).size, 63));
  it('returns the whole stored graph (the store holds only DE-1a)', () => {
    const described = parseNTriples(store.describe(checkedIri(DE_1A)));
    const stored = new Parser({ format: 'application/n-quads' }).parse(store.dump());
    assert.ok(stored.every((quad) => quad.graph.value === `${BASE}/data/organisations/DE-1a`));
    assert.ok(isomorphic(described, asTriples(stored)));
  });
  it('returns nothing for an unknown IRI', () => {
    assert.equal(store.describe(checkedIri(`${BASE}/resource/organisations/DE-2`)).trim(), '');
  });
  it('does not match the institution in another case', () => {
    assert.equal(store.describe(checkedIri(`${BASE}/resource/organisations/de-1a`)).trim(), '');
  });
});

describe('DatasetStore.describe with and without links', () => {
  before(needsThirdParty);
  const SAME = `<${DE_1A}> <http://www.w3.org/2002/07/owl#sameAs> <http://www.wikidata.org/entity/Q170109> <${BASE}/data/links> .\n`;
  let store: DatasetStore;
  before(() => (store = storeOf(fs.readFileSync(DE_1A_RDF), 'rdf')));
  after(() => store.free());

  it('reads the same description either way while the links graph is empty', () => {
    const withLinks = store.describe(checkedIri(DE_1A));
    assert.equal(store.readLinks(BASE), undefined);
    const own = store.describe(checkedIri(DE_1A));
    assert.ok(isomorphic(parseNTriples(own), parseNTriples(withLinks)));
    assert.equal(distinctLines(own).size, 63);
  });

  // The links graph's description as versions loaded before 2026-11-26 have it (void:Linkset);
  // the loader's own now describes a void:Dataset (test/system/remote/links.test.ts).
  it('serves the links once the store has read that it holds them', () => {
    store.load(SAME, 'nq');
    assert.doesNotMatch(store.describe(checkedIri(DE_1A)), /Q170109/, 'not looked for');
    const set = `<${BASE}/data/links>`;
    store.load(
      `${set} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://rdfs.org/ns/void#Linkset> ${set} .\n` +
        `${set} <http://purl.org/dc/terms/modified> "2023-09-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> ${set} .\n`,
      'nq',
    );
    const links = store.readLinks(BASE);
    assert.equal(links?.links, 1);
    assert.equal(links?.modified.toISOString(), '2023-09-01T00:00:00.000Z');
    assert.match(store.describe(checkedIri(DE_1A)), /Q170109/);
    assert.equal(distinctLines(store.describe(checkedIri(DE_1A))).size, 64);
  });
});

describe('DatasetStore.describe follows blank nodes', () => {
  const PREFIXES =
    '@prefix ex: <http://example.org/> . @prefix foaf: <http://xmlns.com/foaf/0.1/> . ' +
    '@prefix v: <http://www.w3.org/2006/vcard/ns#> .\n';
  const X = `${BASE}/resource/organisations/DE-X`;
  const OTHER = `${BASE}/resource/organisations/DE-Y`;

  it('returns every triple of blank nodes nested 3 levels deep, and no other institution', () => {
    const mine = `<${X}> a foaf:Organization ; ex:l1 [ ex:n "1" ; ex:l2 [ ex:n "2" ; ex:l3 [ ex:n "3" ] ] ] , [ ex:n "1b" ] .\n`;
    const store = storeOf(
      PREFIXES + mine + `<${OTHER}> a foaf:Organization ; ex:l1 [ ex:n "other" ] .`,
    );
    try {
      const described = parseNTriples(store.describe(checkedIri(X)));
      assert.ok(
        isomorphic(described, new Parser().parse(PREFIXES + mine)),
        store.describe(checkedIri(X)),
      );
    } finally {
      store.free();
    }
  });

  it(`returns a chain of ${MAX_BLANK_NODE_DEPTH} blank nodes whole`, () => {
    let nested = '[ ex:n "last" ]';
    for (let level = 1; level < MAX_BLANK_NODE_DEPTH; level++) nested = `[ ex:next ${nested} ]`;
    const turtle = `${PREFIXES}<${X}> ex:first ${nested} .`;
    const store = storeOf(turtle);
    try {
      assert.ok(
        isomorphic(parseNTriples(store.describe(checkedIri(X))), new Parser().parse(turtle)),
      );
    } finally {
      store.free();
    }
  });

  it('terminates on a blank-node cycle and returns each of its triples', () => {
    const turtle = `${PREFIXES}<${X}> ex:p _:a . _:a ex:next _:b . _:b ex:next _:a . _:a ex:self _:a .`;
    const store = storeOf(turtle);
    try {
      const text = store.describe(checkedIri(X));
      assert.equal(distinctLines(text).size, 4);
      assert.ok(
        isomorphic(parseNTriples([...distinctLines(text)].join('\n')), new Parser().parse(turtle)),
      );
    } finally {
      store.free();
    }
  });

  it('follows v:url to a named node, not other links (HTTP contract §3)', () => {
    const turtle = `${PREFIXES}<${X}> v:url <https://example.org/opac> ; foaf:homepage <https://example.org/> .
      <https://example.org/opac> ex:label "catalogue" . <https://example.org/> ex:label "not part of it" .`;
    const store = storeOf(turtle);
    try {
      const lines = [...distinctLines(store.describe(checkedIri(X)))];
      assert.equal(lines.length, 3);
      assert.ok(lines.some((line) => line.includes('"catalogue"')));
      assert.ok(!lines.some((line) => line.includes('not part of it')));
    } finally {
      store.free();
    }
  });
});

describe('DatasetStore.select reads the TSV results as the JSON results format has them', () => {
  const XSD = 'http://www.w3.org/2001/XMLSchema#';
  let store: DatasetStore;
  before(() => {
    store = new DatasetStore();
    store.load(
      '<http://a.example/s> <http://a.example/p1> "tab\\tnewline\\n\\"quoted\\" back\\\\slash ä" .\n' +
        '<http://a.example/s> <http://a.example/p2> "hallo"@de .\n' +
        `<http://a.example/s> <http://a.example/p3> "5"^^<${XSD}integer> .\n` +
        `<http://a.example/s> <http://a.example/p4> "true"^^<${XSD}boolean> .\n` +
        `<http://a.example/s> <http://a.example/p5> "1.5"^^<${XSD}decimal> .\n` +
        `<http://a.example/s> <http://a.example/p6> "2020-01-01T00:00:00"^^<${XSD}dateTime> .\n` +
        '<http://a.example/s> <http://a.example/p7> <http://a.example/o> .\n' +
        '<http://a.example/s> <http://a.example/p8> _:b .\n',
      'nt',
    );
  });
  after(() => store.free());

  it('every kind of term, and a variable left unbound', () => {
    const rows = store.select(
      'SELECT ?p ?o ?none WHERE { <http://a.example/s> ?p ?o OPTIONAL { ?o <http://a.example/none> ?none } } ORDER BY ?p',
    );
    const objects = rows.map((row) => {
      assert.equal(row.none, undefined);
      assert.equal(row.p?.type, 'uri');
      return row.o?.type === 'bnode' ? { type: 'bnode' } : row.o;
    });
    assert.deepEqual(objects, [
      { type: 'literal', value: 'tab\tnewline\n"quoted" back\\slash ä' },
      { type: 'literal', value: 'hallo', 'xml:lang': 'de' },
      { type: 'literal', value: '5', datatype: `${XSD}integer` },
      { type: 'literal', value: 'true', datatype: `${XSD}boolean` },
      { type: 'literal', value: '1.5', datatype: `${XSD}decimal` },
      { type: 'literal', value: '2020-01-01T00:00:00', datatype: `${XSD}dateTime` },
      { type: 'uri', value: 'http://a.example/o' },
      { type: 'bnode' },
    ]);
  });

  it('a language tag with a direction (RDF 1.2), split as the JSON results split it', () => {
    const store = new DatasetStore();
    try {
      store.load('<http://a.example/s> <http://a.example/p> "مرحبا"@ar--rtl .\n', 'nt');
      assert.deepEqual(store.select('SELECT ?o WHERE { ?s ?p ?o }'), [
        { o: { type: 'literal', value: 'مرحبا', 'xml:lang': 'ar', 'its:dir': 'rtl' } },
      ]);
    } finally {
      store.free();
    }
  });

  it('refuses a triple term, which no query of the project selects', () => {
    const store = new DatasetStore();
    try {
      store.load(
        '<http://a.example/s> <http://a.example/p> <<( <http://a.example/a> <http://a.example/b> <http://a.example/c> )>> .\n',
        'nt',
      );
      assert.throws(() => store.select('SELECT ?o WHERE { ?s ?p ?o }'), /triple term/);
    } finally {
      store.free();
    }
  });

  it('an aggregate, one solution without variables, and none', () => {
    assert.deepEqual(store.select('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }'), [
      { n: { type: 'literal', value: '8', datatype: `${XSD}integer` } },
    ]);
    assert.deepEqual(store.select('SELECT * WHERE { }'), [{}]);
    assert.deepEqual(store.select('SELECT ?x WHERE { FILTER(false) }'), []);
  });

  it('sees the triples in the graphs of descriptions (the default graph is their union)', () => {
    const placed = new DatasetStore();
    try {
      placed.load(`<${DE_1A}> <http://xmlns.com/foaf/0.1/name> "x" .\n`, 'nt');
      placed.placeDescriptions(BASE);
      assert.ok(placed.dump().includes(`<${BASE}/data/organisations/DE-1a> .`));
      assert.deepEqual(
        placed.select('SELECT ?n WHERE { ?s <http://xmlns.com/foaf/0.1/name> ?n }'),
        [{ n: { type: 'literal', value: 'x' } }],
      );
    } finally {
      placed.free();
    }
  });
});

// institutionIriFor: the only way from request input to query text takes an ISIL and nothing else.

describe('institutionIriFor', () => {
  for (const isil of ['DE-1a', 'DE-MUS-872815', 'GB-LO/N38', 'AT-9:UBW-002', 'ZDB-1-AAS4']) {
    it(`binds ${isil}`, () => {
      const query = loadQueries().describe.bind(institutionIriFor(BASE, isil as Isil));
      assert.ok(query.includes(`<${BASE}/resource/organisations/${isil}>`));
      assert.ok(!query.includes('urn:x-bind'));
    });
  }
  // Each of these is forced past the type checker, as a bug elsewhere could do.
  const forged = [
    'DE-1a> } ; DROP ALL #',
    'DE-1a>',
    'DE-1a\n',
    'DE-1a"',
    '../x',
    'DE-1a ',
    'DE-{1}',
    '',
    'DE-1a\\u003e',
    'x'.repeat(17),
    'DE-ä',
  ];
  for (const text of forged) {
    it(`refuses a forged ISIL ${JSON.stringify(text)}`, () =>
      assert.throws(() => institutionIriFor(BASE, text as Isil), QueryTemplateError));
  }
});
