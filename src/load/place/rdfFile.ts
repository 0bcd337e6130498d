// Reading an RDF file into a load: the first file straight into its store, later ones into a
// store of their own to be weighed first; snapshots this loader wrote in pieces, only when whole.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { otherScheme } from '../../rdf/iris';
import { DatasetStore, type StoreFormat } from '../../store/embedded/datasetStore';
import { rewriteHttpBase } from '../../store/embedded/updates';
import { nextTurn, TimeSlicer, UNCONTENDED_STEP_MS } from '../../util/timeSlice';
import { checkJsonDepth, checkLiteral, checkLiterals, checkXml } from '../limits';
import type { Load } from './load';
import { LoadError, locate } from '../loadError';
import { CHUNK_BYTES, chunks, countLines, readHashed, type Hasher } from '../reading';
import { placedPieces, planDescriptions } from './placedNTriples';
import { servedContextInline } from '../read/servedContext';
import {
  checkTrailer,
  CHUNK_MARK,
  markedTexts,
  readTrailer,
  SNAPSHOT_CHUNK_BYTES,
  snapshotBase,
  trailerRows,
} from '../snapshot/snapshot';

/**
 * Loads an RDF file. The first file goes straight into the store; later ones into a store of
 * their own first, so that their institutions can be weighed against those already held and the
 * losers removed before anything is merged. Snapshots this loader wrote are loaded in pieces,
 * with a turn of the event loop between, and only when whole: their trailer is read first, and
 * what was read is checked against it.
 */
export async function loadRdf(
  load: Load,
  file: string,
  format: StoreFormat,
): Promise<number | undefined> {
  await load.flush();
  const direct = load.store.size === 0;
  const target = direct ? load.store : new DatasetStore();
  let read: Awaited<ReturnType<typeof readRdf>>;
  try {
    read = await readRdf(load, target, direct, file, format);
    if (read.placed) load.placedWhileRead = true;
    else if (!read.ours) {
      target.mergeGraphs();
      load.rewritten += rewriteHttpBase(target, load.options.baseIri);
      // Its triples are placed with the rest at the end, where its literals are checked.
      if (direct) load.placedFrom.push(file);
    }
    if (load.resolving) load.register(target, file);
    else load.unregistered = true;
    load.removeOutweighed();
    if (!direct) {
      const nquads = target.dump();
      // Checked here, where the file they come from is known.
      if (!read.ours) checkLiterals(file, nquads);
      load.store.load(nquads, 'nq', undefined, true);
    }
  } finally {
    if (!direct) target.free();
  }
  await nextTurn();
  return read.size;
}

/**
 * Reads `file` into `target` (the load's store when `direct`): a snapshot of this base in pieces,
 * checked against its trailer; anything else through the store's parser. Returns whether it was a
 * snapshot of this base, and the store's size when that was counted (each count is a pass over
 * every quad).
 */
async function readRdf(
  load: Load,
  target: DatasetStore,
  direct: boolean,
  file: string,
  format: StoreFormat,
): Promise<{ ours: boolean; size: number | undefined; placed: boolean }> {
  let size: number | undefined;
  const fd = fs.openSync(file, 'r');
  let ours = false;
  let placed = false;
  try {
    const base = format === 'nq' ? snapshotBase(fd) : undefined;
    const { baseIri } = load.options;
    if (base !== undefined && base !== baseIri && base !== otherScheme(baseIri))
      throw new LoadError(
        file,
        undefined,
        undefined,
        `a snapshot made for BASE_IRI ${base}, this service's is ${baseIri}`,
      );
    ours = base === baseIri;
    // One written for the other scheme of the base is read as any N-Quads file (rewritten,
    // checked, placed), but only when whole, as any snapshot.
    const trailer = base === undefined ? undefined : readTrailer(file, fd, baseIri);
    // The sha256 of the bytes before the trailer: the version's own hash when nothing was
    // read before them (no second pass over the bytes), else one of their own.
    const own = trailer && load.hash.bytes > 0 ? crypto.createHash('sha256') : undefined;
    const hash: Hasher = {
      update: (bytes) => {
        load.hash.update(bytes);
        own?.update(bytes);
        load.readBytes(bytes.length);
      },
    };
    if (format === 'rdf') checkXml(file, fd);
    if (ours) await loadSnapshot(target, file, fd, trailer!.start, hash);
    else {
      try {
        let input: Buffer | Iterable<Buffer>;
        if (format === 'jsonld') {
          const bytes = readHashed(fd, hash);
          checkJsonDepth(file, bytes);
          input = servedContextInline(bytes, baseIri);
        } else if (format === 'nt' && direct && !load.resolving) {
          // The only source: parsed once, into the graphs of its descriptions (a file the plan
          // cannot vouch for is parsed as any other, into the default graph, and placed after).
          placed = placedHere(target, file, fd, baseIri, hash);
          if (placed) return { ours, size, placed };
          input = chunks(fd);
        } else input = chunks(fd, hash, trailer?.start);
        target.load(input, format, `${baseIri}/`);
      } catch (error) {
        if (error instanceof LoadError) throw error;
        throw locate(file, error as Error);
      }
    }
    if (trailer) {
      const sha256 = (own ?? load.hash.copy()).digest('hex');
      load.hash.update(trailer.bytes);
      const triples = target.size;
      checkTrailer(file, trailer, sha256, triples);
      // Nothing of a snapshot of this base loaded first changes below.
      if (direct && ours) size = triples;
      load.snapshot = { file, trailer };
      if (ours && !load.resolving) load.snapshotRows = trailerRows(trailer, target);
    }
  } finally {
    fs.closeSync(fd);
  }
  return { ours, size, placed };
}

/**
 * Runs `parse`, a call into the store's parser, with what it refuses placed in `file`: by the
 * parser's message, its lines counted from `lineOffset`, or at the end of the file.
 */
function located(file: string, lineOffset: number, parse: () => void): void {
  try {
    parse();
  } catch (error) {
    throw locate(file, error as Error, lineOffset);
  }
}

/**
 * Loads the N-Triples file open as `fd` straight into the graphs of its descriptions, a piece at a
 * time, so that the store's peak stays that of a piece; false (nothing loaded) when the placing
 * cannot vouch for the file.
 */
function placedHere(
  target: DatasetStore,
  file: string,
  fd: number,
  baseIri: string,
  hash: Hasher,
): boolean {
  const plan = planDescriptions(fd, baseIri, hash, (line) => checkLiteral(file, line));
  if (!plan) return false;
  for (const piece of placedPieces(fd, plan, file))
    located(file, piece.firstLine - 1, () => target.load(piece.text, 'nq', `${baseIri}/`));
  return true;
}

/**
 * A snapshot's bytes before its trailer, in pieces that end at its chunk marks, which
 * `writeSnapshot` puts only where no blank node spans them (each `load` call labels blank nodes
 * anew). The event loop turns whenever a time slice is used up, so that a server reloading keeps
 * answering requests. One without marks is one piece.
 */
async function loadSnapshot(
  target: DatasetStore,
  file: string,
  fd: number,
  end: number,
  hash: Hasher,
): Promise<void> {
  const mark = Buffer.from(`\n${CHUNK_MARK}`);
  const slicer = new TimeSlicer();
  /** Bytes parsed a millisecond, as the last call into the store took them. */
  let rate = SNAPSHOT_CHUNK_BYTES;
  let lines = 0;
  const load = (piece: Buffer) => {
    hash.update(piece);
    located(file, lines, () => target.load(piece, 'nq', undefined, true));
    lines += countLines(piece);
  };
  for (const text of markedTexts(readsOf(file, fd, end))) {
    let start = 0;
    for (let stop = text.indexOf(mark); stop !== -1; stop = text.indexOf(mark, start)) {
      // Unless requests wait, as many pieces at once as parse in a slice: each call into the
      // store costs, above all while its memory grows (docs/benchmark.md, "pieces a call").
      // When they wait, one piece, so that a slice ends on time.
      const enough = slicer.contended ? start : start + rate * UNCONTENDED_STEP_MS;
      for (let next = stop; next !== -1 && next < enough; next = text.indexOf(mark, next + 1))
        stop = next;
      const began = performance.now();
      load(text.subarray(start, stop + 1));
      rate = (stop + 1 - start) / Math.max(performance.now() - began, 0.1);
      start = stop + 1;
      await slicer.pause();
    }
    // The text ends where a mark starts: what is left of it is a piece too.
    if (start < text.length) {
      load(text.subarray(start));
      await slicer.pause();
    }
  }
}

/** The bytes of the file open as `fd` up to `end`, a read at a time. */
function* readsOf(file: string, fd: number, end: number): Generator<Buffer> {
  for (let offset = 0; offset < end;) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, end - offset));
    const read = fs.readSync(fd, chunk, 0, chunk.length, offset);
    if (read === 0)
      throw new LoadError(file, undefined, undefined, 'the file shrank as it was read');
    offset += read;
    yield chunk.subarray(0, read);
  }
}
