// The version an update makes: the base version's states with the update's applied (its
// institutions replaced or added, those it removes gone), and the snapshot's lines in their
// canonical order, each kept description's lines taken from the base snapshot with its blank
// nodes' labels renumbered for its new place. Nothing is canonicalised again.
import { versionOf } from '../history/canonical';
import type { InstitutionState } from '../history/model';
import { isilKey } from '../rdf/isil';
import type { SelectBinding } from '../store/bindings';
import { DatasetIndex } from '../store/datasetIndex';
import { LoadError } from '../load/loadError';
import { PieceWriter } from '../load/snapshot/snapshotPieces';
import { relabelled, type Block } from './snapshotBlocks';

/** What the update's own load made: its states, its descriptions' lines, its index rows. */
export interface UpdateRecords {
  readonly states: ReadonlyMap<string, InstitutionState>;
  /** Its snapshot's blocks (`snapshotBlocks` of its canonical pieces), in ISIL order. */
  readonly blocks: Iterable<Block>;
  readonly rows: readonly SelectBinding[];
  /** ISILs (case folded) the update removes: deletions, and records a load does not publish. */
  readonly removed: ReadonlySet<string>;
}

/** The base version as its snapshot's trailer says it. */
export interface BaseStates {
  readonly states: ReadonlyMap<string, InstitutionState>;
  readonly rest: string;
  /** The trailer's index rows, when it kept them. */
  readonly rows: readonly SelectBinding[] | undefined;
}

/** The merged version: its states and name, what it dropped of the base, its rows. */
export interface MergedStates {
  readonly states: ReadonlyMap<string, InstitutionState>;
  readonly version: string;
  readonly institutions: number;
  readonly withdrawn: number;
  /** The base's ISILs the update replaced or removed. */
  readonly dropped: ReadonlySet<string>;
  readonly rows: readonly SelectBinding[] | undefined;
}

/** The base's states with the update's applied; no ISIL of the update is dropped. */
export function mergedStates(
  base: BaseStates,
  update: Pick<UpdateRecords, 'states' | 'removed' | 'rows'>,
  baseIri: string,
): MergedStates {
  const byKey = new Map<string, string>();
  for (const isil of base.states.keys()) byKey.set(isilKey(isil), isil);
  const dropped = new Set<string>();
  const drop = (key: string) => {
    const isil = byKey.get(key);
    if (isil !== undefined) dropped.add(isil);
  };
  const held = new Set<string>();
  for (const isil of update.states.keys()) {
    held.add(isilKey(isil));
    drop(isilKey(isil));
  }
  for (const key of update.removed) if (!held.has(key)) drop(key);
  const states = new Map<string, InstitutionState>();
  for (const [isil, state] of base.states) if (!dropped.has(isil)) states.set(isil, state);
  for (const [isil, state] of update.states) states.set(isil, state);
  let withdrawn = 0;
  for (const state of states.values()) if (state.status === 'withdrawn') withdrawn++;
  return {
    states,
    version: versionOf(states, base.rest),
    institutions: states.size - withdrawn,
    withdrawn,
    dropped,
    rows: base.rows && mergedRows(base.rows, update.rows, dropped, baseIri),
  };
}

/** The base's rows but those of dropped ISILs, with the update's, in the index's order. */
function mergedRows(
  base: readonly SelectBinding[],
  update: readonly SelectBinding[],
  dropped: ReadonlySet<string>,
  baseIri: string,
): SelectBinding[] {
  const prefix = `${baseIri}/resource/organisations/`;
  const gone = new Set([...dropped].map((isil) => `${prefix}${isil}`));
  const kept = base.filter((row) => !gone.has(row.institution!.value));
  return DatasetIndex.order([...kept, ...update]);
}

const sorted = (isils: Iterable<string>) => [...isils].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The label prefix of the `n`-th description's blank nodes (`_:d<n>b<i>`). */
const labelOf = (n: number) => `_:d${n}b`;

/**
 * The merged snapshot's quads in pieces (`PieceWriter`), made as they are read: every ISIL of
 * `merged` in order, from the update when it holds it, else from `base` (the base snapshot's
 * blocks), then the base's rest. `counted` is told the number of quads once all are written.
 */
export function* mergedPieces(
  file: string,
  base: {
    readonly states: ReadonlyMap<string, InstitutionState>;
    readonly blocks: Iterable<Block>;
  },
  update: UpdateRecords,
  merged: MergedStates,
  counted: (quads: number) => void,
): Generator<Buffer> {
  const ended: string[] = [];
  const writer = new PieceWriter({ put: (text: string) => ended.push(text) });
  const oldPlace = new Map(sorted(base.states.keys()).map((isil, n) => [isil, n]));
  const newPlace = new Map(sorted(update.states.keys()).map((isil, n) => [isil, n]));
  const updated = new Map<string, string[]>();
  for (const block of update.blocks) {
    if (block.isil === undefined)
      throw new LoadError(
        file,
        undefined,
        undefined,
        'an update holds records of institutions only: its links or other triples go in with a full load',
      );
    updated.set(block.isil, block.lines);
  }
  const blocks = base.blocks[Symbol.iterator]();
  let next = blocks.next();
  let quads = 0;
  const add = (lines: string[]) => {
    quads += lines.length;
    writer.add(lines);
  };
  const notAsWritten = (what: string) =>
    new LoadError(file, undefined, undefined, `the snapshot does not match its trailer: ${what}`);
  for (const [n, isil] of sorted(merged.states.keys()).entries()) {
    const own = updated.get(isil);
    if (own) {
      const from = labelOf(newPlace.get(isil)!);
      add(own.map((line) => relabelled(line, from, labelOf(n))));
    } else {
      while (!next.done && next.value.isil !== undefined && merged.dropped.has(next.value.isil))
        next = blocks.next();
      if (!next.done && next.value.isil === isil) {
        const place = oldPlace.get(isil);
        if (place === undefined) throw notAsWritten(`${isil} has lines and no state`);
        const from = labelOf(place);
        const to = labelOf(n);
        add(from === to ? next.value.lines : next.value.lines.map((l) => relabelled(l, from, to)));
        next = blocks.next();
      }
    }
    yield* ended.splice(0).map((text) => Buffer.from(text));
  }
  while (!next.done && next.value.isil !== undefined && merged.dropped.has(next.value.isil))
    next = blocks.next();
  if (!next.done && next.value.isil !== undefined)
    throw notAsWritten(`the description of ${next.value.isil} is out of order or has no state`);
  if (!next.done) {
    add(next.value.lines);
    // Read to its end: the base's bytes are checked against its trailer there.
    if (!blocks.next().done) throw notAsWritten('lines follow its rest');
  }
  writer.flush();
  yield* ended.splice(0).map((text) => Buffer.from(text));
  counted(quads);
}
