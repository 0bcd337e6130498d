// A history held in memory: its events in order, indexed by ISIL, and the descriptions of its
// mementos read through a function (the file log reads them from disk, the derived history of a
// version without a log from the store that serves it).
import { isilKey } from '../rdf/isil';
import {
  isMemento,
  type DroppedVersions,
  type History,
  type HistoryEvent,
  type VersionInfo,
} from './model';

const NONE: readonly HistoryEvent[] = Object.freeze([]);

export class MemoryHistory implements History {
  private readonly byIsil = new Map<string, HistoryEvent[]>();
  private readonly mementosOf = new Map<string, HistoryEvent[]>();
  /** Each ISIL's spelling by its case-folded key. */
  private readonly folded = new Map<string, string>();

  constructor(
    readonly versions: readonly VersionInfo[],
    /** Every event, in order of version time, then ISIL. */
    private readonly list: readonly HistoryEvent[],
    private readonly read: (event: HistoryEvent) => Promise<string>,
    private readonly onClose?: () => void,
    readonly derived = false,
    readonly dropped?: DroppedVersions,
  ) {
    for (const event of list) {
      const events = this.byIsil.get(event.isil);
      if (events) events.push(event);
      else {
        this.byIsil.set(event.isil, [event]);
        const key = isilKey(event.isil);
        const known = this.folded.get(key);
        if (known === undefined || event.isil < known) this.folded.set(key, event.isil);
      }
      if (!isMemento(event)) continue;
      const mementos = this.mementosOf.get(event.isil);
      if (mementos) mementos.push(event);
      else this.mementosOf.set(event.isil, [event]);
    }
  }

  get size(): number {
    return this.list.length;
  }

  events(isil: string): readonly HistoryEvent[] {
    return this.byIsil.get(isil) ?? NONE;
  }

  spelling(isil: string): string | undefined {
    return this.folded.get(isilKey(isil));
  }

  mementos(isil: string): readonly HistoryEvent[] {
    return this.mementosOf.get(isil) ?? NONE;
  }

  lastChange(isil: string): number | undefined {
    return this.byIsil.get(isil)?.at(-1)?.time;
  }

  description(event: HistoryEvent): Promise<string> {
    if (!isMemento(event))
      return Promise.reject(new Error(`a ${event.kind} event of ${event.isil} has no description`));
    return this.read(event);
  }

  close(): void {
    this.onClose?.();
  }

  *all(after = 0): Iterable<HistoryEvent> {
    for (let i = Math.max(0, after); i < this.list.length; i++) yield this.list[i]!;
  }
}
