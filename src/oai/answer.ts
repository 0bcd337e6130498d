// The OAI-PMH 2.0 answers (the six verbs and their errors) of the dataset served and the history
// it ends: an XML document for each request, built from the change log's events and the
// institutions' descriptions. The HTTP route (src/http/oai.ts) reads the request and sends this.
import { historyOf, Refusal, refuse, type OaiContext } from './oaiContext';
import { FORMATS, formatOf, rdfXml, RDF, RDF_FULL } from './metadataFormats';
import { oaiIdentifier } from './identifiers';
import { list } from './listVerbs';
import { cannotDisseminate, describe, itemNamed, record, SEGMENT } from './record';
import { items, TYPE_SETS, type TypeSet } from './records';
import { datestamp, parseOaiRequest, type OaiArguments, type OaiError, type Verb } from './request';
import { attributes, element, xmlText } from './xml';

export type { OaiContext, OaiSettings } from './oaiContext';

const OAI_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
  'xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">';

/** The answer to the request `pairs` make (its arguments, in the order sent). */
export async function answerOai(
  pairs: Iterable<[string, string]>,
  context: OaiContext,
): Promise<string> {
  const request = parseOaiRequest(pairs);
  if (!request.ok) return envelope(context, request.verb, request.args, errors(request.errors));
  const { verb, args } = request;
  try {
    return envelope(context, verb, args, await VERB_ANSWERS[verb](args, context));
  } catch (thrown) {
    if (thrown instanceof Refusal) return envelope(context, verb, args, errors(thrown.errors));
    throw thrown;
  }
}

/**
 * The body of an HTTP error at the provider, in XML: a request the protocol cannot take (not a
 * form, too large, another method) is `badArgument` in an OAI-PMH answer; a `503` (the service
 * loading, stopping, busy) or another server error is a short XML document naming its status,
 * since the protocol has no error code for it (a harvester heeds the status and Retry-After).
 */
export function httpErrorAnswer(
  status: number,
  message: string,
  context: Pick<OaiContext, 'settings' | 'now'>,
): string {
  if (status >= 500)
    return `<?xml version="1.0" encoding="UTF-8"?>\n<error status="${status}">${xmlText(message)}</error>\n`;
  return envelope(context, undefined, undefined, errors([{ code: 'badArgument', message }]));
}

function envelope(
  context: Pick<OaiContext, 'settings' | 'now'>,
  verb: Verb | undefined,
  args: OaiArguments | undefined,
  body: string,
): string {
  // badVerb and badArgument name no argument: they may not be valid (§3.2).
  const named = verb ? attributes({ verb, ...args }) : '';
  return (
    `${OAI_HEAD}<responseDate>${datestamp(context.now)}</responseDate>` +
    `<request${named}>${xmlText(context.settings.baseUrl)}</request>${body}</OAI-PMH>\n`
  );
}

const errors = (list: readonly OaiError[]): string =>
  list.map((e) => `<error code="${e.code}">${xmlText(e.message)}</error>`).join('');

type VerbAnswer = (args: OaiArguments, context: OaiContext) => Promise<string> | string;

const VERB_ANSWERS: Record<Verb, VerbAnswer> = {
  Identify: identify,
  ListMetadataFormats: listMetadataFormats,
  ListSets: listSets,
  ListIdentifiers: (args, context) => list('ListIdentifiers', args, context),
  ListRecords: (args, context) => list('ListRecords', args, context),
  GetRecord: getRecord,
};

function identify(_: OaiArguments, context: OaiContext): string {
  const { settings } = context;
  const history = historyOf(context);
  const first = history.versions[0]?.time ?? Math.floor(context.dataset.loadedAt.getTime() / 1000);
  const sample = items(history).find((i) => !i.deleted)?.isil ?? 'DE-1a';
  return (
    '<Identify>' +
    element('repositoryName', settings.repositoryName) +
    element('baseURL', settings.baseUrl) +
    '<protocolVersion>2.0</protocolVersion>' +
    element('adminEmail', settings.adminEmail) +
    `<earliestDatestamp>${datestamp(first)}</earliestDatestamp>` +
    '<deletedRecord>persistent</deletedRecord>' +
    '<granularity>YYYY-MM-DDThh:mm:ssZ</granularity>' +
    '<description><oai-identifier xmlns="http://www.openarchives.org/OAI/2.0/oai-identifier" ' +
    'xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai-identifier http://www.openarchives.org/OAI/2.0/oai-identifier.xsd">' +
    '<scheme>oai</scheme>' +
    element('repositoryIdentifier', settings.repository) +
    '<delimiter>:</delimiter>' +
    element('sampleIdentifier', oaiIdentifier(settings.repository, sample)) +
    '</oai-identifier></description></Identify>'
  );
}

async function listMetadataFormats(args: OaiArguments, context: OaiContext): Promise<string> {
  let formats = FORMATS;
  if (args.identifier !== undefined) {
    const item = itemNamed(args.identifier, context);
    // A deleted item has no metadata to disseminate in any format: it is listed with all, as
    // its header is in each.
    if (!item.deleted) {
      const description = await describe(item.isil, context);
      if (description === undefined || rdfXml(description) === undefined)
        formats = formats.filter((f) => f !== RDF && f !== RDF_FULL);
    }
  }
  return (
    '<ListMetadataFormats>' +
    formats
      .map(
        (f) =>
          `<metadataFormat>${element('metadataPrefix', f.prefix)}${element('schema', f.schema)}` +
          `${element('metadataNamespace', f.namespace)}</metadataFormat>`,
      )
      .join('') +
    '</ListMetadataFormats>'
  );
}

const TYPE_NAMES: Record<TypeSet, string> = {
  library: 'Libraries',
  archive: 'Archives',
  museum: 'Museums',
  other: 'Other institutions',
  unknown: 'Institutions of unknown kind',
};

/** The sets: one for each ISIL prefix the history knows, one for each kind of institution. */
function listSets(args: OaiArguments, context: OaiContext): string {
  if (args.resumptionToken !== undefined)
    throw refuse('badResumptionToken', 'ListSets answers in one part: it issues no tokens.');
  const countries = [...new Set(items(historyOf(context)).map((i) => i.country))]
    .filter((c) => SEGMENT.test(c))
    .sort();
  return (
    '<ListSets>' +
    countries
      .map(
        (c) =>
          `<set>${element('setSpec', `country:${c}`)}${element('setName', `ISILs with the prefix ${c}`)}</set>`,
      )
      .join('') +
    TYPE_SETS.map(
      (t) => `<set>${element('setSpec', `type:${t}`)}${element('setName', TYPE_NAMES[t])}</set>`,
    ).join('') +
    '</ListSets>'
  );
}

async function getRecord(args: OaiArguments, context: OaiContext): Promise<string> {
  const format = formatOf(args.metadataPrefix!);
  const item = itemNamed(args.identifier!, context);
  if (!format) throw cannotDisseminate(args.metadataPrefix!);
  const written = await record(item, format, context);
  if (written === undefined)
    throw refuse(
      'cannotDisseminateFormat',
      `The record ${args.identifier!} cannot be disseminated as ${format.prefix}.`,
    );
  return `<GetRecord>${written}</GetRecord>`;
}
