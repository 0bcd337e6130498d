// The agency's code lists (src/rdf/codeLists.ts) at `/vocab/<scheme>` and `/vocab/<scheme>/<code>`:
// without an extension 303 to the document `Accept` chooses (406 listing them), as /resource does;
// with one, that document, every format rendered once when the app is built (docs/data-model.md).
import fs from 'node:fs';
import type { Request, RequestHandler, Response } from 'express';
import { Writer, type Quad } from 'n3';
import {
  CODE_LISTS_FILE,
  codeLists,
  SKOS,
  VOCAB_PATH,
  type CodeLists,
  type Scheme,
} from '../rdf/codeLists';
import { CONTEXT_PATH } from '../rdf/context';
import { toDescription } from '../rdf/description';
import { FORMATS, formatByExtension, RDF_FORMATS, type Format } from '../rdf/formats';
import { CC0 } from '../rdf/namespaces';
import { serialize } from '../rdf/serialize';
import { pageLanguage, type Language } from '../pages/language';
import { Representation } from '../documents/representation';
import { cacheControl, pathBelow, queryOf, type RouteDeps } from './deps';
import { notAcceptable, notFound } from './errors';
import { negotiate } from './negotiate';
import { documentAnswer, made, redirect, RedirectHeaders, sendDocument, sendMade } from './respond';
import { vocabPage } from '../pages/vocabPage';

/** A scheme or a concept: its path below /vocab/, and the triples its documents hold. */
interface Node {
  readonly path: string;
  readonly subject: string;
  readonly quads: readonly Quad[];
  readonly scheme: Scheme;
  readonly code?: string;
}

/** Each scheme with its concepts, and each concept with its scheme's title and type. */
function nodesOf(lists: CodeLists): Node[] {
  const about = (iri: string) => lists.quads.filter((q) => q.subject.value === iri);
  return lists.schemes.flatMap((scheme) => {
    const head = about(scheme.iri).filter((q) => q.predicate.value !== `${SKOS}hasTopConcept`);
    const concepts = [...scheme.concepts.values()];
    return [
      {
        path: scheme.name,
        subject: scheme.iri,
        quads: [...about(scheme.iri), ...concepts.flatMap((c) => about(c.iri))],
        scheme,
      },
      ...concepts.map((c) => ({
        path: `${scheme.name}/${c.code}`,
        subject: c.iri,
        quads: [...about(c.iri), ...head],
        scheme,
        code: c.code,
      })),
    ];
  });
}

/** The node's documents in every RDF format, made once: their bytes are the lists'. */
async function rdfDocuments(
  node: Node,
  contextUrl: string,
  cache: string,
  modified: Date,
): Promise<Map<string, Representation>> {
  const description = toDescription(
    node.subject,
    new Writer({ format: 'N-Triples' }).quadsToString([...node.quads]),
  );
  const documents = new Map<string, Representation>();
  for (const format of RDF_FORMATS) {
    const body = await serialize(description, format.name, contextUrl);
    const answer = documentAnswer(
      {
        'Content-Type': format.contentType,
        'Content-Location': `${VOCAB_PATH}/${node.path}.${format.ext}`,
        Link: linkHeader(node.path, format),
        'Cache-Control': cache,
      },
      format,
    );
    documents.set(format.ext, new Representation(Buffer.from(body), modified, answer, format.name));
  }
  return documents;
}

function linkHeader(path: string, self: Format): string {
  const alternates = FORMATS.filter((f) => f !== self).map(
    (f) => `<${VOCAB_PATH}/${path}.${f.ext}>; rel="alternate"; type="${f.mediaType}"`,
  );
  return [`<${CC0}>; rel="license"`, ...alternates].join(', ');
}

const documentLinks = (path: string) =>
  FORMATS.map((f) => ({
    href: `${VOCAB_PATH}/${path}.${f.ext}`,
    label: f.label,
    type: f.mediaType,
  }));

export function vocab({ config }: RouteDeps): RequestHandler {
  const lists = codeLists(config.baseIri);
  const cache = cacheControl(config);
  const nodes = new Map(nodesOf(lists).map((n) => [n.path, n]));
  const seeOther = new RedirectHeaders({ Vary: 'Accept', 'Cache-Control': cache });
  // Last-Modified is the file's, as for the shapes: a client revalidates when the lists changed.
  const modified = fs.statSync(CODE_LISTS_FILE).mtime;
  // Rendered on first use, then kept: a few dozen small documents, the same for every request.
  const rendered = new Map<string, Promise<Map<string, Representation>>>();
  const pages = new Map<string, ReturnType<typeof made>>();
  const rdf = (node: Node) => {
    let documents = rendered.get(node.path);
    if (!documents) {
      documents = rdfDocuments(node, `${config.baseIri}${CONTEXT_PATH}`, cache, modified);
      rendered.set(node.path, documents);
    }
    return documents;
  };
  const page = (req: Request, res: Response, node: Node) => {
    const language = pageLanguage(queryOf(req), req.headers['accept-language']);
    const key = `${node.path} ${language.lang} ${language.explicit}`;
    let answer = pages.get(key);
    if (!answer)
      pages.set(key, (answer = made(vocabPage(lists, node.scheme, node.code, language))));
    sendMade(req, res, answer, {
      'Content-Type': 'text/html;charset=utf-8',
      'Content-Language': language.lang satisfies Language,
      'Cache-Control': cache,
      Vary: 'Accept-Encoding, Accept-Language',
      Link: linkHeader(node.path, FORMATS[0]!),
    });
  };
  return async function vocab(req, res) {
    const path = pathBelow(req);
    const dot = path.lastIndexOf('.');
    const node = nodes.get(dot < 0 ? path : path.slice(0, dot));
    if (!node)
      throw notFound(
        `No such code list or code: the lists are ${lists.schemes.map((s) => `${VOCAB_PATH}/${s.name}`).join(', ')}.`,
      );
    if (dot < 0) {
      const format = negotiate(req.headers.accept);
      if (!format) throw notAcceptable(undefined, documentLinks(node.path));
      return redirect(res, 303, `${VOCAB_PATH}/${node.path}.${format.ext}`, seeOther);
    }
    const format = formatByExtension(path.slice(dot + 1));
    if (!format)
      throw notFound(
        `No document of that kind: the extensions are ${FORMATS.map((f) => `.${f.ext}`).join(', ')}.`,
      );
    if (format.name === 'html') return page(req, res, node);
    sendDocument(req, res, (await rdf(node)).get(format.ext)!);
  };
}
