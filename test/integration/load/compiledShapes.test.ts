// The shapes compiled into direct checks report what shacl-engine reports: for every institution of
// every fixture (as the describe stage validates it: its canonical description) and of the bench's
// 17,000 generated institutions, the same defects (class, focus node, message with the value) in
// the same order, which is what the load report shows. Shapes the compiler does not compile are
// refused, naming what, before a load reads anything.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Parser, Writer } from 'n3';
import { generate } from '../../../cli/generate';
import {
  compiledShapes,
  compileShapes,
  type Shapes,
} from '../../../src/load/describe/compiledShapes';
import { defectsOf, describeBatch } from '../../../src/load/describe/describeBatch';
import { DescribePool } from '../../../src/load/describe/describePool';
import { loadSources } from '../../../src/load/loadSources';
import { SHAPES_FILE, ShapesError, type Defect } from '../../../src/load/describe/shapes';
import { splitNTriples, type Triple } from '../../../src/rdf/ntriples';
import { checkedIri } from '../../../src/store/queries';
import { BASE, FIXTURES, tempDir } from '../../support';
import { shaclEngine } from '../../support/shaclEngine';

const FOAF_ORGANIZATION = 'http://xmlns.com/foaf/0.1/Organization';
const FIXTURE_FILES = ['validate', 'test'].flatMap((dir) =>
  fs
    .readdirSync(path.join(FIXTURES, dir))
    .filter((name) => name.endsWith('.ttl'))
    .map((name) => path.join(FIXTURES, dir, name)),
);

interface Institution {
  readonly iri: string;
  readonly triples: Triple[];
}

/**
 * The institutions of `file` as the describe stage validates them (each one's canonical
 * description, read from the store), and the whole file as written, as one institution (with the
 * withdrawn ones, which the loader does not check).
 */
async function institutionsOf(file: string): Promise<Institution[]> {
  const whole = new Parser({ baseIRI: `${BASE}/` }).parse(fs.readFileSync(file, 'utf8'));
  const first = whole.find((q) => q.object.value === FOAF_ORGANIZATION)!.subject.value;
  const asWritten = {
    iri: first,
    triples: splitNTriples(new Writer({ format: 'N-Triples' }).quadsToString(whole)),
  };
  const { dataset } = await loadSources([file], { baseIri: BASE, validate: false });
  try {
    const jobs = [...dataset.institutions()].map((i, n) => ({
      subject: { isil: i.isil, iri: i.iri, live: true, graph: `<${i.iri}>` },
      n,
      own: dataset.store.describe(checkedIri(i.iri)),
      linked: undefined,
      shared: [],
      validate: false,
    }));
    return describeBatch({ baseIri: BASE, jobs }, undefined)
      .map((made, k) => ({ iri: jobs[k]!.subject.iri, triples: splitNTriples(made.text) }))
      .concat(asWritten);
  } finally {
    dataset.store.free();
  }
}

describe('the compiled shapes', function () {
  this.timeout(300_000);
  let compiled: Shapes;
  let reference: (iri: string, triples: readonly Triple[]) => Promise<Defect[]>;
  before(async () => {
    compiled = compiledShapes(SHAPES_FILE);
    reference = await shaclEngine(SHAPES_FILE);
  });

  /** The defects each engine finds in each institution. */
  const both = async (institutions: readonly Institution[]) => {
    const found = { compiled: [] as Defect[][], reference: [] as Defect[][] };
    for (const { iri, triples } of institutions) {
      found.compiled.push(defectsOf(compiled, iri, triples));
      found.reference.push(await reference(iri, triples));
    }
    return found;
  };

  for (const file of FIXTURE_FILES)
    it(`report what shacl-engine reports for ${path.relative(FIXTURES, file)}`, async () => {
      const found = await both(await institutionsOf(file));
      assert.deepEqual(found.compiled, found.reference);
    });

  it('report what shacl-engine reports for the 17,000 generated institutions of the bench', async () => {
    const institutions: Institution[] = [];
    for (const text of generate({ count: 17_000, seed: 1, base: BASE }))
      institutions.push({ iri: /^<([^>]+)>/.exec(text)![1]!, triples: splitNTriples(text) });
    const found = await both(institutions);
    const defects = found.reference.reduce((n, d) => n + d.length, 0);
    assert.ok(defects > 1000, `the generated set has defects to compare (${defects})`);
    for (const [i, defects] of found.reference.entries())
      assert.deepEqual(found.compiled[i], defects, institutions[i]!.iri);
  });

  it('refuse shapes they do not compile before a load reads anything, naming what', () => {
    const shapesFile = path.join(tempDir(), 'closed.ttl');
    fs.writeFileSync(
      shapesFile,
      `@prefix : <#> . @prefix sh: <http://www.w3.org/ns/shacl#> .
       @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
       :Closed sh:targetClass <http://xmlns.com/foaf/0.1/Organization> ; :defect "no-name" ;
         sh:message "closed" ; sh:closed true ; sh:ignoredProperties ( rdf:type ) .`,
    );
    assert.throws(
      () => DescribePool.start({ validate: true, shapesFile, workers: 1 }),
      (e: Error) =>
        e instanceof ShapesError && /closed\.ttl: .*closed is not compiled/.test(e.message),
    );
  });

  it('refuse a shape that uses what they do not compile, naming it', () => {
    const shapes = new Parser().parse(
      '<http://x/S> <http://www.w3.org/ns/shacl#targetClass> <http://x/C> ; <http://www.w3.org/ns/shacl#closed> true .',
    );
    assert.throws(
      () => compileShapes(shapes),
      (e: Error) => e instanceof ShapesError && /closed is not compiled/.test(e.message),
    );
  });

  it('refuse the components the published shapes do not use, naming them', () => {
    const refused = {
      and: 'sh:and ( [ sh:path <http://x/p> ; sh:minCount 1 ] )',
      xone: 'sh:xone ( [ sh:path <http://x/p> ; sh:minCount 1 ] )',
      minLength: 'sh:property [ sh:path <http://x/p> ; sh:minLength 2 ]',
      qualifiedMinCount:
        'sh:property [ sh:path <http://x/p> ; sh:qualifiedValueShape [ sh:pattern "a" ] ; sh:qualifiedMinCount 1 ]',
      targetNode: 'sh:targetNode <http://x/n>',
      deactivated: 'sh:deactivated true',
    };
    for (const [component, use] of Object.entries(refused)) {
      const shapes = new Parser().parse(
        `@prefix sh: <http://www.w3.org/ns/shacl#> . <http://x/S> sh:targetClass <http://x/C> ; ${use} .`,
      );
      assert.throws(
        () => compileShapes(shapes),
        (e: Error) =>
          e instanceof ShapesError && e.message.endsWith(`shacl#${component} is not compiled`),
        component,
      );
    }
    const inverse = new Parser().parse(
      `@prefix sh: <http://www.w3.org/ns/shacl#> . <http://x/S> sh:targetClass <http://x/C> ;
       sh:property [ sh:path [ sh:inversePath <http://x/p> ] ; sh:minCount 1 ] .`,
    );
    assert.throws(
      () => compileShapes(inverse),
      (e: Error) =>
        e instanceof ShapesError && /only predicates, sequences and alternatives/.test(e.message),
    );
  });
});
