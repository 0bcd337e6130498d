// The shapes compiled into direct checks report what shacl-engine reports: for every institution of
// every fixture (as the loader hands it to the validator: its description from the store) and of
// the bench's 17,000 generated institutions, the same defects (class, focus node, message with the
// value) in the same order, which is what the load report shows. Shapes the compiler does not
// compile are refused, naming what, and run by shacl-engine.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Parser, Writer } from 'n3';
import { generate } from '../../../cli/generate';
import { compileShapes } from '../../../src/load/describe/compiledShapes';
import { loadSources } from '../../../src/load/loadSources';
import { ShapesError } from '../../../src/load/describe/shapes';
import { Validator, type Defect, type Institution } from '../../../src/load/describe/validator';
import { checkedIri } from '../../../src/store/queries';
import { BASE, FIXTURES, tempDir } from '../../support';

const FOAF_ORGANIZATION = 'http://xmlns.com/foaf/0.1/Organization';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const FIXTURE_FILES = ['validate', 'test'].flatMap((dir) =>
  fs
    .readdirSync(path.join(FIXTURES, dir))
    .filter((name) => name.endsWith('.ttl'))
    .map((name) => path.join(FIXTURES, dir, name)),
);

/**
 * The institutions of `file` as the loader validates them (each one's description from the store),
 * and the whole file as written, as one text (the withdrawn ones, which the loader does not check).
 */
async function institutionsOf(file: string): Promise<Institution[]> {
  const whole = new Parser({ baseIRI: `${BASE}/` }).parse(fs.readFileSync(file, 'utf8'));
  const first = whole.find((q) => q.object.value === FOAF_ORGANIZATION)!.subject.value;
  const asWritten = {
    iri: first,
    ntriples: new Writer({ format: 'N-Triples' }).quadsToString(whole),
  };
  const { dataset } = await loadSources([file], { baseIri: BASE, validate: false });
  try {
    return [...dataset.institutions()]
      .map((i) => {
        const iri = `${BASE}/resource/organisations/${i.isil}`;
        return { iri, ntriples: dataset.store.describe(checkedIri(iri)) };
      })
      .concat(asWritten);
  } finally {
    dataset.store.free();
  }
}

/** The defects each engine finds in `institutions`, in batches as the loader sends them. */
async function bothEngines(
  compiled: Validator,
  reference: Validator,
  institutions: readonly Institution[],
): Promise<{ compiled: Defect[][]; reference: Defect[][] }> {
  const found = { compiled: [] as Defect[][], reference: [] as Defect[][] };
  for (let at = 0; at < institutions.length; at += 200) {
    const batch = institutions.slice(at, at + 200);
    const [c, r] = await Promise.all([compiled.validate(batch), reference.validate(batch)]);
    found.compiled.push(...c);
    found.reference.push(...r);
  }
  return found;
}

describe('the compiled shapes', function () {
  this.timeout(300_000);
  let compiled: Validator;
  let reference: Validator;
  before(async () => {
    compiled = await Validator.start({ workers: 1, engine: 'compiled' });
    reference = await Validator.start({ workers: 1, engine: 'shacl-engine' });
  });
  after(async () => {
    await compiled.close();
    await reference.close();
  });

  for (const file of FIXTURE_FILES)
    it(`report what shacl-engine reports for ${path.relative(FIXTURES, file)}`, async () => {
      const institutions = await institutionsOf(file);
      const found = await bothEngines(compiled, reference, institutions);
      assert.deepEqual(found.compiled, found.reference);
    });

  it('report what shacl-engine reports for the 17,000 generated institutions of the bench', async () => {
    const institutions: Institution[] = [];
    for (const text of generate({ count: 17_000, seed: 1, base: BASE }))
      institutions.push({ iri: /^<([^>]+)>/.exec(text)![1]!, ntriples: text });
    const found = await bothEngines(compiled, reference, institutions);
    const defects = found.reference.reduce((n, d) => n + d.length, 0);
    assert.ok(defects > 1000, `the generated set has defects to compare (${defects})`);
    for (const [i, defects] of found.reference.entries())
      assert.deepEqual(found.compiled[i], defects, institutions[i]!.iri);
  });

  it('leave shapes they do not compile to shacl-engine, with its results', async () => {
    const shapesFile = path.join(tempDir(), 'closed.ttl');
    fs.writeFileSync(
      shapesFile,
      `@prefix : <#> . @prefix sh: <http://www.w3.org/ns/shacl#> .
       @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
       :Closed sh:targetClass <http://xmlns.com/foaf/0.1/Organization> ; :defect "no-name" ;
         sh:message "closed" ; sh:closed true ; sh:ignoredProperties ( rdf:type ) .`,
    );
    const validator = await Validator.start({ workers: 1, shapesFile });
    try {
      const iri = `${BASE}/resource/organisations/DE-X1`;
      const ntriples = `<${iri}> <${RDF_TYPE}> <${FOAF_ORGANIZATION}> .\n<${iri}> <http://xmlns.com/foaf/0.1/name> "X" .\n`;
      const [defects] = await validator.validate([{ iri, ntriples }]);
      assert.deepEqual(defects, [{ defect: 'no-name', focus: iri, message: 'closed: X' }]);
    } finally {
      await validator.close();
    }
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
});
