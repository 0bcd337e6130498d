// Command line: `npm run load -- [--format F] <files or folders…>` loads the sources and replaces
// the snapshot at DATASET, or leaves it as it was when any file is broken.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config';
import type { StoreFormat } from '../src/store/datasetStore';
import {
  FORMAT_NAMES,
  LoadError,
  loadSources,
  writeSnapshot,
  type LoadReport,
} from './loadSources';

const USAGE = `usage: npm run load -- [--format ${FORMAT_NAMES.join('|')}] <file or folder>…
Reads the sources (format by extension unless --format is given) and replaces the snapshot at
$DATASET with exactly what they hold.`;

function printReport(report: LoadReport, target: string, bytes: number): void {
  const out = process.stdout;
  for (const f of report.files) out.write(`file\t${f.file}\t${f.format}\t${f.triples} triples\n`);
  if (report.rewritten > 0) {
    out.write(
      `rewritten\t${report.rewritten} triples with http:// base IRIs served under the configured base\n`,
    );
  }
  for (const w of report.warnings) out.write(`warning\t${w.kind}\t${w.subject}\t${w.message}\n`);
  out.write(
    `loaded ${report.files.length} files: ${report.institutions} institutions, ${report.triples} triples, ` +
      `${report.warnings.length} warnings; snapshot ${target} (${bytes} bytes, version ${report.version}); ` +
      `peak memory ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`,
  );
}

export function main(argv: readonly string[]): number {
  let args: ReturnType<
    typeof parseArgs<{
      options: { format: { type: 'string' }; help: { type: 'boolean' } };
      allowPositionals: true;
    }>
  >;
  try {
    args = parseArgs({
      args: [...argv],
      options: { format: { type: 'string' }, help: { type: 'boolean' } },
      allowPositionals: true,
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const format = args.values.format as StoreFormat | undefined;
  if (format !== undefined && !FORMAT_NAMES.includes(format)) {
    process.stderr.write(
      `--format: expected one of ${FORMAT_NAMES.join(', ')}, got ${JSON.stringify(format)}\n`,
    );
    return 2;
  }
  if (args.positionals.length === 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  try {
    const config = loadConfig();
    const { dataset, report } = loadSources(args.positionals, {
      baseIri: config.baseIri,
      ...(format ? { format } : {}),
    });
    const bytes = writeSnapshot(dataset, config.dataset);
    dataset.free();
    printReport(report, config.dataset, bytes);
    return 0;
  } catch (error) {
    if (error instanceof LoadError || error instanceof ConfigError) {
      process.stderr.write(`load failed, snapshot unchanged: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
