// Where the project's own files are (src/util/paths.ts), found from the module whether it runs
// from src/ or from a compiled dist/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT, QUERY_DIR } from '../../../src/util/paths';

describe('the project paths', () => {
  it('find the folder of the project’s package.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      name: string;
    };
    assert.equal(pkg.name, 'isil-ld');
  });

  it('find the query templates below it', () => {
    assert.equal(QUERY_DIR, path.join(PROJECT_ROOT, 'queries'));
    assert.ok(fs.existsSync(path.join(QUERY_DIR, 'describe.rq')));
  });
});
