// Writes the change log (src/history/log.ts says its form): one writer at a time, each version
// appended and flushed before the snapshot that names it is renamed into place, its commit line
// after; retention and repairs rewrite the file whole, renamed over it (never in place under a
// reader). Every write is checked whole: a short write on a full disk is an error, not a torn line.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  byTimeThenIsil,
  checkBase,
  committed,
  foreignTo,
  HistoryError,
  LOG_FILE,
  readLog,
  type Committed,
  type LoggedEvent,
  type Pointer,
} from './log';
import {
  isMemento,
  type Change,
  type DroppedVersions,
  type HistoryEvent,
  type VersionInfo,
} from './model';

const LOCK_FILE = 'history.lock';

/** What a new version adds to the log. */
export interface NewVersion {
  readonly version: string;
  readonly time: number;
  readonly changes: readonly Change[];
  /** The canonical description of each ISIL created or updated. */
  readonly description: (isil: string) => string;
  readonly institutions: number;
  readonly withdrawn: number;
}

/** `description` from the canonical texts a version was read with: one missing is a fault, not ''. */
export function describedBy(texts: ReadonlyMap<string, string>): (isil: string) => string {
  return (isil) => {
    const text = texts.get(isil);
    if (text === undefined) throw new Error(`no description of ${isil} to log`);
    return text;
  };
}

/**
 * Writes the change log of one folder, one writer at a time (`history.lock`, made exclusively; one
 * left by a process no longer running is taken over).
 */
export class LogWriter {
  readonly file: string;
  private readonly lock: string;
  private held = false;
  /** What a reset set aside: the new log's header names it, so that its pages answer 410. */
  private setAsideVersions: DroppedVersions | undefined;

  constructor(
    readonly dir: string,
    readonly baseIri: string,
  ) {
    this.file = path.join(dir, LOG_FILE);
    this.lock = path.join(dir, LOCK_FILE);
  }

  /** Takes the folder's lock; throws a HistoryError when a running process holds it. */
  acquire(): void {
    fs.mkdirSync(this.dir, { recursive: true });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = fs.openSync(this.lock, 'wx');
        writeAll(fd, `${process.pid}\n`);
        fs.closeSync(fd);
        this.held = true;
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const pid = Number(fs.readFileSync(this.lock, 'utf8').trim());
        if (Number.isInteger(pid) && pid > 0 && isRunning(pid))
          throw new HistoryError(
            `${this.dir}: the change log is being written by process ${pid} (${LOCK_FILE}); try again when it is done`,
          );
        fs.rmSync(this.lock, { force: true });
      }
    }
    throw new HistoryError(`${this.dir}: could not take ${LOCK_FILE}`);
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    try {
      fs.rmSync(this.lock, { force: true });
    } catch {
      // A folder that turned read-only keeps it; the next writer takes over a lock of a process gone.
    }
  }

  /**
   * The log's history for the snapshot that names `pointer`, refused (a HistoryError) when the log
   * is not that snapshot's. The lines of versions never committed are cut off (the log rewritten
   * and renamed over, so that a reader holding the old file reads on), a version the snapshot names
   * without its commit line gets it (it is live), and a log made for the http/https twin of this
   * base is rewritten for it. A folder without a log gets one (its header, with `id`: a new one
   * unless a generator needs the same bytes every time).
   */
  prepare(pointer: Pointer | undefined, id: string = randomUUID()): Committed {
    let contents = readLog(this.file);
    if (contents === undefined || (contents.versions.length === 0 && contents.headerEnd === 0)) {
      writeWhole(this.file, Buffer.from(`${this.header(id, this.setAsideVersions)}\n`));
      contents = readLog(this.file)!;
    }
    const foreign = foreignTo(contents, pointer);
    if (foreign !== undefined) throw new HistoryError(`${this.file}: ${foreign}`);
    if (checkBase(contents, this.baseIri) === 'twin') {
      const text = fs.readFileSync(this.file, 'utf8');
      const from = `<${contents.base}/`;
      const kept = contents.id ?? id;
      const dropped = contents.dropped;
      const rewritten = text
        .split('\n')
        .map((line, i) =>
          i === 0 ? this.header(kept, dropped) : line.replaceAll(from, `<${this.baseIri}/`),
        )
        .join('\n');
      writeWhole(this.file, Buffer.from(rewritten));
      contents = readLog(this.file)!;
    }
    let result = committed(contents, pointer);
    if (fs.statSync(this.file).size > result.end)
      writeWhole(this.file, fs.readFileSync(this.file).subarray(0, result.end));
    const last = result.versions.at(-1);
    if (last && !last.committed) {
      this.commit(last);
      result = committed(readLog(this.file)!, pointer);
    }
    return result;
  }

  private header(id: string, dropped?: DroppedVersions): string {
    return JSON.stringify({
      history: 1,
      base: this.baseIri,
      log: id,
      ...(dropped ? { dropped } : {}),
    });
  }

  /**
   * Renames the log, when there is one, to `history.jsonl.reset-<seconds>` beside it (a history
   * started anew keeps the old one for its operator); its path, or undefined.
   */
  setAside(now = new Date()): string | undefined {
    if (!fs.existsSync(this.file)) return undefined;
    this.setAsideVersions = heldBy(this.file, this.baseIri);
    const aside = `${this.file}.reset-${Math.floor(now.getTime() / 1000)}`;
    fs.renameSync(this.file, aside);
    return aside;
  }

  /** Appends a version's events and its version line, flushed to disk; not committed yet. */
  append(next: NewVersion): void {
    // Written a piece at a time (a first version's events hold every description): no string of
    // them all. A writer killed half-way leaves lines the next one cuts, as a single write would.
    const fd = fs.openSync(this.file, 'a');
    try {
      let lines: string[] = [];
      let size = 0;
      for (const change of next.changes) {
        const text = eventLine(next, change);
        lines.push(text);
        size += text.length;
        if (size < APPEND_PIECE) continue;
        writeAll(fd, `${lines.join('\n')}\n`);
        lines = [];
        size = 0;
      }
      lines.push(
        JSON.stringify({
          version: next.version,
          time: next.time,
          institutions: next.institutions,
          withdrawn: next.withdrawn,
          events: next.changes.length,
        }),
      );
      writeAll(fd, `${lines.join('\n')}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Marks the version appended last as live (after the snapshot that names it is in place). */
  commit(version: VersionInfo): void {
    appendSynced(this.file, `${JSON.stringify({ commit: version.version, time: version.time })}\n`);
  }

  /**
   * Keeps the newest `keep` committed versions (0: all): older versions are dropped whole, oldest
   * first, but each ISIL's latest event among them is kept (what it serves now, or its tombstone),
   * before the first version kept. Written to a temporary file and renamed over the log.
   * `beforeRename` is a test's hook.
   */
  retain(keep: number, beforeRename?: () => void): number {
    if (keep <= 0) return 0;
    const contents = readLog(this.file);
    if (!contents) return 0;
    const { versions } = committed(contents, undefined);
    // Versions past the last commit line are not touched: they are the snapshot's, not yet marked.
    const droppable = versions.length - keep;
    if (droppable <= 0) return 0;
    const dropped = versions.slice(0, droppable);
    const kept = contents.versions.slice(droppable);
    const later = new Set<string>();
    for (const v of kept) for (const e of v.events) later.add(e.isil);
    const carried = new Map<string, LoggedEvent>();
    for (const v of dropped)
      for (const e of v.events) if (!later.has(e.isil)) carried.set(e.isil, e);
    const bytes = fs.readFileSync(this.file);
    const line = (at: number, length: number) => bytes.subarray(at, at + length + 1);
    const header = readHeaderObject(bytes.toString('utf8', 0, contents.headerEnd));
    header.dropped = droppedWith(contents.dropped, dropped);
    const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
    for (const e of [...carried.values()].sort(byTimeThenIsil)) parts.push(line(e.at, e.length));
    parts.push(bytes.subarray(dropped.at(-1)!.end));
    const temporary = `${this.file}.tmp-${process.pid}`;
    try {
      const fd = fs.openSync(temporary, 'w');
      try {
        for (const part of parts) writeAll(fd, part);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      beforeRename?.();
      fs.renameSync(temporary, this.file);
    } catch (error) {
      fs.rmSync(temporary, { force: true });
      throw error;
    }
    return dropped.length;
  }
}

/** The header line as its object, every field kept (a field a later loader adds too). */
function readHeaderObject(line: string): Record<string, unknown> {
  return JSON.parse(line) as Record<string, unknown>;
}

/** The versions dropped before, and those dropped now (oldest first), as one span. */
function droppedWith(
  before: DroppedVersions | undefined,
  now: readonly VersionInfo[],
): DroppedVersions {
  // A log of an older loader tells when its dropped versions began, not how many there were.
  const count =
    before && before.versions === undefined
      ? {}
      : { versions: (before?.versions ?? 0) + now.length };
  return { first: before?.first ?? now[0]!.time, last: now.at(-1)!.time, ...count };
}

/**
 * The versions a log set aside by a reset held (its pages are this service's past), or undefined
 * when it cannot be read as this base's log: a damaged or foreign one names no past of this feed.
 */
function heldBy(file: string, baseIri: string): DroppedVersions | undefined {
  try {
    const old = readLog(file);
    if (!old || old.versions.length === 0) return old?.dropped;
    checkBase(old, baseIri);
    return droppedWith(old.dropped, old.versions);
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** An event of the version `next` as its line of the log. */
function eventLine(next: NewVersion, change: NewVersion['changes'][number]): string {
  const line: Record<string, unknown> = {
    v: next.version,
    t: next.time,
    e: change.kind,
    isil: change.isil,
  };
  if (change.successors) line.succ = change.successors;
  if (isMemento(change as HistoryEvent)) {
    line.hash = change.hash;
    line.nt = next.description(change.isil);
  }
  return JSON.stringify(line);
}

/** About how many characters of events `append` writes at once. */
const APPEND_PIECE = 1 << 20;

function appendSynced(file: string, text: string): void {
  const fd = fs.openSync(file, 'a');
  try {
    writeAll(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes all of `data`: a write may take fewer bytes (a full disk), and the next one says why. */
export function writeAll(fd: number, data: string | Buffer): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let done = 0; done < bytes.length;)
    done += fs.writeSync(fd, bytes, done, bytes.length - done);
}

/** Writes `bytes` as the whole file: to a temporary file, flushed, renamed over it. */
function writeWhole(file: string, bytes: Buffer): void {
  const temporary = `${file}.tmp-${process.pid}`;
  try {
    const fd = fs.openSync(temporary, 'w');
    try {
      writeAll(fd, bytes);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
