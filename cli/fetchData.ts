// Command line: `npm run fetch-data` puts every third-party file of data/sources.json into
// data/third-party/, from THIRD_PARTY_DIR (a folder holding them by name) or from each file's
// origin, checked against its SHA-256. One line for each file refused; exit 1 if any was.
// `--bundled` fetches the bundled dataset's files alone (the container image's build does).
import { loadConfig, ConfigError } from '../src/config/config';
import { BUNDLED_NAMES } from '../src/util/bundled';
import { fetchThirdParty, THIRD_PARTY_FOLDER, type Fetched } from '../src/util/thirdParty';

const USAGE = 'usage: [THIRD_PARTY_DIR=<folder>] npm run fetch-data [-- --bundled | NAME ...]';

export async function main(argv: readonly string[]): Promise<number> {
  const bundled = argv.length === 1 && argv[0] === '--bundled';
  if (!bundled && argv.some((arg) => arg.startsWith('-'))) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let from: string | undefined;
  try {
    from = loadConfig().thirdPartyDir;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error: ${error.message}\n`);
    return 2;
  }
  let outcomes: Fetched[];
  try {
    outcomes = await fetchThirdParty({
      ...(bundled ? { names: BUNDLED_NAMES } : argv.length > 0 ? { names: argv } : {}),
      ...(from ? { from } : {}),
    });
  } catch (error) {
    process.stderr.write(`fetch-data: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const count = (outcome: Fetched['outcome']) =>
    outcomes.filter((o) => o.outcome === outcome).length;
  for (const o of outcomes)
    if (o.outcome === 'failed') process.stderr.write(`fetch-data: ${o.reason}\n`);
  process.stderr.write(
    `fetch-data: ${count('fetched')} fetched, ${count('present')} already there, ${count('failed')} failed, into ${THIRD_PARTY_FOLDER} (from ${from ?? 'their origins'})\n`,
  );
  return count('failed') > 0 ? 1 : 0;
}

if (require.main === module)
  void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
