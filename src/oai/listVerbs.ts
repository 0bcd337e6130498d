// The lists of OAI-PMH (ListIdentifiers, ListRecords): the items a selection picks, cut into pages
// with resumption tokens bound to the list and to the version the history ends with.
import type { Dataset } from '../store/dataset';
import { keepRecords } from '../record/readRecords';
import { historyOf, refuse, type OaiContext } from './oaiContext';
import { formatOf } from './metadataFormats';
import { cannotDisseminate, header, record } from './record';
import { items, select, TYPE_SETS, type Selection, type TypeSet } from './records';
import { datestamp, parseDatestamp, parseOaiRequest, type OaiArguments } from './request';
import { decodeToken, encodeToken, TOKEN_LIFETIME_SECONDS, type Token } from './token';
import { attributes } from './xml';

/** Records in one `ListRecords` answer, headers in one `ListIdentifiers` answer. */
export const RECORDS_PER_PAGE = 100;
export const HEADERS_PER_PAGE = 500;

/** Descriptions asked of the store at once while a page of records is written. */
const IN_FLIGHT = 8;

/** The selection the list's arguments make; a set this repository does not have selects nothing. */
function selectionOf(args: OaiArguments): Selection | undefined {
  const from = args.from === undefined ? undefined : parseDatestamp(args.from, 'from');
  const until = args.until === undefined ? undefined : parseDatestamp(args.until, 'until');
  let set: Selection['set'];
  if (args.set !== undefined) {
    const m = /^(country|type):([^:]+)$/.exec(args.set);
    if (!m) return undefined;
    const kind = m[1] as 'country' | 'type';
    if (kind === 'type' && !(TYPE_SETS as readonly string[]).includes(m[2]!)) return undefined;
    set = { kind, value: m[2]! };
  }
  return {
    ...(from && 'seconds' in from ? { from: from.seconds } : {}),
    ...(until && 'seconds' in until ? { until: until.seconds } : {}),
    ...(set ? { set } : {}),
  };
}

/** The list a request (or the token it resumes) asks for, and where its page starts. */
function listOf(
  verb: 'ListIdentifiers' | 'ListRecords',
  args: OaiArguments,
  context: OaiContext,
): { list: Token; cursor: number } {
  const history = historyOf(context);
  const last = history.versions.at(-1);
  const version = last?.version ?? context.dataset.version;
  const versionTime = last?.time ?? 0;
  if (args.resumptionToken === undefined) {
    const list: Token = {
      verb,
      metadataPrefix: args.metadataPrefix!,
      ...(args.from !== undefined ? { from: args.from } : {}),
      ...(args.until !== undefined ? { until: args.until } : {}),
      ...(args.set !== undefined ? { set: args.set } : {}),
      version,
      versionTime,
      cursor: 0,
      expires: 0,
    };
    return { list, cursor: 0 };
  }
  const token = decodeToken(args.resumptionToken, context.settings.tokenKey);
  if (!token || token.verb !== verb)
    throw refuse('badResumptionToken', `This is not a resumption token of a ${verb} list here.`);
  // The token's list is read again as a request would state it: a token is never more than one.
  const again = parseOaiRequest([
    ['verb', verb],
    ['metadataPrefix', token.metadataPrefix],
    ...(['from', 'until', 'set'] as const).flatMap((k): [string, string][] =>
      token[k] === undefined ? [] : [[k, token[k]]],
    ),
  ]);
  if (!again.ok) throw refuse('badResumptionToken', 'The resumption token names no valid list.');
  if (token.expires < context.now)
    throw refuse(
      'badResumptionToken',
      `The resumption token expired at ${datestamp(token.expires)}: start the list again.`,
    );
  if (token.version !== version || token.versionTime !== versionTime)
    throw refuse(
      'badResumptionToken',
      'The registry has changed since the list began (another version is served): start the list again.',
    );
  return { list: token, cursor: token.cursor };
}

export async function list(
  verb: 'ListIdentifiers' | 'ListRecords',
  args: OaiArguments,
  context: OaiContext,
): Promise<string> {
  const { list: asked, cursor } = listOf(verb, args, context);
  const format = formatOf(asked.metadataPrefix);
  if (!format) throw cannotDisseminate(asked.metadataPrefix);
  const selection = selectionOf(asked);
  if (!selection) throw refuse('noRecordsMatch', `This repository has no set ${asked.set!}.`);
  // The kinds of every institution are read (once a version, before it is served) to select by
  // kind, and for the headers alone; a record's kind is read off its own description.
  const typeOf =
    selection.set?.kind === 'type' || verb === 'ListIdentifiers'
      ? await typesOf(context.dataset)
      : undefined;
  const picked = select(items(historyOf(context)), selection, typeOf);
  if (picked.length === 0)
    throw refuse('noRecordsMatch', 'No record matches the arguments (from, until, set).');
  if (cursor >= picked.length)
    throw refuse('badResumptionToken', 'The resumption token points past the end of its list.');
  const size = verb === 'ListRecords' ? RECORDS_PER_PAGE : HEADERS_PER_PAGE;
  const page = picked.slice(cursor, cursor + size);
  const parts =
    verb === 'ListIdentifiers'
      ? page.map((item) => header(item, context, typeOf?.(item.isil)))
      : await inTurn(page, (item) => record(item, format, context));
  return `<${verb}>${parts.filter((p) => p !== undefined).join('')}${resumption(asked, cursor, page.length, picked.length, context)}</${verb}>`;
}

/**
 * The list's resumption token: none when the list fits in one answer, an empty one on its last
 * part (§3.5), else the token of the next part.
 */
function resumption(
  asked: Token,
  cursor: number,
  pageSize: number,
  completeListSize: number,
  context: OaiContext,
): string {
  const next = cursor + pageSize;
  if (cursor === 0 && next >= completeListSize) return '';
  if (next >= completeListSize)
    return `<resumptionToken${attributes({ completeListSize, cursor })}/>`;
  const expires = context.now + TOKEN_LIFETIME_SECONDS;
  const token = encodeToken({ ...asked, cursor: next, expires }, context.settings.tokenKey);
  return `<resumptionToken${attributes({ expirationDate: datestamp(expires), completeListSize, cursor })}>${token}</resumptionToken>`;
}

/** `make` of each of `list`, `IN_FLIGHT` at a time, in the list's order. */
async function inTurn<T, R>(list: readonly T[], make: (item: T) => Promise<R>): Promise<R[]> {
  const made: R[] = new Array(list.length);
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const i = next++;
      made[i] = await make(list[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, list.length) }, worker));
  return made;
}

const typesMade = new WeakMap<Dataset, Promise<(isil: string) => TypeSet>>();

/**
 * The kind of each live institution of `dataset` (its flat record's `type`), from the entries
 * read once per dataset version for its search index too.
 */
export function typesOf(dataset: Dataset): Promise<(isil: string) => TypeSet> {
  let made = typesMade.get(dataset);
  if (!made) {
    made = keepRecords(dataset).then((batches) => {
      const types = new Map<string, TypeSet>();
      for (const entries of batches)
        for (const e of entries) types.set(e.isil, e.type ?? 'unknown');
      return (isil: string) => types.get(isil) ?? 'unknown';
    });
    typesMade.set(dataset, made);
    made.catch(() => typesMade.delete(dataset));
  }
  return made;
}
