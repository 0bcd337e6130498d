// The OAI-PMH identifiers of the registry's records (`oai:<repository>:<isil>`) and the repository
// identifier they are made with: a function of BASE_IRI alone, so every replica names a record alike.

/** The `repositoryIdentifier` pattern of `oai-identifier.xsd`: a dotted domain name. */
const REPOSITORY = /^[a-zA-Z][a-zA-Z0-9-]*(\.[a-zA-Z][a-zA-Z0-9-]*)+$/;

/**
 * The repository identifier: the host of `baseIri` when it is a dotted domain name. A development
 * BASE_IRI (`localhost`, an address) is not one, so it gives a name under `.invalid` (RFC 6761),
 * which the schema accepts and nobody owns: `localhost.invalid`, `ip-127-0-0-1.invalid`.
 */
export function repositoryIdentifier(baseIri: string): string {
  const host = new URL(baseIri).hostname.toLowerCase();
  if (REPOSITORY.test(host)) return host;
  const label = host.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return `${/^[a-z]/.test(label) ? label : `ip-${label}`}.invalid`;
}

/** The record identifier of `isil`. */
export const oaiIdentifier = (repository: string, isil: string): string =>
  `oai:${repository}:${isil}`;

/** The ISIL an identifier of this repository names, or undefined when it names none here. */
export function isilOfIdentifier(repository: string, identifier: string): string | undefined {
  const prefix = `oai:${repository}:`;
  return identifier.startsWith(prefix) && identifier.length > prefix.length
    ? identifier.slice(prefix.length)
    : undefined;
}
