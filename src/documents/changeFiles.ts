// The change files beside a version's dumps (docs/history.md): the changes the version made, and
// those of the last 1, 7 and 31 days before its time, each as JSON Lines (one event a line) and as
// N-Triples of the descriptions created or updated, read from the version's history.
import fs from 'node:fs';
import type { History, HistoryEvent } from '../history/model';
import { isMemento } from '../history/model';
import { withOwnBlankNodes } from '../rdf/description';
import { splitWrittenNTriples } from '../rdf/ntriples';
import { Writing } from './dumpWriting';

/** Which changes a file holds: the version's own, or a window of days up to its time. */
export type ChangePeriod = 'version' | '1d' | '7d' | '31d';

export const CHANGE_PERIODS: readonly { period: ChangePeriod; days?: number; stem: string }[] = [
  { period: 'version', stem: 'changes' },
  { period: '1d', days: 1, stem: 'changes-1d' },
  { period: '7d', days: 7, stem: 'changes-7d' },
  { period: '31d', days: 31, stem: 'changes-31d' },
];

/** The suffixes of the change files' names, for the dumps' name patterns. */
export const CHANGE_SUFFIX = 'changes(?:-(?:1|7|31)d)?\\.(?:jsonl|nt)\\.gz';

export interface ChangeFile {
  readonly path: string;
  readonly period: ChangePeriod;
  readonly format: 'changes' | 'changes-nt';
  readonly mediaType: string;
  readonly bytes: number;
  readonly sha256: string;
}

const time = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/**
 * One event as a line: when, which ISIL, what happened, the hash of the description served before
 * (null when none was: new, or withdrawn before) and after (null when none is), the successors of
 * a withdrawal, and the description served from then on for a creation or an update.
 */
export function changeLine(
  event: HistoryEvent,
  before: string | null,
  description: string | undefined,
): string {
  return `${JSON.stringify({
    time: time(event.time),
    version: event.version,
    isil: event.isil,
    kind: event.kind,
    hashBefore: before,
    hashAfter: event.hash ?? null,
    ...(event.successors ? { successors: event.successors } : {}),
    ...(description !== undefined ? { description } : {}),
  })}\n`;
}

/** One period's two files being written, and the last event of each ISIL in it. */
class PeriodFiles {
  readonly lines: Writing;
  readonly triples: Writing;
  readonly last = new Map<string, HistoryEvent>();
  descriptions = 0;
  constructor(
    readonly period: (typeof CHANGE_PERIODS)[number],
    readonly stem: string,
  ) {
    this.lines = new Writing(`${stem}.${period.stem}.jsonl.gz`, true);
    this.triples = new Writing(`${stem}.${period.stem}.nt.gz`, true);
  }
}

/** Descriptions asked of the store at once: it answers them in turn, without waiting for each. */
const BATCH = 50;

/** An event some period holds, the hash served before it, and the periods that hold it. */
interface InPeriods {
  readonly event: HistoryEvent;
  readonly before: string | null;
  readonly periods: readonly PeriodFiles[];
}

/** The events of the widest period, each with the periods that hold it; each period's last events. */
function eventsInPeriods(history: History, periods: readonly PeriodFiles[]): InPeriods[] {
  const version = history.versions.at(-1)!;
  const holds = (p: PeriodFiles, e: HistoryEvent) =>
    // By time: a version that returns to earlier data has that version's name again.
    p.period.days === undefined
      ? e.time === version.time
      : e.time > version.time - p.period.days * 86_400;
  const served = new Map<string, string>();
  const found: InPeriods[] = [];
  for (const event of history.all()) {
    const before = served.get(event.isil) ?? null;
    if (event.hash && isMemento(event)) served.set(event.isil, event.hash);
    else served.delete(event.isil);
    const holding = periods.filter((p) => holds(p, event));
    if (holding.length === 0) continue;
    found.push({ event, before, periods: holding });
    for (const p of holding) p.last.set(event.isil, event);
  }
  return found;
}

/**
 * Writes the change files of the version `history` ends, named `<stem>.changes….gz`; each
 * renamed into place once whole. Each description is read once, for every file that holds it.
 * On failure none of them is left.
 */
export async function writeChangeFiles(history: History, stem: string): Promise<ChangeFile[]> {
  if (history.versions.length === 0) return [];
  const periods = CHANGE_PERIODS.map((p) => new PeriodFiles(p, stem));
  const written: ChangeFile[] = [];
  try {
    const events = eventsInPeriods(history, periods);
    for (let at = 0; at < events.length; at += BATCH) {
      const batch = events.slice(at, at + BATCH);
      const descriptions = await Promise.all(
        batch.map(({ event }) => (isMemento(event) ? history.description(event) : undefined)),
      );
      for (const [i, { event, before, periods: holding }] of batch.entries()) {
        const description = descriptions[i];
        const line = changeLine(event, before, description);
        for (const p of holding) {
          await p.lines.write(line);
          // The N-Triples hold what is served after the period: each ISIL's last description.
          if (description !== undefined && p.last.get(event.isil) === event)
            await p.triples.write(
              withOwnBlankNodes(splitWrittenNTriples(description), `d${++p.descriptions}_`),
            );
        }
      }
    }
    for (const p of periods)
      for (const [writing, format, mediaType] of [
        [p.lines, 'changes', 'application/x-ndjson'],
        [p.triples, 'changes-nt', 'application/n-triples'],
      ] as const)
        written.push({
          path: writing.file,
          period: p.period.period,
          format,
          mediaType,
          ...(await writing.close()),
        });
    return written;
  } catch (error) {
    for (const p of periods) {
      p.lines.abandon();
      p.triples.abandon();
    }
    for (const file of written) fs.rmSync(file.path, { force: true });
    throw error;
  }
}
