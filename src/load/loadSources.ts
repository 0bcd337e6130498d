// Turns source files (RDF in every format, PICA+, the name and redirect lists) into a loaded
// Dataset, resolving ISILs held by several sources: the one loading path shared by the server and
// the command line. The pieces: which files (sources.ts) in which format (readers.ts), one load's
// state (load.ts), RDF files and snapshots (rdfFile.ts, snapshot.ts), limits (limits.ts),
// validation (validator.ts: the SHACL workers; validationQueue.ts: institutions sent to them).
import fs from 'node:fs';
import { RESOURCE_PATH } from '../rdf/iris';
import { Dataset } from '../store/dataset';
import { DatasetIndex } from '../store/datasetIndex';
import type { SelectBinding } from '../store/bindings';
import type { DatasetStore } from '../store/embedded/datasetStore';
import { holdsInstitution } from '../store/embedded/updates';
import { checkLiteral } from './limits';
import { Load } from './place/load';
import type { LinksPlaced } from './place/linkSet';
import { readPositions } from './place/positionSet';
import { LoadError, NoInstitutionError } from './loadError';
import { PicaFileError } from './read/pica/read';
import { loadRdf } from './place/rdfFile';
import { readerOf, type SourceFormat } from './read/readers';
import { readsRecords, type RecordReader } from './read/readers';
import { figure, hashFile } from './reading';
import type { Loaded, LoadOptions, LoadReport } from './report';
import { checkInstitutions, isStringTooLong, type Trailer } from './snapshot/snapshot';
import { expandSources, type SkippedFile } from './read/sources';
import { Validator, type Defect } from './describe/validator';
import { tally, ValidationQueue } from './describe/validationQueue';
import { versionHistory } from './commit/versionHistory';

/** Re-exported: the loading API the server, the command line and the tests use. */
export { LoadError, NoInstitutionError };
export type * from './report';
export { FORMAT_NAMES, type SourceFormat } from './read/readers';
export { MAX_INPUT_BYTES, MAX_LITERAL_LENGTH, MAX_NESTING_DEPTH } from './limits';
export { expandSources } from './read/sources';
export { MAX_SNAPSHOT_BYTES, snapshotHeader, type SnapshotHistory } from './snapshot/snapshot';
export { chunkedNQuads } from './snapshot/snapshotPieces';
export { writeSnapshot, type WrittenSnapshot } from './snapshot/snapshotWriter';
export type { CanonicalDataset, VersionHistory } from './describe/canonicalDataset';

/**
 * Loads every source into a new store, resolves ISILs held by several sources, rewrites `http://`
 * base IRIs, optionally validates, and returns the dataset with a report. Throws a LoadError for
 * the first file that is not well-formed; nothing is half-loaded (the store is freed). The event
 * loop turns between pieces of other sources (about a MiB), and every time slice (SLICE_MS) while a
 * snapshot loads and is indexed, so a server reloading in the background keeps answering.
 */
export async function loadSources(
  sources: readonly string[],
  options: LoadOptions,
): Promise<Loaded> {
  const { files, skipped } = expandSources(sources, options.format);
  const validator = options.validate
    ? await Validator.start({ workers: options.validationWorkers })
    : undefined;
  const load = new Load(options, files.length > 1, validator && new ValidationQueue(validator));
  try {
    options.onPhase?.('parse');
    let size = await readFiles(load, files);
    const from = sources.join(', ');
    // Before the costly steps (placing doubles a load's memory): nothing at all to serve.
    if (options.requireInstitutions && !holdsInstitution(load.store, options.baseIri))
      throw new NoInstitutionError(
        from,
        undefined,
        undefined,
        `holds no institution to serve: none of its ${figure(size)} triples makes a foaf:Organization of an IRI under ${options.baseIri}${RESOURCE_PATH}`,
      );
    // A triple two descriptions share is placed in both graphs: one quad more. Every triple of
    // the RDF sources passes here once (or was placed as it was read): its literal is checked.
    options.onPhase?.('descriptions');
    const placedFrom = load.placedFrom.length > 0 ? load.placedFrom.join(', ') : from;
    // A snapshot of this base read alone was placed before it was written: placed again, its
    // default graph would be loaded anew, cut from the descriptions' blank nodes it continues.
    const ownSnapshot = files.length === 1 && load.snapshot && load.placedFrom.length === 0;
    const placed =
      !(ownSnapshot || load.placedWhileRead) &&
      load.store.placeDescriptions(options.baseIri, (line) => checkLiteral(placedFrom, line));
    // One source's descriptions are whole once placed, unless its records cross; several sources
    // may state triples about a node that another's description links to.
    const combined = files.length > 1 || load.crossings.crossed;
    if (combined) load.store.completeDescriptions(options.baseIri);
    if (placed || combined) size = load.store.size;
    options.onPhase?.('index');
    // A snapshot's own index holds when it is the store's only source (not `combined`) and
    // nothing was placed since.
    const rows =
      load.snapshotRows !== undefined && !placed && !combined
        ? DatasetIndex.order(load.snapshotRows)
        : await Dataset.indexRows(load.store);
    const { linksPlaced, grew } = placeBeside(load, rows, options.baseIri);
    if (grew) size = load.store.size;
    const links = load.store.readLinks(options.baseIri);
    const dataset = await Dataset.fromRows(load.store, options.baseIri, '', rows, links);
    dataset.positions = readPositions(load.store, options.baseIri);
    if (load.snapshot && files.length === 1)
      checkInstitutions(load.snapshot.file, load.snapshot.trailer, dataset);
    if (options.requireInstitutions && dataset.institutionCount === 0)
      throw new NoInstitutionError(
        from,
        undefined,
        undefined,
        `holds no institution to serve (${figure(size)} triples, ${figure(dataset.withdrawnCount)} withdrawn ISILs, ${figure(dataset.warnings.length)} warnings)`,
      );
    const trailer = ownSnapshot && !combined ? load.snapshot?.trailer : undefined;
    const { read, defects } = await readCanonically(load, dataset, trailer, options);
    dataset.version = read.history.version;
    dataset.states = read.history.states;
    const report = reportOf(load, dataset, size, defects, linksPlaced, skipped);
    return { dataset, rows, ...read, report };
  } catch (error) {
    load.store.free();
    if (isStringTooLong(error))
      throw new LoadError(
        sources.join(', '),
        undefined,
        undefined,
        `more data than one load can hold (${(error as Error).message}; docs/loading.md)`,
      );
    throw error;
  } finally {
    await validator?.close();
  }
}

/**
 * The version's history, and the defects the shapes found. The canonical reading reads every
 * description: the shapes check those it reads as it goes, and the validation phase those it did
 * not read (none, unless the history was taken from a trailer or the states cache).
 */
async function readCanonically(
  load: Load,
  dataset: Dataset<DatasetStore>,
  trailer: Trailer | undefined,
  options: LoadOptions,
) {
  options.onPhase?.('canonicalisation');
  const sources = { sha256: load.hash.digest(), trailer };
  const check = load.checkDescriptions(dataset);
  const read = await versionHistory(dataset, sources, options, check);
  dataset.logVersion = trailer?.history;
  options.onPhase?.('validation');
  try {
    return { read, defects: await load.validated(dataset) };
  } catch (error) {
    read.canonical?.snapshot?.discard();
    throw error;
  }
}

/**
 * The links of links sources, for the live institutions the rows name (src/load/place/linkSet.ts), then
 * Wikidata's positions, joined to them through those links (src/load/place/positionSet.ts).
 */
function placeBeside(
  load: Load,
  rows: readonly SelectBinding[],
  baseIri: string,
): { linksPlaced: LinksPlaced | undefined; grew: boolean } {
  const linksPlaced = load.links.size > 0 ? load.links.place(load.store, baseIri, rows) : undefined;
  const positioned = load.positions.place(load.store, baseIri);
  return { linksPlaced, grew: linksPlaced !== undefined || positioned > 0 };
}

function reportOf(
  load: Load,
  dataset: Dataset<DatasetStore>,
  triples: number,
  defects: readonly Defect[][],
  linksPlaced: LinksPlaced | undefined,
  skippedFiles: readonly SkippedFile[],
): LoadReport {
  return {
    skippedFiles,
    links: dataset.links && {
      modified: dataset.links.modified.toISOString(),
      links: dataset.links.links,
      institutions: dataset.links.institutions,
      wikidata: dataset.links.wikidata,
      gnd: dataset.links.gnd,
      ...(linksPlaced && { withdrawn: linksPlaced.withdrawn, unknown: linksPlaced.unknown }),
    },
    files: load.files,
    institutions: dataset.institutionCount,
    withdrawn: dataset.withdrawnCount,
    triples,
    rewritten: load.rewritten,
    skipped: load.skipped,
    conflicts: load.conflictList(),
    defects: tally(defects),
    defective: defects.length,
    validated: load.options.validate === true,
    warnings: [...load.warnings, ...dataset.warnings],
    ...(dataset.positions && { positions: dataset.positions.size }),
    version: dataset.version,
  };
}

/**
 * Reads every file into the load, each by its format's reader; returns the store's size, counted as
 * few times as may be: each count is a pass over every quad (docs/benchmark.md, "a count of the
 * store's quads").
 */
async function readFiles(
  load: Load,
  files: readonly { file: string; format: SourceFormat }[],
): Promise<number> {
  let size = 0;
  load.inputBytes = files.reduce((sum, { file }) => sum + fs.statSync(file).size, 0);
  for (const { file, format } of files) {
    const before = size;
    const reader = readerOf(format);
    let records: number | undefined;
    if (readsRecords(reader)) {
      records = await readRecords(load, reader, file);
      size = load.store.size;
    } else size = (await loadRdf(load, file, reader.storeFormat)) ?? load.store.size;
    load.files.push({ file, format, records, triples: size - before });
  }
  return size;
}

/** Reads the records of `file` into the load; returns how many it read. */
async function readRecords(load: Load, reader: RecordReader, file: string): Promise<number> {
  hashFile(file, load.hash);
  let records = 0;
  const context = { baseIri: load.options.baseIri, blankNodePrefix: () => load.blankNodePrefix() };
  try {
    for (const record of reader.records(file, context)) {
      records++;
      if (records % 1000 === 0)
        load.options.onProgress?.('reading records', records, undefined, 'records');
      await load.add(record, file);
    }
  } catch (error) {
    if (error instanceof PicaFileError)
      throw new LoadError(file, undefined, undefined, `${error.position}: ${error.reason}`);
    throw error;
  }
  await load.flush();
  return records;
}
