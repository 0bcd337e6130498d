// lobid-organisations' bulk JSON-LD lines as a source (docs/data.md): the real file of eight
// institutions loads, each institution's published fields (as the search reads them) the same
// as its PICA+ record's; and a folder's files the loader does not read are named in the report,
// with why, by loadSources and by `npm run load`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadSources, type LoadReport } from '../../src/load/loadSources';
import { flatRecord, type FlatRecord } from '../../src/record/flatRecord';
import type { Dataset } from '../../src/store/dataset';
import { PROJECT_ROOT } from '../../src/util/paths';
import { BASE, needsThirdParty, REAL_DATA, tempDir } from '../support';

const V = 'http://www.w3.org/2006/vcard/ns#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

const LOBID = path.join(REAL_DATA, 'lobid-organisations_jsonld-bulk_same-8-records.jsonl');
const PICA = path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat');

type Fields = Omit<FlatRecord, 'email' | 'illEmail' | 'phone' | 'otherNames'>;

/**
 * The flat records of every institution of `dataset`, by ISIL, without `modified` (lobid keeps
 * the day, not the time), and apart the contacts and other names, of which lobid keeps fewer.
 */
async function entries(
  dataset: Dataset,
): Promise<Map<string, { fields: Fields; contacts: Set<string> }>> {
  const found = new Map<string, { fields: Fields; contacts: Set<string> }>();
  for (const institution of dataset.institutions()) {
    const description = await dataset.describe(institution);
    const { email, illEmail, phone, otherNames, ...rest } = flatRecord(
      institution.isil,
      description,
    );
    const fields = { ...rest, modified: undefined };
    const contacts = new Set([
      ...otherNames,
      ...[email, illEmail, phone].filter((c) => c !== undefined),
      ...description.quads
        .filter((q) => [`${V}email`, `${RDF}value`].includes(q.predicate.value))
        .map((q) => q.object.value.replace(/^mailto:/, '')),
    ]);
    found.set(institution.isil, { fields, contacts });
  }
  return found;
}

describe("lobid-organisations' JSON-LD lines", function () {
  this.timeout(120_000);
  before(needsThirdParty);

  let folder: string;
  let report: LoadReport;
  let lobid: Map<string, { fields: Fields; contacts: Set<string> }>;
  let pica: Map<string, { fields: Fields; contacts: Set<string> }>;
  before(async () => {
    // The real file where it is, beside what a folder of sources also holds: a notes file, and
    // JSON Lines of another kind (the change log this service writes).
    folder = tempDir();
    fs.symlinkSync(LOBID, path.join(folder, path.basename(LOBID)));
    fs.writeFileSync(path.join(folder, 'SOURCES.md'), '# Where the files come from\n');
    fs.writeFileSync(path.join(folder, 'history.jsonl'), `{"history":1,"base":"${BASE}"}\n`);
    const fromLobid = await loadSources([folder], { baseIri: BASE });
    report = fromLobid.report;
    lobid = await entries(fromLobid.dataset);
    fromLobid.dataset.free();
    const fromPica = await loadSources([PICA], { baseIri: BASE });
    pica = await entries(fromPica.dataset);
    fromPica.dataset.free();
  });

  it('reads the bulk file as lobid lines: eight institutions', () => {
    assert.deepEqual(
      report.files.map((f) => [path.basename(f.file), f.format, f.records]),
      [[path.basename(LOBID), 'lobid', 8]],
    );
    assert.deepEqual([...lobid.keys()].sort(), [...pica.keys()].sort());
    assert.equal(report.skipped.length, 0);
  });

  it("publishes each institution's fields as its PICA+ record does", () => {
    for (const [isil, { fields }] of lobid) assert.deepEqual(fields, pica.get(isil)!.fields, isil);
  });

  it('its e-mail address and telephone number are among those of the PICA+ record', () => {
    for (const [isil, { contacts }] of lobid) {
      const picaContacts = pica.get(isil)!.contacts;
      for (const contact of contacts) assert.ok(picaContacts.has(contact), `${isil}: ${contact}`);
    }
  });

  it('names each file of the folder it does not read, with why', () => {
    assert.deepEqual(
      report.skippedFiles.map((s) => [path.basename(s.file), s.reason]),
      [
        ['SOURCES.md', 'unknown extension ".md": not a format the loader reads'],
        ['history.jsonl', "not lobid-organisations' JSON-LD lines"],
      ],
    );
  });

  it('npm run load prints a skipped-file line for each', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts'), '--quiet', folder],
      {
        cwd: PROJECT_ROOT,
        env: {
          ...process.env,
          DATASET: path.join(tempDir(), 'dataset.nq'),
          BASE_IRI: BASE,
          HISTORY_DIR: '',
          LOG_LEVEL: 'silent',
        },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.split('\n').filter((l) => l.startsWith('skipped-file\t'));
    assert.deepEqual(
      lines.map((l) => path.basename(l.split('\t')[1]!)),
      ['SOURCES.md', 'history.jsonl'],
    );
    assert.match(run.stdout, /^loaded 1 files: 8 institutions,/m);
  });

  it('a line that is not JSON refuses the file, naming the line', async () => {
    const broken = path.join(tempDir(), 'broken.jsonl');
    const [action, record] = fs.readFileSync(LOBID, 'utf8').split('\n');
    fs.writeFileSync(broken, `${action}\n${record}\n${action}\n{"isil": "DE-1a",\n`);
    await assert.rejects(
      loadSources([broken], { baseIri: BASE }),
      /broken\.jsonl:4:1: not a JSON line/,
    );
  });

  it('a document without an ISIL is skipped as malformed, the rest loaded', async () => {
    const odd = path.join(tempDir(), 'odd.jsonl');
    const [action, record] = fs.readFileSync(LOBID, 'utf8').split('\n');
    fs.writeFileSync(odd, `${action}\n${record}\n${action}\n{"name": "Nameless"}\n`);
    const { dataset, report: oddReport } = await loadSources([odd], { baseIri: BASE });
    dataset.free();
    assert.equal(dataset.institutionCount, 1);
    assert.deepEqual(
      oddReport.skipped.map((s) => [path.basename(s.origin), s.kind, s.reason]),
      [['odd.jsonl:4', 'malformed', 'no ISIL (its "isil" field)']],
    );
  });
});
