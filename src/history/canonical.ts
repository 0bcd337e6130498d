// What a version is made of, canonically: each institution's description with its links as
// canonical N-Triples, its content hash, and the version's name, a digest of every ISIL's state
// and of the rest of the dataset, so that the same data gives the same version from every writer.
import crypto from 'node:crypto';
import { toDescription } from '../rdf/description';
import type { InstitutionState } from './model';
import { writeTriples } from './text';

/** Hex digits of a version's name (`Dataset-Version`). */
export const VERSION_LENGTH = 12;
/** Hex digits of an institution's content hash, and of the rest's. */
export const HASH_LENGTH = 32;

/**
 * The canonical N-Triples of a description with its links (the store's answer to describe.rq, or
 * a description graph's triples with the institution's `owl:sameAs`): blank nodes labelled
 * canonically, triples deduplicated, in `toDescription`'s order, one a line. Throws
 * CanonicalLimit, naming `subject`, for a description past the work limit.
 */
export function canonicalDescription(subject: string, ntriples: string): string {
  return writeTriples(toDescription(subject, ntriples).triples);
}

/** The content hash of a canonical description: 32 hex digits of its sha256. */
export function institutionHash(canonicalText: string): string {
  return crypto.createHash('sha256').update(canonicalText).digest('hex').slice(0, HASH_LENGTH);
}

/**
 * A version's name: 12 hex digits of the sha256 of every ISIL's state, in ISIL order (ISIL,
 * status, hash, successors), and of the hash of the rest of the dataset (what no description
 * holds: the links graph, the triples outside descriptions).
 */
export function versionOf(
  states: ReadonlyMap<string, InstitutionState> | Iterable<InstitutionState>,
  restHash: string,
): string {
  const sorted = [...(states instanceof Map ? states.values() : states)].sort(byIsil);
  const hash = crypto.createHash('sha256');
  for (const state of sorted)
    hash.update(
      `${state.isil} ${state.status} ${state.hash}${(state.successors ?? []).map((s: string) => ` ${s}`).join('')}\n`,
    );
  hash.update(`rest ${restHash}\n`);
  return hash.digest('hex').slice(0, VERSION_LENGTH);
}

function byIsil(a: { isil: string }, b: { isil: string }): number {
  return a.isil < b.isil ? -1 : a.isil > b.isil ? 1 : 0;
}

/**
 * States as a snapshot's trailer and the states cache keep them, in ISIL order: `[isil, hash]` for
 * a live ISIL, `[isil, hash, [successors…]]` for a withdrawn one.
 */
export type CompactState = [string, string] | [string, string, string[]];

export function compactStates(states: ReadonlyMap<string, InstitutionState>): CompactState[] {
  return [...states.values()]
    .sort(byIsil)
    .map((s) =>
      s.status === 'live' ? [s.isil, s.hash] : [s.isil, s.hash, [...(s.successors ?? [])]],
    );
}

/** The states of `compactStates`' output, or undefined when `value` is not such a list. */
export function readCompactStates(value: unknown): Map<string, InstitutionState> | undefined {
  if (!Array.isArray(value)) return undefined;
  const states = new Map<string, InstitutionState>();
  for (const item of value) {
    if (!Array.isArray(item) || item.length < 2 || item.length > 3) return undefined;
    const [isil, hash, successors] = item as unknown[];
    if (typeof isil !== 'string' || typeof hash !== 'string') return undefined;
    if (item.length === 2) {
      states.set(isil, { isil, status: 'live', hash });
      continue;
    }
    if (!Array.isArray(successors) || !successors.every((s) => typeof s === 'string'))
      return undefined;
    states.set(isil, {
      isil,
      status: 'withdrawn',
      hash,
      ...(successors.length > 0 ? { successors: successors as string[] } : {}),
    });
  }
  return states;
}
