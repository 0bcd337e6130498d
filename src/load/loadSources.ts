// Turns source files (RDF in every format, PICA+, the name and redirect lists) into a loaded
// Dataset, resolving ISILs held by several sources: the one loading path shared by the server and
// the command line. The pieces: which files (sources.ts) in which format (readers.ts), one load's
// state (load.ts), RDF files and snapshots (rdfFile.ts, snapshot.ts), limits (limits.ts), the
// describe stage's threads (describePool.ts: descriptions made canonical and validated).
import fs from 'node:fs';
import { descriptionIri, institutionIri, RESOURCE_PATH } from '../rdf/iris';
import { Dataset } from '../store/dataset';
import { DatasetIndex } from '../store/datasetIndex';
import type { DatasetStore } from '../store/embedded/datasetStore';
import { holdsInstitution } from '../store/embedded/updates';
import { checkLiteral } from './limits';
import { Load } from './place/load';
import { readPositions, type LinksPlaced } from './place/wikidataSets';
import { LoadError, NoInstitutionError, refused } from './loadError';
import { PicaFileError } from '../mapping/pica/read';
import { loadRdf } from './place/rdfFile';
import { readerOf, type SourceFormat } from './read/readers';
import { readsRecords, type RecordReader } from './read/readers';
import { figure, hashFile } from './reading';
import type { Loaded, LoadOptions, LoadReport } from './report';
import { checkInstitutions, isStringTooLong, type Trailer } from './snapshot/snapshot';
import { expandSources, type SkippedFile } from './read/sources';
import { DescribePool } from './describe/describePool';
import { tally, type Defect } from './describe/shapes';
import { checkedIri } from '../store/queries';
import type { Isil } from '../rdf/isil';
import { versionHistory } from './commit/versionHistory';

/** Re-exported: the loading API the server, the command line and the tests use. */
export { LoadError, NoInstitutionError };
export type * from './report';
export { FORMAT_NAMES, type SourceFormat } from './read/readers';
export { MAX_INPUT_BYTES, MAX_LITERAL_LENGTH, MAX_NESTING_DEPTH } from './limits';
export { MAX_SNAPSHOT_BYTES, snapshotHeader } from './snapshot/snapshot';
export { chunkedNQuads } from './snapshot/snapshotPieces';
export { writeSnapshot, type WrittenSnapshot } from './snapshot/snapshotWriter';

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
  const pool = DescribePool.start({ workers: options.workers, validate: options.validate });
  const load = new Load(options, files.length > 1);
  try {
    options.onPhase?.('parse');
    let size = await readFiles(load, files);
    const from = sources.join(', ');
    const empty = (reason: string) => new NoInstitutionError(from, undefined, undefined, reason);
    // Before the costly steps (placing doubles a load's memory): nothing at all to serve.
    if (options.requireInstitutions && !holdsInstitution(load.store, options.baseIri))
      throw empty(
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
    // The links of links sources, for the live institutions the rows name, then Wikidata's
    // positions, joined to them through those links.
    const linksPlaced =
      load.links.size > 0 ? load.links.place(load.store, options.baseIri, rows) : undefined;
    if (load.positions.place(load.store, options.baseIri) > 0 || linksPlaced)
      size = load.store.size;
    const links = load.store.readLinks(options.baseIri);
    const dataset = await Dataset.fromRows(load.store, options.baseIri, '', rows, links);
    dataset.positions = readPositions(load.store, options.baseIri);
    if (load.snapshot && files.length === 1)
      checkInstitutions(load.snapshot.file, load.snapshot.trailer, dataset);
    if (options.requireInstitutions && dataset.institutionCount === 0)
      throw empty(
        `holds no institution to serve (${figure(size)} triples, ${figure(dataset.withdrawnCount)} withdrawn ISILs, ${figure(dataset.warnings.length)} warnings)`,
      );
    const trailer = ownSnapshot && !combined ? load.snapshot?.trailer : undefined;
    const { read, defects } = await readCanonically(load, dataset, trailer, options, pool);
    dataset.version = read.history.version;
    dataset.states = read.history.states;
    const report = reportOf(load, dataset, size, defects, linksPlaced, skipped);
    return { dataset, rows, ...read, report };
  } catch (error) {
    load.store.free();
    if (isStringTooLong(error))
      throw refused(
        sources.join(', '),
        `more data than one load can hold (${(error as Error).message}; docs/loading.md)`,
      );
    throw error;
  } finally {
    await pool.close();
  }
}

/**
 * The version's history, and the defects the shapes found, in the order the report lists them.
 * The canonical reading describes every description: the shapes check those it reads as it goes,
 * and the validation phase, the same way, those it did not read (all of them when the history was
 * taken from a trailer or the states cache).
 */
async function readCanonically(
  load: Load,
  dataset: Dataset<DatasetStore>,
  trailer: Trailer | undefined,
  options: LoadOptions,
  pool: DescribePool,
) {
  options.onPhase?.('canonicalisation');
  const sources = { sha256: load.hash.digest(), trailer };
  const order = pool.validates ? load.validated(dataset) : [];
  const found = new Map<string, Defect[]>();
  const validation = {
    isils: new Set(order),
    found: (isil: string, defects: Defect[]) => found.set(isil, defects),
  };
  const read = await versionHistory(dataset, sources, options, pool, validation);
  dataset.logVersion = trailer?.history;
  options.onPhase?.('validation');
  const unread = order.filter((isil) => !found.has(isil));
  try {
    if (unread.length > 0) await validateApart(dataset, unread, pool, validation.found, options);
  } catch (error) {
    read.canonical?.snapshot?.discard();
    throw error;
  }
  if (order.length > 0)
    options.onProgress?.('validating', order.length, order.length, 'institutions');
  const defects = order.map((isil) => found.get(isil) ?? []).filter((d) => d.length > 0);
  return { read, defects };
}

/** Validates the descriptions of `isils` (live institutions), each read by its own query. */
async function validateApart(
  dataset: Dataset<DatasetStore>,
  isils: readonly string[],
  pool: DescribePool,
  found: (isil: string, defects: Defect[]) => void,
  options: LoadOptions,
): Promise<void> {
  const { baseIri, store } = dataset;
  const jobs = function* () {
    for (const [n, isil] of isils.entries()) {
      if (n % 500 === 0) options.onProgress?.('validating', n, isils.length, 'institutions');
      const iri = institutionIri(baseIri, isil as Isil);
      yield {
        subject: { isil, iri, live: true, graph: `<${descriptionIri(baseIri, isil as Isil)}>` },
        n,
        own: store.describe(checkedIri(iri)),
        linked: undefined,
        shared: [],
        validate: true,
      };
    }
  };
  await pool.describeAll(baseIri, jobs(), isils.length, (done, results) =>
    results.forEach((r, k) => found(done[k]!.subject.isil, r.defects ?? [])),
  );
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
      ...dataset.links,
      modified: dataset.links.modified.toISOString(),
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
    if (error instanceof PicaFileError) throw refused(file, `${error.position}: ${error.reason}`);
    throw error;
  }
  await load.flush();
  return records;
}
