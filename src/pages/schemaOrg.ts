// The schema.org JSON-LD an institution's page embeds for search engines: the kind of
// institution (Library, Museum, ArchiveOrganization, else Organization), its name, identifier,
// address, coordinates, contact and contact functions, and the same institution elsewhere.
import type { Term } from 'n3';
import { LIBTYPES, unknownLibType } from '../rdf/libtype';
import { PREFIXES } from '../rdf/namespaces';
import type { FlatRecord } from '../record/flatRecord';
import { mainFirst, type Graph } from './graph';

const { foaf, v, dbp, dc, dcterms, geo, schema } = PREFIXES;

/**
 * schema.org JSON-LD for search engines: the kind of institution, name, address, geo, contact; its
 * main phone number and e-mail address are the fields' (src/record/fields.ts), as in every format.
 */
export function schemaOrg(
  g: Graph,
  r: string,
  fields: Pick<FlatRecord, 'phone' | 'email'>,
): Record<string, unknown> {
  const kinds = g.types({ value: r } as Term);
  // The agency's type (035E $f), else, for a museum's ISIL (`DE-MUS-…`) whose record says no
  // more, a museum: as the search's facet reads them (src/record/flatRecord.ts).
  const agencyTypes = g.values(r, `${dcterms}type`);
  const agency =
    agencyTypes.map((lt) => LIBTYPES.get(lt)?.kind).find((k) => k !== undefined && k !== 'other') ??
    // A type the code list does not know is not taken for a museum by its ISIL.
    (!agencyTypes.some(unknownLibType) &&
    g.values(r, `${dc}identifier`).some((id) => /^\(ISIL\)DE-MUS-/i.test(id))
      ? 'museum'
      : undefined);
  const type =
    kinds.includes(`${schema}Library`) || agency === 'library'
      ? 'Library'
      : kinds.includes(`${schema}Museum`) || agency === 'museum'
        ? 'Museum'
        : kinds.includes(`${schema}ArchiveOrganization`) || agency === 'archive'
          ? 'ArchiveOrganization'
          : 'Organization';
  const adr = mainFirst(g, g.objects(r, `${v}adr`))[0];
  const at = g.objects(r, `${geo}location`)[0];
  const lat = at && Number(g.first(at, `${geo}lat`));
  const lon = at && Number(g.first(at, `${geo}long`));
  const names = g.values(r, `${foaf}name`);
  const isil = g
    .values(r, `${dc}identifier`)
    .map((i) => /^\(ISIL\)(.+)$/.exec(i)?.[1])
    .find(Boolean);
  const clean = (o: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(o).filter(
        ([, val]) => val !== undefined && !(Array.isArray(val) && val.length === 0),
      ),
    );
  return clean({
    '@context': 'https://schema.org',
    '@type': type,
    '@id': r,
    name: names[0],
    alternateName: [...names.slice(1), ...g.values(r, `${dbp}shortName`)],
    identifier: isil ? { '@type': 'PropertyValue', propertyID: 'ISIL', value: isil } : undefined,
    address: adr
      ? clean({
          '@type': 'PostalAddress',
          streetAddress: g.first(adr, `${v}street-address`),
          postalCode: g.first(adr, `${v}postal-code`),
          addressLocality: g.first(adr, `${v}locality`),
        })
      : undefined,
    geo:
      lat !== undefined && lon !== undefined && Number.isFinite(lat) && Number.isFinite(lon)
        ? { '@type': 'GeoCoordinates', latitude: lat, longitude: lon }
        : undefined,
    telephone: fields.phone,
    email: fields.email,
    url: g.values(r, `${foaf}homepage`)[0],
    sameAs: g.values(r, `${PREFIXES.owl}sameAs`),
    contactPoint: g.objects(r, `${schema}contactPoint`).map((point) =>
      clean({
        '@type': 'ContactPoint',
        contactType: g.first(point, `${schema}contactType`),
        telephone: g.first(point, `${schema}telephone`),
        faxNumber: g.first(point, `${schema}faxNumber`),
        email: g.first(point, `${schema}email`),
      }),
    ),
  });
}
