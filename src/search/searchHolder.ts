// The search index that follows the dataset being served (issue 18): each new version's index is
// built in the background, from the version's own descriptions read through the store port (the
// same for every adapter), a few at a time so that serving goes first; it replaces the previous
// index once built. Until the first is built, search answers 503 with Retry-After. A build for a
// version that was replaced before it finished is given up. The server builds each version's index
// as soon as it serves it (`eager`); elsewhere (tests) the first search asks for it.
import type { Dataset } from '../store/dataset';
import { searchEntry, type SearchEntry } from './entry';
import { SearchIndex } from './searchIndex';

/** How long after a failed build the next search may start another. */
const RETRY_MS = 30_000;

/** Descriptions read at once while building: leaves the store's thread free for requests. */
const IN_FLIGHT = 4;

export interface BuildReport {
  readonly version: string;
  readonly institutions: number;
  readonly ms: number;
}

export class SearchHolder {
  private index: SearchIndex | undefined;
  private following: Dataset | undefined;
  private started: Dataset | undefined;
  /** The version whose build failed (its store down, say), and when it may be tried again. */
  private failed: { dataset: Dataset; until: number } | undefined;
  /** Whether a version's index is built as soon as it is followed, or at the first `ensure`. */
  eager = false;
  /** The build under way, for tests and the process to wait on. */
  building: Promise<BuildReport | undefined> = Promise.resolve(undefined);
  /** Called after each build, with what it took or why it failed. */
  onBuilt: (report: BuildReport) => void = () => {};
  onFailed: (version: string, error: Error) => void = () => {};

  /** Whether the followed version's index is built (`ready`), being built, or not asked for. */
  get state(): 'ready' | 'building' | 'failed' | 'idle' {
    if (this.index && this.index.version === this.following?.version) return 'ready';
    if (this.failed && this.failed.dataset === this.following) return 'failed';
    return this.started === this.following && this.following ? 'building' : 'idle';
  }

  /** The index searched now, or `undefined` until the first is built. */
  get current(): SearchIndex | undefined {
    return this.index;
  }

  /** From now on, the index follows `dataset`: built in the background, switched to once built. */
  follow(dataset: Dataset): void {
    this.following = dataset;
    if (this.eager) void this.ensure();
  }

  /**
   * Starts building the followed version's index unless it is built or being built; one whose
   * build failed is tried again, by the next search, after `RETRY_MS`.
   */
  ensure(): Promise<BuildReport | undefined> {
    const dataset = this.following;
    if (!dataset || this.started === dataset) return this.building;
    if (this.failed?.dataset === dataset && Date.now() < this.failed.until) return this.building;
    this.started = dataset;
    this.failed = undefined;
    this.building = this.build(dataset).then(
      (report) => {
        if (report) this.onBuilt(report);
        return report;
      },
      (error: Error) => {
        // A version replaced (and freed) while its index was built is not a failure.
        // Nor is a store closed under it as the process stops.
        if (this.following === dataset && error.name !== 'StoreClosed') {
          this.onFailed(dataset.version, error);
          this.failed = { dataset, until: Date.now() + RETRY_MS };
          this.started = undefined;
        }
        return undefined;
      },
    );
    return this.building;
  }

  private async build(dataset: Dataset): Promise<BuildReport | undefined> {
    const started = Date.now();
    // The same data again (a reload of an unchanged snapshot): the index is the same.
    if (this.index?.version === dataset.version) return undefined;
    const institutions = [...dataset.institutions()];
    const entries: SearchEntry[] = new Array(institutions.length);
    let next = 0;
    const worker = async () => {
      while (next < institutions.length && this.following === dataset) {
        const i = next++;
        const institution = institutions[i]!;
        entries[i] = searchEntry(institution.isil, await dataset.describe(institution));
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    if (this.following !== dataset) return undefined;
    const index = await SearchIndex.build(dataset.version, entries);
    if (this.following !== dataset) return undefined;
    this.index = index;
    return { version: dataset.version, institutions: entries.length, ms: Date.now() - started };
  }
}
