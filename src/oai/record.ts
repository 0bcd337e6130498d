// The records of the repository as OAI-PMH writes them: an item's header (identifier, datestamp,
// sets, deleted status) and, for a live item, its metadata in the format asked for.
import { flatRecord } from '../record/flatRecord';
import { FORMATS, OAI_DC, oaiDc, rdfXml, RDF_FULL, type MetadataFormat } from './metadataFormats';
import type { ProfileName } from '../rdf/profiles';
import { historyOf, refuse, type OaiContext } from './oaiContext';
import { isilOfIdentifier, oaiIdentifier } from './identifiers';
import { itemOf, type Item, type TypeSet } from './records';
import { datestamp } from './request';
import { element } from './xml';

/** A setSpec segment (OAI-PMH.xsd `setSpecType`). */
export const SEGMENT = /^[A-Za-z0-9\-_.!~*'()]+$/;

/** The item an identifier names, or idDoesNotExist. */
export function itemNamed(identifier: string, context: OaiContext): Item {
  const isil = isilOfIdentifier(context.settings.repository, identifier);
  const item = isil === undefined ? undefined : itemOf(historyOf(context), isil);
  if (!item) throw refuse('idDoesNotExist', `No record is identified as ${identifier}.`);
  return item;
}

/** The current description of an ISIL, live or withdrawn, or undefined when the dataset has none. */
export async function describe(isil: string, context: OaiContext, profile: ProfileName = 'zdb') {
  const found = context.dataset.exact(isil);
  if (found?.kind === 'found') return context.dataset.describe(found.institution, profile);
  if (found?.kind !== 'withdrawn') return undefined;
  const { withdrawn } = found;
  return context.dataset.describe({ ...withdrawn, modified: withdrawn.modified }, profile);
}

/** An item's header; `type`: its kind, when live (deleted items are in no `type:` set). */
export function header(item: Item, context: OaiContext, type?: TypeSet): string {
  const sets = [`country:${item.country}`, ...(type && !item.deleted ? [`type:${type}`] : [])];
  return (
    `<header${item.deleted ? ' status="deleted"' : ''}>` +
    element('identifier', oaiIdentifier(context.settings.repository, item.isil)) +
    `<datestamp>${datestamp(item.event.time)}</datestamp>` +
    sets
      .filter((s) => SEGMENT.test(s.slice(s.indexOf(':') + 1)))
      .map((s) => element('setSpec', s))
      .join('') +
    '</header>'
  );
}

/**
 * A record: its header, and its metadata when it is live; undefined when the format cannot carry
 * it (RDF/XML for a description it cannot write) or the dataset no longer serves it.
 */
export async function record(
  item: Item,
  format: MetadataFormat,
  context: OaiContext,
): Promise<string | undefined> {
  if (item.deleted) return `<record>${header(item, context)}</record>`;
  // One read: the header's kind is in either profile's description (the flat record reads no
  // field that only `full` has).
  const description = await describe(item.isil, context, format === RDF_FULL ? 'full' : 'zdb');
  if (!description) return undefined;
  const entry = flatRecord(item.isil, description);
  const metadata =
    format === OAI_DC ? oaiDc(entry, datestamp(item.event.time)) : rdfXml(description);
  return metadata === undefined
    ? undefined
    : `<record>${header(item, context, entry.type ?? 'unknown')}<metadata>${metadata}</metadata></record>`;
}

export const cannotDisseminate = (prefix: string) =>
  refuse(
    'cannotDisseminateFormat',
    `${prefix} is not a metadata format of this repository (${FORMATS.map((f) => f.prefix).join(', ')}).`,
  );
