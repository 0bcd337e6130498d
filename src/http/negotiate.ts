// Chooses the document for an `Accept` header (RFC 9110 §12.5.1), as the HTTP contract §2 decides.
import { FORMATS, type Format } from '../rdf/formats';
import { negotiateAmong } from '../util/accept';

export { MAX_ACCEPT_RANGES, negotiateAmong, parseAccept, type Offer } from '../util/accept';

/**
 * The format to redirect to, or `undefined` when nothing acceptable is offered (406).
 * No header, an empty one, or one with no parseable range means "anything": HTML.
 * Equal q-values are broken by the order of `FORMATS`.
 */
export function negotiate(accept: string | undefined): Format | undefined {
  return negotiateAmong(accept, FORMATS);
}
