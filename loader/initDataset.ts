// Command line: `npm run init-dataset` writes the bundled dataset's snapshot to DATASET when
// nothing is there yet, as database images initialise an empty volume (the container image runs
// it before the server). An existing file, whatever it holds, is left alone: the server decides
// whether it can serve it.
import fs from 'node:fs';
import { ConfigError, loadConfig } from '../src/config';
import { BUNDLED_DATASET } from '../src/paths';
import { LoadError, loadSources, writeSnapshot } from './loadSources';

export async function main(): Promise<number> {
  let target: string;
  let baseIri: string;
  try {
    ({ dataset: target, baseIri } = loadConfig());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error: ${error.message}\n`);
    return 2;
  }
  if (fs.lstatSync(target, { throwIfNoEntry: false }) !== undefined) {
    process.stdout.write(`${target} exists: left as it is\n`);
    return 0;
  }
  try {
    const loaded = await loadSources(BUNDLED_DATASET, { baseIri });
    const written = writeSnapshot(loaded, target);
    loaded.dataset.free();
    process.stdout.write(
      `${target}: the bundled dataset's snapshot written (${loaded.report.institutions} institutions, ${written.bytes} bytes, version ${written.version})\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof LoadError)) throw error;
    process.stderr.write(`init failed, nothing written: ${error.message}\n`);
    return 1;
  }
}

if (require.main === module) {
  main().then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`init failed, nothing written: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
