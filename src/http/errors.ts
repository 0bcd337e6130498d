// One error class per HTTP status the service answers with, and small helpers to make them.

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** Links for the body of a 406 or 404 (the documents that do exist). */
    readonly links: readonly { href: string; label: string; type?: string }[] = [],
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const notWellFormed = (text: string, why: string) =>
  new HttpError(404, `"${text}" is not a well-formed ISIL (${why}).`);

export const unknownIsil = (isil: string) =>
  new HttpError(404, `No institution has the ISIL ${isil}.`);

export const notFound = (what = 'No such resource.') => new HttpError(404, what);

export const notAcceptable = (links: HttpError['links']) =>
  new HttpError(
    406,
    'None of the available documents matches the Accept header. Available:',
    {},
    links,
  );

export const methodNotAllowed = () =>
  new HttpError(405, 'This service is read-only: GET, HEAD and OPTIONS only.', {
    Allow: 'GET, HEAD, OPTIONS',
  });

export const notReady = () =>
  new HttpError(503, 'The dataset is not loaded yet.', { 'Retry-After': '5' });
