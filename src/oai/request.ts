// An OAI-PMH request read from its arguments (OAI-PMH 2.0 §3.1): the verb, the arguments it takes,
// each checked for syntax, or the error the protocol names for what is wrong. Pure: the HTTP route
// hands in the arguments of a GET's query or a POST's form.

export const VERBS = [
  'Identify',
  'ListMetadataFormats',
  'ListSets',
  'ListIdentifiers',
  'ListRecords',
  'GetRecord',
] as const;
export type Verb = (typeof VERBS)[number];

/** The error codes of OAI-PMH 2.0 §3.6. */
export type ErrorCode =
  | 'badArgument'
  | 'badResumptionToken'
  | 'badVerb'
  | 'cannotDisseminateFormat'
  | 'idDoesNotExist'
  | 'noRecordsMatch'
  | 'noMetadataFormats'
  | 'noSetHierarchy';

export interface OaiError {
  readonly code: ErrorCode;
  readonly message: string;
}

/** The arguments of a request, each at most once, as written (checked for syntax). */
export interface OaiArguments {
  readonly identifier?: string;
  readonly metadataPrefix?: string;
  readonly from?: string;
  readonly until?: string;
  readonly set?: string;
  readonly resumptionToken?: string;
}

export type OaiRequest =
  | { readonly ok: true; readonly verb: Verb; readonly args: OaiArguments }
  /** `verb`: set when the verb was valid (the `request` element then names it and its arguments). */
  | {
      readonly ok: false;
      readonly verb?: Verb;
      readonly args?: OaiArguments;
      readonly errors: readonly OaiError[];
    };

type Argument = keyof OaiArguments;

/** Each verb's arguments: required, optional, and exclusive (alone, with the verb). */
const ARGUMENTS: Record<
  Verb,
  { required: readonly Argument[]; optional: readonly Argument[]; exclusive?: Argument }
> = {
  Identify: { required: [], optional: [] },
  ListMetadataFormats: { required: [], optional: ['identifier'] },
  ListSets: { required: [], optional: [], exclusive: 'resumptionToken' },
  ListIdentifiers: {
    required: ['metadataPrefix'],
    optional: ['from', 'until', 'set'],
    exclusive: 'resumptionToken',
  },
  ListRecords: {
    required: ['metadataPrefix'],
    optional: ['from', 'until', 'set'],
    exclusive: 'resumptionToken',
  },
  GetRecord: { required: ['identifier', 'metadataPrefix'], optional: [] },
};

/** Longest argument value read: anything longer is refused before it is looked at. */
export const MAX_ARGUMENT = 2048;

/** `setSpec` and `metadataPrefix` syntax (OAI-PMH.xsd `setSpecType`, `metadataPrefixType`). */
const PREFIX = /^[A-Za-z0-9\-_.!~*'()]+$/;
const SET_SPEC = /^[A-Za-z0-9\-_.!~*'()]+(:[A-Za-z0-9\-_.!~*'()]+)*$/;
/** An identifier is a URI: a scheme and no character a URI cannot hold. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]+$/;

const error = (code: ErrorCode, message: string): OaiError => ({ code, message });

/** The request `pairs` (name, value, in the order sent) make. */
export function parseOaiRequest(pairs: Iterable<[string, string]>): OaiRequest {
  const seen = new Map<string, string[]>();
  for (const [name, value] of pairs) seen.set(name, [...(seen.get(name) ?? []), value]);
  const verbs = seen.get('verb') ?? [];
  if (verbs.length !== 1 || !(VERBS as readonly string[]).includes(verbs[0]!))
    return {
      ok: false,
      errors: [
        error(
          'badVerb',
          verbs.length === 0
            ? 'The verb argument is missing.'
            : verbs.length > 1
              ? 'The verb argument is repeated.'
              : `${JSON.stringify(verbs[0]!.slice(0, 100))} is not an OAI-PMH verb (${VERBS.join(', ')}).`,
        ),
      ],
    };
  const verb = verbs[0] as Verb;
  seen.delete('verb');
  const rule = ARGUMENTS[verb];
  const allowed = new Set<string>([
    ...rule.required,
    ...rule.optional,
    ...(rule.exclusive ? [rule.exclusive] : []),
  ]);
  const errors: OaiError[] = [];
  for (const [name, values] of seen) {
    if (!allowed.has(name))
      errors.push(
        error('badArgument', `${verb} takes no argument ${JSON.stringify(name.slice(0, 100))}.`),
      );
    else if (values.length > 1) errors.push(error('badArgument', `${name} is repeated.`));
    else if (values[0]!.length > MAX_ARGUMENT)
      errors.push(error('badArgument', `${name} is longer than ${MAX_ARGUMENT} characters.`));
  }
  if (errors.length > 0) return { ok: false, errors };
  const args: Partial<Record<Argument, string>> = {};
  for (const [name, [value]] of seen) args[name as Argument] = value;
  if (rule.exclusive && args[rule.exclusive] !== undefined) {
    if (seen.size > 1)
      return {
        ok: false,
        errors: [error('badArgument', `${rule.exclusive} is an exclusive argument.`)],
      };
    return { ok: true, verb, args };
  }
  for (const name of rule.required)
    if (args[name] === undefined)
      errors.push(error('badArgument', `${verb} needs the argument ${name}.`));
  if (args.metadataPrefix !== undefined && !PREFIX.test(args.metadataPrefix))
    errors.push(error('badArgument', 'metadataPrefix is not a metadata prefix.'));
  if (args.set !== undefined && !SET_SPEC.test(args.set))
    errors.push(error('badArgument', 'set is not a setSpec.'));
  if (args.identifier !== undefined && !URI.test(args.identifier))
    errors.push(error('badArgument', 'identifier is not a URI.'));
  const from = args.from === undefined ? undefined : parseDatestamp(args.from, 'from');
  const until = args.until === undefined ? undefined : parseDatestamp(args.until, 'until');
  for (const bound of [from, until]) if (bound && 'code' in bound) errors.push(bound);
  if (from && until && !('code' in from) && !('code' in until)) {
    if (from.day !== until.day)
      errors.push(error('badArgument', 'from and until have different granularities.'));
    else if (from.seconds > until.seconds)
      errors.push(error('badArgument', 'from is later than until.'));
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, verb, args };
}

/** A `from` or `until` bound: its second (the first of its day, or its last for `until`). */
export interface Bound {
  readonly seconds: number;
  readonly day: boolean;
}

/**
 * A datestamp argument in either granularity the protocol knows (`YYYY-MM-DD`, or
 * `YYYY-MM-DDThh:mm:ssZ`, which this repository supports), inclusive: `until` as a day is its
 * last second. A date that does not exist (30 February) is a bad argument.
 */
export function parseDatestamp(text: string, which: 'from' | 'until'): Bound | OaiError {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})Z)?$/.exec(text);
  const bad = error(
    'badArgument',
    `${which} is not a datestamp of the form YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ.`,
  );
  if (!m) return bad;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  const ms = Date.UTC(y!, mo! - 1, d!, h, mi, s);
  const day = m[4] === undefined;
  const back = new Date(ms).toISOString();
  if (
    back.slice(0, 10) !== text.slice(0, 10) ||
    (!day && back.slice(11, 19) !== text.slice(11, 19))
  )
    return bad;
  const seconds = ms / 1000;
  return { seconds: day && which === 'until' ? seconds + 86_399 : seconds, day };
}

/** A datestamp in the repository's granularity (seconds, UTC). */
export const datestamp = (seconds: number): string =>
  `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
