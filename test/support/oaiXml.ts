// Reads an OAI-PMH answer for the tests (with saxes, a conforming XML parser): the request element,
// errors, headers, each record's metadata as written, the resumption token and the other elements'
// text by name. Validity is checked apart, against the schemas (oaiSchema.ts).
import { SaxesParser } from 'saxes';

export interface OaiHeader {
  readonly identifier: string;
  readonly datestamp: string;
  readonly setSpecs: readonly string[];
  readonly deleted: boolean;
}

export interface OaiAnswer {
  readonly request: Readonly<Record<string, string>>;
  readonly requestText: string;
  readonly errors: readonly { readonly code: string; readonly text: string }[];
  readonly headers: readonly OaiHeader[];
  /** Each record's metadata (its inner XML), undefined for a deleted record. */
  readonly metadata: readonly (string | undefined)[];
  readonly token?: {
    readonly value: string;
    readonly attributes: Readonly<Record<string, string>>;
  };
  /** Text of every element by local name, in document order. */
  readonly text: ReadonlyMap<string, readonly string[]>;
}

export function readOai(xml: string): OaiAnswer {
  const parser = new SaxesParser({ xmlns: true });
  const text = new Map<string, string[]>();
  const stack: { name: string; attributes: Record<string, string>; text: string }[] = [];
  const errors: { code: string; text: string }[] = [];
  const headers: OaiHeader[] = [];
  let header:
    { identifier: string; datestamp: string; setSpecs: string[]; deleted: boolean } | undefined;
  let request: Record<string, string> = {};
  let requestText = '';
  let token: OaiAnswer['token'];
  parser.on('opentag', (tag) => {
    const attributes: Record<string, string> = {};
    for (const [name, a] of Object.entries(tag.attributes))
      if (typeof a === 'object' && !name.startsWith('xmlns')) attributes[a.local] = a.value;
    stack.push({ name: tag.local!, attributes, text: '' });
    if (tag.local === 'header' && tag.uri === 'http://www.openarchives.org/OAI/2.0/')
      header = {
        identifier: '',
        datestamp: '',
        setSpecs: [],
        deleted: attributes.status === 'deleted',
      };
  });
  parser.on('text', (t) => {
    const top = stack.at(-1);
    if (top) top.text += t;
  });
  parser.on('closetag', (tag) => {
    const top = stack.pop()!;
    text.set(top.name, [...(text.get(top.name) ?? []), top.text]);
    if (tag.uri !== 'http://www.openarchives.org/OAI/2.0/') return;
    if (top.name === 'request') {
      request = top.attributes;
      requestText = top.text;
    } else if (top.name === 'error') errors.push({ code: top.attributes.code!, text: top.text });
    else if (top.name === 'resumptionToken')
      token = { value: top.text, attributes: top.attributes };
    else if (header && top.name === 'identifier') header.identifier = top.text;
    else if (header && top.name === 'datestamp') header.datestamp = top.text;
    else if (header && top.name === 'setSpec') header.setSpecs.push(top.text);
    else if (header && top.name === 'header') {
      headers.push(header);
      header = undefined;
    }
  });
  parser.write(xml).close();
  const metadata = [...xml.matchAll(/<record>(.*?)<\/record>/gs)].map(
    (m) => /<metadata>(.*)<\/metadata>/s.exec(m[1]!)?.[1],
  );
  return { request, requestText, errors, headers, metadata, ...(token ? { token } : {}), text };
}
