// When a document of the version served last changed: its Last-Modified (RFC 9110 §8.8.2).
import type { Description } from '../rdf/description';
import type { Dataset, Institution } from '../store/dataset';

/**
 * When a document last changed: when the history says the institution last did; without one, when its record did (its description's `dcterms:modified`, else
 * the index's, else when the dataset was loaded), or when the links served beside it were made, if
 * that is later (and not after the load). Every document of a version with links takes their date:
 * a link added to an institution without one changes its document too.
 */
export function lastModified(
  dataset: Dataset,
  institution: Institution,
  description: Description,
): Date {
  // The time of the institution's last event, where the history knows it: a new load of the same
  // record keeps it (docs/history.md). Never after the load (RFC 9110 §8.8.2.1).
  const changed = dataset.history.lastChange(institution.isil);
  if (changed !== undefined) return new Date(Math.min(changed * 1000, dataset.loadedAt.getTime()));
  const record = description.modified ?? institution.modified ?? dataset.loadedAt;
  // A links file named for a date still to come (a careless name) dates them no later than the
  // load: HTTP forbids a Last-Modified after the answer's own date (RFC 9110 §8.8.2.1).
  const made = dataset.links?.modified;
  const links = made !== undefined && made > dataset.loadedAt ? dataset.loadedAt : made;
  return links !== undefined && links > record ? links : record;
}
