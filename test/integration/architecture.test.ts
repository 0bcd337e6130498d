// The architecture's rules are lint rules (eslint.config.mjs): a wrong arrow between the layers or
// between the loader's stages, an adapter known above the store port, src/ reaching into cli/, a file over 400 lines or a
// function over 80, an HttpError made outside src/http/errors.ts fail `npm run lint`. Each rule is tried here on a file it must refuse and on
// one it must let through, so that a rule that quietly stops matching fails this test.
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';
import { PROJECT_ROOT } from '../../src/util/paths';

const eslint = new ESLint({ cwd: PROJECT_ROOT });

/** The rules that fail `code` as the file `file` (relative to the project). */
async function broken(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(PROJECT_ROOT, file) });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

const importing = (from: string) => `import { x } from '${from}';\nexport const y = x;\n`;
const RESTRICTED = 'no-restricted-imports';

describe('the architecture, as lint rules', function () {
  this.timeout(30_000);

  const wrong: [string, string][] = [
    ['src/rdf/turtle2.ts', '../store/queries'],
    ['src/rdf/turtle2.ts', '../http/app'],
    ['src/store/dataset2.ts', '../documents/documents'],
    ['src/store/dataset2.ts', './embedded/datasetStore'],
    ['src/store/dataset2.ts', './remote/sparqlStore'],
    ['src/store/embedded/store2.ts', '../../http/respond'],
    ['src/store/embedded/storeThread2.ts', '../../documents/documents'],
    ['src/documents/documents2.ts', '../http/respond'],
    ['src/documents/documents2.ts', '../store/embedded/storeThread'],
    ['src/documents/documents2.ts', '../process/metrics'],
    ['src/pages/frame2.ts', '../http/deps'],
    ['src/pages/frame2.ts', '../documents/documents'],
    ['src/record/flatRecord2.ts', '../search/searchIndex'],
    ['src/http/respond2.ts', '../store/embedded/storeThread'],
    ['src/http/respond2.ts', '../store/remote/sparqlStore'],
    ['src/http/respond2.ts', '../process/reloader'],
    ['src/http/respond2.ts', '../load/loadSources'],
    ['src/load/sources2.ts', '../documents/documents'],
    ['src/load/sources2.ts', '../store/remote/sparqlStore'],
    ['src/store/remote/store2.ts', '../embedded/storeThread'],
    ['src/store/remote/store2.ts', '../../load/loadSources'],
    ['src/rdf/turtle2.ts', '../store/embedded/storeThread'],
    ['src/main2.ts', './store/embedded/storeThread'],
    ['src/main2.ts', './store/remote/sparqlStore'],
    ['src/process/listen2.ts', '../store/embedded/staffPool'],
    ['src/process/reloader2.ts', '../store/remote/staffRemote'],
    ['src/util/paths2.ts', '../rdf/iris'],
    ['src/util/logger2.ts', '../config/config'],
    ['src/config/config2.ts', '../process/connectionCap'],
    ['src/threads/client2.ts', '../store/store'],
    ['src/config/config2.ts', '../../cli/generate'],
    ['src/mapping/pica/read2.ts', '../../../cli/sru'],
    ['src/mapping/pica/read2.ts', '../../load/loadError'],
    ['src/load/commit/commit2.ts', '../../update/applyUpdate'],
    ['src/store/embedded/store2.ts', '../../update/applyUpdate'],
  ];
  for (const [file, from] of wrong)
    it(`refuses ${from} in ${file}`, async () =>
      assert.ok((await broken(file, importing(from))).includes(RESTRICTED)));

  const right: [string, string][] = [
    ['src/http/respond2.ts', '../documents/documents'],
    ['src/http/respond2.ts', '../pages/frame'],
    ['src/http/respond2.ts', '../store/store'],
    ['src/documents/documents2.ts', '../store/dataset'],
    ['src/documents/documents2.ts', '../pages/institutionPage'],
    ['src/pages/frame2.ts', '../record/flatRecord'],
    ['src/search/searchIndex2.ts', '../record/flatRecord'],
    ['src/store/dataset2.ts', '../rdf/iris'],
    ['src/store/embedded/storeThread2.ts', '../../load/loadSources'],
    ['src/store/embedded/storeThread2.ts', './datasetStore'],
    ['src/load/sources2.ts', '../store/embedded/datasetStore'],
    ['src/load/sources2.ts', '../store/dataset'],
    ['src/store/remote/store2.ts', '../dataset'],
    ['src/process/adapters.ts', '../store/embedded/storeThread'],
    ['src/process/adapters.ts', '../store/remote/sparqlStore'],
    ['src/main2.ts', './process/adapters'],
    ['src/main2.ts', './store/store'],
    ['cli/load2.ts', '../src/load/loadSources'],
    ['src/update/apply2.ts', '../load/loadSources'],
    ['src/update/apply2.ts', '../load/commit/commitVersion'],
    ['src/load/read/readers2.ts', '../../mapping/pica/convert'],
  ];
  for (const [file, from] of right)
    it(`lets ${file} import ${from}`, async () =>
      assert.deepEqual(await broken(file, importing(from)), []));

  it('the store names nothing of the loader, not even its types', async () => {
    for (const file of ['src/store/store2.ts', 'src/store/dataset2.ts'])
      assert.ok(
        (
          await broken(file, `import type { x } from '../load/loadSources';\nexport type y = x;\n`)
        ).includes(RESTRICTED),
      );
  });

  it('the store port takes only the types of history/, the adapters its code too', async () => {
    const TYPED = '@typescript-eslint/no-restricted-imports';
    const value = `import { MemoryHistory } from '../history/memory';\nexport const y = MemoryHistory;\n`;
    const type = `import type { History } from '../history/model';\nexport type y = History;\n`;
    assert.ok((await broken('src/store/dataset2.ts', value)).includes(TYPED));
    assert.deepEqual(await broken('src/store/dataset2.ts', type), []);
    assert.deepEqual(
      await broken('src/store/remote/history2.ts', importing('../../history/memory')),
      [],
    );
  });

  it('a stage of the loader imports nothing of a later one but its types', async () => {
    const TYPED = '@typescript-eslint/no-restricted-imports';
    const type = (from: string) => `import type { x } from '${from}';\nexport type y = x;\n`;
    const later: [string, string][] = [
      ['src/load/read/sources2.ts', '../place/load'],
      ['src/load/read/lobid2.ts', '../describe/canonicalDataset'],
      ['src/load/place/load2.ts', '../describe/canonicalDataset'],
      ['src/load/describe/canonical2.ts', '../snapshot/snapshotFile'],
      ['src/load/snapshot/snapshot2.ts', '../commit/commitVersion'],
      ['src/load/commit/commit2.ts', '../loadSources'],
      ['src/load/limits.ts', './read/sources'],
      ['src/load/place/rdfFile2.ts', '../snapshot/snapshotPieces'],
    ];
    for (const [file, from] of later) {
      assert.ok((await broken(file, importing(from))).includes(TYPED), `${from} in ${file}`);
      assert.deepEqual(await broken(file, type(from)), [], `the types of ${from} in ${file}`);
    }
    const earlier: [string, string][] = [
      ['src/load/place/load2.ts', '../read/sources'],
      ['src/load/describe/canonical2.ts', '../place/load'],
      ['src/load/commit/commit2.ts', '../snapshot/snapshot'],
      ['src/load/read/sources2.ts', '../limits'],
      ['src/load/loadSources2.ts', './commit/commitVersion'],
      // The two arrows eslint.config.mjs names: a snapshot's format, read as a source is read,
      // and the snapshot's pieces, made by the canonical reading.
      ['src/load/read/sources2.ts', '../snapshot/snapshot'],
      ['src/load/place/rdfFile2.ts', '../snapshot/snapshot'],
      ['src/load/describe/canonical2.ts', '../snapshot/snapshotPieces'],
    ];
    for (const [file, from] of earlier)
      assert.deepEqual(await broken(file, importing(from)), [], `${from} in ${file}`);
  });

  it('refuses a file over 400 lines in src/ and cli/', async () => {
    const long = Array.from({ length: 401 }, (_, i) => `export const v${i} = ${i};`).join('\n');
    assert.ok((await broken('src/rdf/long.ts', `${long}\n`)).includes('max-lines'));
    assert.ok((await broken('cli/long.ts', `${long}\n`)).includes('max-lines'));
  });

  it('refuses an HttpError made anywhere but src/http/errors.ts', async () => {
    const code = (from: string) =>
      `import { HttpError } from '${from}';\nexport const e = () => new HttpError(400, 'x');\n`;
    assert.ok(
      (await broken('src/http/search2.ts', code('./errors'))).includes('no-restricted-syntax'),
    );
    assert.ok(
      (await broken('src/http/sparql/x2.ts', code('../errors'))).includes('no-restricted-syntax'),
    );
    assert.deepEqual(await broken('src/http/errors.ts', code('./errors')), []);
  });

  it('refuses a function over 80 lines', async () => {
    const body = Array.from({ length: 80 }, (_, i) => `  const v${i} = ${i}; void v${i};`);
    const code = `export function long(): void {\n${body.join('\n')}\n}\n`;
    assert.ok((await broken('src/rdf/long.ts', code)).includes('max-lines-per-function'));
  });
});
