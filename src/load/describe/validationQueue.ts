// The SHACL validation of a load, beside the loading: institutions queued and sent to the
// validator's workers in batches, a bounded number in their hands at once, and the defects tallied
// for the report.
import type { DefectCount } from '../report';
import type { Defect, DefectClass, Institution, Validator } from './validator';

/** How many examples of each defect class the report shows. */
const DEFECT_EXAMPLES = 3;
/**
 * Institutions sent to a validating worker in one message: enough that messages cost little
 * beside the checks (about a millisecond each), few enough that the last batches end soon.
 */
const VALIDATION_BATCH = 200;
/**
 * Batches in the validator's hands at most, per worker: each worker has the next batch queued
 * while it checks one, and the loader, when ahead, waits instead of holding every institution's
 * text (memory stays bounded, whatever the number of records).
 */
const VALIDATION_BATCHES_PER_WORKER = 2;

/** The institutions of a load on their way to the validator, and the batches in its hands. */
export class ValidationQueue {
  /** Institutions waiting to be sent to the validator, with what to do with their defects. */
  private unchecked: { institution: Institution; checked: (defects: Defect[]) => void }[] = [];
  /** Batches sent to the validator and not answered yet. */
  private readonly checking = new Set<Promise<void>>();
  /** The first batch that failed: the load fails with it. */
  private checkFailure: unknown;

  constructor(private readonly validator: Validator) {}

  /**
   * Queues an institution for the validator and sends a full batch, without waiting for its
   * answer unless the validator has as many batches in hand as it may.
   */
  async check(institution: Institution, checked: (defects: Defect[]) => void): Promise<void> {
    this.unchecked.push({ institution, checked });
    if (this.unchecked.length >= VALIDATION_BATCH) await this.send();
  }

  async send(): Promise<void> {
    const batch = this.unchecked;
    this.unchecked = [];
    if (batch.length > 0) {
      const done = this.validator
        .validate(batch.map((b) => b.institution))
        .then((found) => found.forEach((defects, i) => batch[i]!.checked(defects)));
      this.checking.add(done);
      done.then(
        () => this.checking.delete(done),
        (error: unknown) => {
          this.checking.delete(done);
          this.checkFailure ??= error;
        },
      );
    }
    await this.inHand(this.validator.workers * VALIDATION_BATCHES_PER_WORKER - 1);
  }

  /** Waits until at most `bound` batches are in the validator's hands; throws if one failed. */
  async inHand(bound: number): Promise<void> {
    while (this.checking.size > bound && this.checkFailure === undefined)
      await Promise.race(this.checking).catch(() => undefined);
    if (this.checkFailure !== undefined) throw this.checkFailure;
  }
}

/** The defects of a load by class, with a few examples of each. */
export function tally(lists: readonly Defect[][]): DefectCount[] {
  const byClass = new Map<DefectClass, { count: number; examples: Defect[] }>();
  for (const defects of lists) {
    for (const defect of defects) {
      const entry = byClass.get(defect.defect) ?? { count: 0, examples: [] };
      entry.count++;
      if (entry.examples.length < DEFECT_EXAMPLES) entry.examples.push(defect);
      byClass.set(defect.defect, entry);
    }
  }
  return [...byClass].map(([defect, { count, examples }]) => ({ defect, count, examples }));
}
