// The project's OAI-PMH harvester (`npm run harvest -- --oai`) harvesting ListRecords in `rdf` of
// the bench's generated institutions from the project's own /oai, through every resumption token;
// prints the harvest's time and records a second. Run alone: `npx tsx test/bench/oaiHarvester.ts`.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { harvestOai } from '../../cli/oaiHarvest';
import { parseOaiCommandLine } from '../../cli/oaiCommand';
import { tempDir } from '../support';
import { generatedSnapshot, startServerProcess } from '../support/serverProcess';

const { values } = parseArgs({ options: { count: { type: 'string', default: '17000' } } });
const COUNT = Number(values.count);
const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const server = await startServerProcess({
    env: { DATASET: generatedSnapshot(COUNT), BASE_IRI: 'https://ld.zdb-services.de' },
  });
  const dir = tempDir();
  try {
    const url = `http://127.0.0.1:${server.port}/oai`;
    // The first list waits for the search index the repository reads its records from.
    for (let ready = false; !ready;) {
      const res = await fetch(`${url}?verb=ListIdentifiers&metadataPrefix=rdf`);
      ready = res.status === 200;
      await res.arrayBuffer();
      if (!ready) await new Promise((r) => setTimeout(r, 500));
    }
    const out = path.join(dir, 'own.rdf');
    const options = parseOaiCommandLine(
      ['--oai', url, '--metadata-prefix', 'rdf', '--out', out, '--rate', '100', '--quiet'],
      'bench',
    );
    if (options === 'help') throw new Error('help');
    const report = await harvestOai(options);
    const seconds = report.ms / 1000;
    log(
      `| oai harvest by our harvester (ListRecords rdf, ${COUNT} institutions) | ${report.records} records in ${report.pages} pages | ${seconds.toFixed(1)} s | ${Math.round(report.records / seconds)} records/s (goal >= 200) |`,
    );
    log(`oai harvester: wrote ${report.bytes} bytes of RDF/XML`);
  } finally {
    server.child.kill('SIGTERM');
    await server.exit;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`oai harvester failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
