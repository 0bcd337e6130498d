// The profiles the service describes an institution in (W3C dx-prof-conneg), by token and IRI.

export type ProfileName = 'zdb' | 'full';

/** What the service publishes under each profile; the first is the default. */
export const PROFILES: readonly ProfileName[] = ['zdb', 'full'];

/** The path a profile's IRI and description live at: `{BASE_IRI}/profiles/<token>`. */
export const PROFILES_PATH = '/profiles/';

export function profileIri(baseIri: string, profile: ProfileName): string {
  return `${baseIri}${PROFILES_PATH}${profile}`;
}

/** The terms of this service where FOAF, vCard and schema.org have none (docs/data-model.md). */
export const TERMS = 'https://ld.zdb-services.de/terms#';

/** The code lists' concepts, `{BASE_IRI}/vocab/<scheme>/<code>` (served by the code lists' routes). */
export type CodeScheme = 'institution-types' | 'funders' | 'stock-sizes' | 'status';

export function conceptIri(baseIri: string, scheme: CodeScheme, code: string): string {
  return `${baseIri}/vocab/${scheme}/${encodeURIComponent(code)}`;
}
