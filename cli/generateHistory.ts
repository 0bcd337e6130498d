// A synthetic history (the bench's fixture, docs/history.md): the generated institutions through
// N versions, each changing a share of them (mostly updated, some created, withdrawn with a
// successor, or deleted), written directly as the loader would have written them one after
// another: the change log (by the log's own writer), and the last version's snapshot naming it.
// No store is filled: each changed institution's state is computed from its N-Triples by the
// functions the loader's states come from (canonicalDescription, institutionHash, versionOf), so
// the same seed gives the same bytes, and the loader agrees (test/integration/history).
import fs from 'node:fs';
import path from 'node:path';
import {
  canonicalDescription,
  compactStates,
  institutionHash,
  versionOf,
} from '../src/history/canonical';
import { LOG_FILE } from '../src/history/log';
import { LogWriter } from '../src/history/logWriter';
import { diff, type Change, type InstitutionState } from '../src/history/model';
import { generate, type GenerateOptions } from '../src/generate/generated';
import { withdrawnRecord } from '../src/load/read/listRecords';
import { prng, STREETS } from '../src/generate/synthetic';
import { institutionIri } from '../src/rdf/iris';
import { isilKey, type Isil } from '../src/rdf/isil';
import { PREFIXES } from '../src/rdf/namespaces';
import { writeGeneratedSnapshot } from './generatedSnapshot';

/** The first version's time: 2024-01-01T00:00:00Z; each later version a week after the one before. */
export const FIRST_VERSION_TIME = Date.UTC(2024, 0, 1) / 1000;
export const VERSION_INTERVAL = 7 * 86_400;

/**
 * What a version's changes are made of: mostly updates; the rest created, withdrawn (with a
 * successor) and deleted, as a registry changes from week to week.
 */
export const CHANGE_MIX = { updated: 0.8, created: 0.1, withdrawn: 0.05, deleted: 0.05 } as const;

/**
 * The rest's hash of a generated version: every generated triple is an institution's own (in its
 * description's graph, as the loader places them), so nothing is outside the descriptions and the
 * rest is the hash of no lines.
 */
const REST = institutionHash('');

export interface HistoryOptions extends GenerateOptions {
  /** How many versions (at least 1). */
  readonly versions: number;
  /** The share of the institutions each version after the first changes (0 to 1). */
  readonly change: number;
  /** Where the last version's snapshot goes. */
  readonly snapshot: string;
  /** The folder of the change log (HISTORY_DIR): it must hold none yet. */
  readonly historyDir: string;
  /** A folder for each version's N-Triples (`version-001.nt`, …), the sources the loader reads. */
  readonly sourcesDir?: string;
  /** A file for the N-Triples of the version after the last (not logged): one more to load. */
  readonly next?: string;
  /** Called after each version is written. */
  readonly onVersion?: (done: number, of: number) => void;
}

/** What `generateHistory` wrote. */
export interface WrittenHistory {
  readonly versions: number;
  readonly events: number;
  /** Events by kind. */
  readonly kinds: Readonly<Record<Change['kind'], number>>;
  readonly logBytes: number;
  readonly snapshotBytes: number;
  readonly sourcesBytes: number;
  /** The last version, as the snapshot's trailer names it. */
  readonly last: { readonly version: string; readonly time: number };
  readonly institutions: number;
  readonly withdrawn: number;
}

/** One institution of the version being made: its N-Triples and its state. */
interface Entry {
  readonly text: string;
  readonly state: InstitutionState;
  /** Its canonical description, while a version's events need it. */
  canonical?: string;
}

const MODIFIED = `<${PREFIXES.dcterms}modified> `;
const STREET = `<${PREFIXES.v}street-address> `;

/** A generated ISIL's institution IRI from the first line of its N-Triples. */
function isilOf(text: string): string {
  return /\/resource\/organisations\/([^>]+)>/.exec(text)![1]!;
}

/**
 * The institutions of a history, version by version: the generated ones first, then each
 * version's changes drawn from a sequence of its own (seeded by the seed and the version's number),
 * so that the first N versions are the same whatever the number of versions asked for.
 */
class Registry {
  readonly entries = new Map<string, Entry>();
  /** Every ISIL ever made (case-insensitively): a created one is never one seen before. */
  private readonly seen = new Set<string>();
  private readonly newcomers: Generator<string>;

  constructor(private readonly options: GenerateOptions) {
    for (const text of generate(options)) this.add(text);
    // Newcomers are drawn from another seed; their blank nodes and their web sites are renamed
    // apart (`_:c…`, `bibliothek-neu-…`): a web page two institutions link is in both descriptions.
    this.newcomers = generate({ ...options, seed: (options.seed + 0x9e3779b9) >>> 0, count: 1e6 });
  }

  private add(text: string): Entry {
    const isil = isilOf(text);
    this.seen.add(isilKey(isil));
    return this.put(isil, text, 'live');
  }

  private put(isil: string, text: string, status: 'live' | 'withdrawn', successor?: string): Entry {
    const canonical = canonicalDescription(
      institutionIri(this.options.base, isil as Isil),
      asStored(text),
    );
    const entry: Entry = {
      text,
      canonical,
      state: {
        isil,
        status,
        hash: institutionHash(canonical),
        ...(successor === undefined ? {} : { successors: [successor] }),
      },
    };
    this.entries.set(isil, entry);
    return entry;
  }

  states(): Map<string, InstitutionState> {
    const states = new Map<string, InstitutionState>();
    for (const [isil, entry] of this.entries) states.set(isil, entry.state);
    return states;
  }

  /** Applies version `number`'s changes (about `share` of the institutions). */
  change(number: number, share: number, time: number): void {
    for (const entry of this.entries.values()) delete entry.canonical;
    const random = prng((this.options.seed * 1_000_003 + number) >>> 0);
    const live = [...this.entries.values()].filter((e) => e.state.status === 'live');
    const total = Math.max(1, Math.round(live.length * share));
    const touched = new Set<string>();
    /** A live institution not changed yet in this version (none when none is left). */
    const pick = (): string | undefined => {
      for (let attempt = 0; attempt < 50 && live.length > 0; attempt++) {
        const isil = live[Math.floor(random() * live.length)]!.state.isil;
        if (!touched.has(isil)) return isil;
      }
      return undefined;
    };
    for (let i = 0; i < total; i++) {
      const roll = random();
      if (roll < CHANGE_MIX.created) {
        this.create();
        continue;
      }
      // With no live institution left to change, the change is a creation: every version after
      // the first changes something, so no two share a name.
      const isil = pick();
      if (isil === undefined) {
        this.create();
        continue;
      }
      touched.add(isil);
      if (roll < CHANGE_MIX.created + CHANGE_MIX.withdrawn) {
        const successor = pick();
        if (successor === undefined) {
          touched.delete(isil);
          this.create();
          continue;
        }
        // The successor stays live in this version.
        touched.add(successor);
        const record = withdrawnRecord(isil, successor, 'generated', this.options.base);
        this.put(isil, record.ntriples, 'withdrawn', successor);
      } else if (roll < CHANGE_MIX.created + CHANGE_MIX.withdrawn + CHANGE_MIX.deleted) {
        this.entries.delete(isil);
      } else {
        this.put(isil, updated(this.entries.get(isil)!.text, random, time), 'live');
      }
    }
  }

  private create(): void {
    for (;;) {
      const text = this.newcomers.next().value as string;
      if (this.seen.has(isilKey(isilOf(text)))) continue;
      this.add(
        text.replace(/_:b(\d+)/g, '_:c$1').replace(/bibliothek-(\d+)\./g, 'bibliothek-neu-$1.'),
      );
      return;
    }
  }

  /** The N-Triples of the version as they are now, in the order the institutions were made. */
  *sources(): Generator<string> {
    for (const entry of this.entries.values()) yield entry.text;
  }
}

const XSD_STRING = `"^^<${PREFIXES.xsd}string>`;

/**
 * N-Triples as the store writes them back, which is what the loader describes: a literal typed
 * `xsd:string` is written as the simple literal it is (RDF 1.1), as the generated coordinates are.
 */
function asStored(text: string): string {
  return text.replaceAll(XSD_STRING, '"');
}

/** An institution updated at `time`: its street address moved, its description modified then. */
function updated(text: string, random: () => number, time: number): string {
  const street = `${STREETS[Math.floor(random() * STREETS.length)]!} ${1 + Math.floor(random() * 120)}`;
  const modified = new Date(time * 1000).toISOString().replace('.000Z', '');
  return text
    .split('\n')
    .map((line) => {
      const at = line.indexOf(STREET);
      if (at !== -1) return `${line.slice(0, at + STREET.length)}"${street}" .`;
      const m = line.indexOf(MODIFIED);
      if (m !== -1)
        return `${line.slice(0, m + MODIFIED.length)}"${modified}"^^<${PREFIXES.xsd}dateTime> .`;
      return line;
    })
    .join('\n');
}

function writeSources(file: string, registry: Registry): number {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  let bytes = 0;
  try {
    let batch = '';
    for (const text of registry.sources()) {
      batch += text;
      if (batch.length > 1 << 20) {
        bytes += fs.writeSync(fd, batch);
        batch = '';
      }
    }
    bytes += fs.writeSync(fd, batch);
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}

/** The file of version `n`'s N-Triples in a sources folder. */
export function sourceFile(dir: string, n: number): string {
  return path.join(dir, `version-${String(n).padStart(3, '0')}.nt`);
}

/**
 * Writes the history: the log in `historyDir`, the last version's snapshot, the sources asked for.
 * The log and the snapshot are written beside their places and renamed into them once whole (the
 * log first: the snapshot names it), so a run that fails or is killed leaves neither half-made.
 */
export function generateHistory(options: HistoryOptions): WrittenHistory {
  const { historyDir } = options;
  const destination = path.join(historyDir, LOG_FILE);
  if (fs.existsSync(destination))
    throw new Error(`${historyDir} holds a change log already: give a folder without one`);
  // The folder's lock is held while its log is made elsewhere: no loader writes one meanwhile.
  const lock = new LogWriter(historyDir, options.base);
  lock.acquire();
  const workDir = fs.mkdtempSync(path.join(historyDir, '.generating-'));
  const snapshot = `${options.snapshot}.generating-${process.pid}`;
  try {
    const written = writeVersions({ ...options, snapshot }, new LogWriter(workDir, options.base));
    fs.renameSync(path.join(workDir, LOG_FILE), destination);
    fs.renameSync(snapshot, options.snapshot);
    return { ...written, logBytes: fs.statSync(destination).size };
  } finally {
    try {
      fs.rmSync(workDir, { recursive: true, force: true });
      // A snapshot's folder that cannot be made is why the run failed: nothing to remove there.
      if (fs.existsSync(path.dirname(snapshot))) fs.rmSync(snapshot, { force: true });
    } finally {
      lock.release();
    }
  }
}

/** The versions of `options` written with `writer`, and the snapshot of the last. */
function writeVersions(options: HistoryOptions, writer: LogWriter): WrittenHistory {
  const { versions, change } = options;
  const registry = new Registry(options);
  const kinds = { created: 0, updated: 0, withdrawn: 0, deleted: 0 };
  let events = 0;
  let sourcesBytes = 0;
  let previous: Map<string, InstitutionState> | undefined;
  let last = { version: '', time: 0 };
  let snapshotBytes = 0;
  // The log's id from the seed: the same seed gives the same bytes.
  const log = `generated-${options.seed}`;
  writer.prepare(undefined, log);
  for (let n = 1; n <= versions; n++) {
    const time = FIRST_VERSION_TIME + (n - 1) * VERSION_INTERVAL;
    if (n > 1) registry.change(n, change, time);
    const states = registry.states();
    const changes = diff(previous, states);
    const now = { version: versionOf(states, REST), time };
    let withdrawn = 0;
    for (const state of states.values()) if (state.status === 'withdrawn') withdrawn++;
    writer.append({
      ...now,
      changes,
      description: (isil) => registry.entries.get(isil)!.canonical!,
      institutions: states.size - withdrawn,
      withdrawn,
    });
    if (n === versions)
      snapshotBytes = writeGeneratedSnapshot(
        registry.sources(),
        options.snapshot,
        options.base,
        () => ({
          institutions: states.size - withdrawn,
          withdrawn,
          version: now.version,
          rest: REST,
          states: compactStates(states),
          history: { ...now, log },
        }),
      );
    writer.commit(now);
    if (options.sourcesDir)
      sourcesBytes += writeSources(sourceFile(options.sourcesDir, n), registry);
    for (const c of changes) kinds[c.kind]++;
    events += changes.length;
    previous = states;
    last = now;
    options.onVersion?.(n, versions);
  }
  if (options.next) {
    registry.change(versions + 1, change, FIRST_VERSION_TIME + versions * VERSION_INTERVAL);
    sourcesBytes += writeSources(options.next, registry);
  }
  const withdrawn = [...previous!.values()].filter((s) => s.status === 'withdrawn').length;
  return {
    versions,
    events,
    kinds,
    logBytes: fs.statSync(writer.file).size,
    snapshotBytes,
    sourcesBytes,
    last,
    institutions: previous!.size - withdrawn,
    withdrawn,
  };
}
