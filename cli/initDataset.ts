// Command line: `npm run init-dataset` writes the bundled dataset's snapshot to DATASET on a volume
// never initialised, as database images initialise an empty volume (the container image runs it
// before the server), and leaves a marker beside it. An existing file, whatever it holds, is left
// alone (the server decides whether it can serve it), and so is a snapshot missing from a volume
// initialised before: the server then refuses to start.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../src/config/config';
import { dataTime } from '../src/history/derived';
import { commitVersion } from '../src/load/commit/commitVersion';
import { BUNDLED_DATASET } from '../src/util/bundled';
import { LoadError, loadSources, type WrittenSnapshot } from '../src/load/loadSources';

/** The file beside the snapshot that says the volume was initialised once. */
export const INITIALISED = '.isil-ld-initialised';

export async function main(): Promise<number> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error: ${error.message}\n`);
    return 2;
  }
  const { dataset: target, baseIri } = config;
  if (fs.lstatSync(target, { throwIfNoEntry: false }) !== undefined) {
    process.stdout.write(`${target} exists: left as it is\n`);
    return 0;
  }
  // Only a volume never initialised is: a snapshot that went missing later is the operator's to
  // put back, and the server refuses to start without it rather than serve the bundled data.
  const marker = path.join(path.dirname(target), INITIALISED);
  if (fs.existsSync(marker)) {
    process.stderr.write(
      `${target} is missing, and ${marker} says this volume was initialised before: nothing written (npm run load writes a snapshot; remove the marker to have the bundled data written again)\n`,
    );
    return 0;
  }
  try {
    const loaded = await loadSources(BUNDLED_DATASET, { baseIri, snapshot: target });
    let written: WrittenSnapshot | undefined;
    try {
      // Its version's time is its data's, as a server serving the bundled sources shows it.
      ({ written } = await commitVersion(loaded, config, {
        time: dataTime(loaded.dataset, loaded.dataset.loadedAt),
      }));
    } finally {
      loaded.dataset.free();
    }
    fs.writeFileSync(marker, `${new Date().toISOString()} ${target}\n`);
    process.stdout.write(
      `${target}: the bundled dataset's snapshot written (${loaded.report.institutions} institutions, ${written?.bytes ?? 0} bytes, version ${loaded.dataset.version})\n`,
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
