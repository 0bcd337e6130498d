// Full dumps of each dataset version: N-Triples (gzip), JSON-LD lines (gzip, one
// institution a line, the documents' own JSON-LD) and CSV, written in the background when a
// version is served, never for a request. Each file is written under a temporary name and renamed
// once whole, with its size and SHA-256 in a sidecar; a version's set is listed only when all its
// files are there. The newest `keep` versions' dumps are kept, older ones deleted; the sets of
// the demonstration data are marked so, and deleted once other data is served.
import fs from 'node:fs';
import path from 'node:path';
import type { Dataset } from '../store/dataset';
import { WorkerClient } from '../threads/client';
import { Writing } from './dumpWriting';
import { isMemento } from '../history/model';
import { moduleIn } from '../threads/workerRequire';
import type { DumpAnswer, DumpRequest } from './dumpsWorker';
import { CHANGE_SUFFIX, writeChangeFiles, type ChangePeriod } from './changeFiles';

/** Institutions handed to the dumps' thread at once: described together, written in turn. */
const BATCH = 50;

export type DumpFormat = 'nt' | 'jsonl' | 'csv' | 'history' | 'changes' | 'changes-nt';

export interface DumpFile {
  readonly name: string;
  readonly format: DumpFormat;
  readonly mediaType: string;
  readonly bytes: number;
  readonly sha256: string;
  /** A change file's changes: the version's own, or those of its last 1, 7 or 31 days. */
  readonly period?: ChangePeriod;
}

export interface DumpSet {
  readonly version: string;
  /** When it was made (ISO 8601). */
  readonly created: string;
  readonly institutions: number;
  readonly triples: number;
  readonly files: readonly DumpFile[];
  /** Made of the generated demonstration data (src/process/prepareBundled.ts), not the agency's. */
  readonly demonstration?: true;
}

const FORMATS: readonly { format: DumpFormat; suffix: string; mediaType: string }[] = [
  { format: 'nt', suffix: '.nt.gz', mediaType: 'application/n-triples' },
  { format: 'jsonl', suffix: '.jsonld-lines.gz', mediaType: 'application/x-ndjson' },
  { format: 'csv', suffix: '.csv', mediaType: 'text/csv;charset=utf-8;header=present' },
  { format: 'history', suffix: '.history.jsonl.gz', mediaType: 'application/x-ndjson' },
];

/** How long after failed dumps a request for the list may start them again. */
const RETRY_MS = 60_000;

/** A dump's file name: dated, with its version (`isil-ld_2026-11-25_b842b4abb6d9.nt.gz`). */
const FILE_SUFFIX = `(?:nt\\.gz|jsonld-lines\\.gz|csv|history\\.jsonl\\.gz|${CHANGE_SUFFIX})`;
const NAME = new RegExp(`^isil-ld_(\\d{4}-\\d{2}-\\d{2})_([0-9a-f]{6,64})\\.${FILE_SUFFIX}$`);
const SIDECAR = /^isil-ld_(\d{4}-\d{2}-\d{2})_([0-9a-f]{6,64})\.json$/;

/** How many versions' dumps are kept, when they are made, and whom they tell how it went. */
export interface DumpsOptions {
  /** The newest versions whose dumps are kept (3). */
  readonly keep?: number;
  /** Whether a version's dumps are made as soon as it is followed (the server), or when asked. */
  readonly eager?: boolean;
  readonly onMade?: (set: DumpSet, ms: number) => void;
  readonly onFailed?: (version: string, error: Error) => void;
}

/** Whether the followed version's dumps are there, being made, not asked for, failed, or off. */
export type DumpState = 'ready' | 'making' | 'failed' | 'idle' | 'off';

export class Dumps {
  private sets: DumpSet[] = [];
  private following: Dataset | undefined;
  /** Whether the version followed is the demonstration data. */
  private followingDemonstration = false;
  private started: Dataset | undefined;
  /** The version whose dumps failed, and when they may be tried again. */
  private failed: { dataset: Dataset; until: number } | undefined;
  /**
   * Why no dumps can be made at all: the folder cannot be made or read (a careless DUMPS_DIR).
   * The service serves on without them; the process logs it, `/dumps/` says it.
   */
  readonly unusable: string | undefined;
  making: Promise<DumpSet | undefined> = Promise.resolve(undefined);
  private readonly keep: number;

  constructor(
    /** Where they are written; empty: no dumps. */
    readonly dir: string,
    private readonly contextUrl: string,
    private readonly options: DumpsOptions = {},
  ) {
    this.keep = options.keep ?? 3;
    if (dir === '') return;
    try {
      this.sets = this.scan();
    } catch (error) {
      this.unusable = `DUMPS_DIR ${dir} cannot be used: ${(error as Error).message}`;
    }
  }

  get state(): DumpState {
    if (this.dir === '') return 'off';
    if (this.unusable) return 'failed';
    if (this.following && this.sets.some((s) => s.version === this.following!.version))
      return 'ready';
    if (this.failed && this.failed.dataset === this.following) return 'failed';
    return this.started === this.following && this.following ? 'making' : 'idle';
  }

  /** The dumps there are, the newest first. */
  list(): readonly DumpSet[] {
    return this.sets;
  }

  /** A listed file by its name, with its set. */
  file(name: string): { set: DumpSet; file: DumpFile; path: string } | undefined {
    for (const set of this.sets)
      for (const file of set.files)
        if (file.name === name) return { set, file, path: path.join(this.dir, name) };
    return undefined;
  }

  /**
   * Makes `dataset`'s dumps from now on (at once when eager). Once other data than the
   * demonstration data is served, the demonstration's dumps are no longer offered: deleted.
   */
  follow(dataset: Dataset, demonstration = false): void {
    this.following = dataset;
    this.followingDemonstration = demonstration;
    if (!demonstration && this.sets.some((s) => s.demonstration)) {
      for (const set of this.sets) if (set.demonstration) this.remove(set);
      this.sets = this.sets.filter((s) => !s.demonstration);
    }
    if (this.options.eager) void this.ensure();
  }

  ensure(): Promise<DumpSet | undefined> {
    const dataset = this.following;
    if (this.dir === '' || this.unusable || !dataset || this.started === dataset)
      return this.making;
    // Dumps that failed (a store down, a disk full) are tried again, when asked, after a while.
    if (this.failed?.dataset === dataset && Date.now() < this.failed.until) return this.making;
    this.started = dataset;
    this.failed = undefined;
    const demonstration = this.followingDemonstration;
    const previous = this.making;
    this.making = previous.then(async () => {
      if (this.sets.some((s) => s.version === dataset.version)) return undefined;
      const started = Date.now();
      try {
        const set = await this.make(dataset, demonstration);
        if (set) this.options.onMade?.(set, Date.now() - started);
        return set;
      } catch (error) {
        // A version replaced, or a store closed as the process stops, is no failure.
        if (this.following === dataset && (error as Error).name !== 'StoreClosed') {
          this.options.onFailed?.(dataset.version, error as Error);
          this.failed = { dataset, until: Date.now() + RETRY_MS };
          this.started = undefined;
        }
        return undefined;
      }
    });
    return this.making;
  }

  /** The sets whose files and sidecar are all there, from an earlier run. */
  private scan(): DumpSet[] {
    fs.mkdirSync(this.dir, { recursive: true });
    const sets: DumpSet[] = [];
    for (const name of fs.readdirSync(this.dir)) {
      if (name.endsWith('.part')) fs.rmSync(path.join(this.dir, name), { force: true });
      if (!SIDECAR.test(name)) continue;
      try {
        const set = JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')) as DumpSet;
        if (
          set.files.every(
            (f) => NAME.test(f.name) && fs.statSync(path.join(this.dir, f.name)).size === f.bytes,
          )
        )
          sets.push(set);
      } catch {
        // a sidecar half written or files gone: not listed
      }
    }
    return sets.sort((a, b) => b.created.localeCompare(a.created));
  }

  /**
   * Writes `dataset`'s set in a worker thread of its own (dumpsWorker.ts), handing it each
   * description as the store port answers it, a batch at a time; the thread ends with the set.
   */
  private async make(dataset: Dataset, demonstration: boolean): Promise<DumpSet | undefined> {
    const created = new Date();
    const stem = `isil-ld_${created.toISOString().slice(0, 10)}_${dataset.version}`;
    const [nt, jsonl, csv, history] = FORMATS.map((f) => path.join(this.dir, stem + f.suffix));
    const paths: [string, string, string] = [nt!, jsonl!, csv!];
    const thread = new WorkerClient<DumpRequest, DumpAnswer>(moduleIn(__dirname, 'dumpsWorker'), {
      name: "the dumps' thread",
    });
    try {
      await thread.ask({ kind: 'open', paths, contextUrl: this.contextUrl });
      let counted = { institutions: 0, triples: 0 };
      const institutions = [...dataset.institutions()];
      for (let at = 0; at < institutions.length; at += BATCH) {
        if (this.following !== dataset) throw new Error('replaced');
        const items = await Promise.all(
          institutions.slice(at, at + BATCH).map(async ({ isil, iri }) => ({
            isil,
            iri,
            ntriples: await dataset.describeText(isil),
          })),
        );
        counted = (await thread.ask({ kind: 'add', items })) as typeof counted;
      }
      const { files: written } = (await thread.ask({ kind: 'close' })) as {
        files: { bytes: number; sha256: string }[];
      };
      written.push(await writeHistory(dataset, history!));
      const changes = await writeChangeFiles(dataset.history, path.join(this.dir, stem));
      const files: DumpFile[] = [
        ...written.map(({ bytes, sha256 }, i) => ({
          name: path.basename([...paths, history!][i]!),
          format: FORMATS[i]!.format,
          mediaType: FORMATS[i]!.mediaType,
          bytes,
          sha256,
        })),
        ...changes.map(({ path: file, ...change }) => ({ name: path.basename(file), ...change })),
      ];
      const set: DumpSet = {
        version: dataset.version,
        created: created.toISOString(),
        ...counted,
        files,
        ...(demonstration ? { demonstration: true as const } : {}),
      };
      // Other data came while the demonstration's were finished: they are not to be offered.
      if (demonstration && !this.followingDemonstration) {
        this.remove(set);
        return undefined;
      }
      const sidecar = path.join(this.dir, `${stem}.json`);
      fs.writeFileSync(`${sidecar}.part`, JSON.stringify(set, null, 1));
      fs.renameSync(`${sidecar}.part`, sidecar);
      this.sets = [set, ...this.sets.filter((s) => s.version !== set.version)];
      this.prune();
      return set;
    } catch (error) {
      await thread.ask({ kind: 'abandon' }).catch(() => undefined);
      if ((error as Error).message === 'replaced') return undefined;
      throw error;
    } finally {
      await thread.terminate(new Error('the dumps are written'));
    }
  }

  /** Deletes the sets past the newest `keep`. */
  private prune(): void {
    for (const old of this.sets.slice(this.keep)) this.remove(old);
    this.sets = this.sets.slice(0, this.keep);
  }

  /** Deletes a set's files and its sidecar. */
  private remove(set: DumpSet): void {
    for (const f of set.files) fs.rmSync(path.join(this.dir, f.name), { force: true });
    const stem = set.files[0]!.name.replace(new RegExp(`\\.${FILE_SUFFIX}$`), '');
    fs.rmSync(path.join(this.dir, `${stem}.json`), { force: true });
  }
}

/**
 * The version's history as JSON lines (gzip, docs/history.md): every event, oldest first, with
 * its time in ISO 8601 and, for a creation or an update, the description served from then on.
 */
async function writeHistory(
  dataset: Dataset,
  file: string,
): Promise<{ bytes: number; sha256: string }> {
  const out = new Writing(file, true);
  try {
    for (const event of dataset.history.all()) {
      const line = {
        version: event.version,
        time: new Date(event.time * 1000).toISOString().replace('.000Z', 'Z'),
        event: event.kind,
        isil: event.isil,
        ...(event.hash ? { hash: event.hash } : {}),
        ...(event.successors ? { successors: event.successors } : {}),
        ...(isMemento(event) ? { description: await dataset.history.description(event) } : {}),
      };
      await out.write(`${JSON.stringify(line)}\n`);
    }
    return await out.close();
  } catch (error) {
    out.abandon();
    throw error;
  }
}
