// Revalidation per content coding (RFC 9110 §13.1.2): each coding of a document is a representation
// with its own ETag, and If-None-Match is 304 only for the tag of the one that would be sent, on
// the documents, the pages and their mementos alike.
import assert from 'node:assert/strict';
import type { Express } from 'express';
import request from 'supertest';
import { buildApp, rawRequest } from '../support';

const CODINGS = ['identity', 'gzip', 'br'] as const;

describe('If-None-Match and content codings', function () {
  this.timeout(120_000);
  let app: Express;
  const documents = ['/data/organisations/DE-1a.ttl', '/isil/DE-1a'];
  before(async () => {
    ({ app } = await buildApp());
    // The mementos of the same two, as the TimeGate names them.
    for (const original of [...documents]) {
      const gate = await request(app).get(`/timegate${original}`).redirects(0);
      assert.equal(gate.status, 302, original);
      documents.push(new URL(gate.headers.location!).pathname);
    }
  });

  /** The ETag each coding of `path` is sent with. */
  async function tagsOf(path: string): Promise<Map<string, string>> {
    const tags = new Map<string, string>();
    for (const coding of CODINGS) {
      const res = await rawRequest(app, path, { 'Accept-Encoding': coding });
      assert.equal(res.status, 200, path);
      tags.set(coding, String(res.headers.etag));
    }
    assert.equal(new Set(tags.values()).size, CODINGS.length, `${path}: a tag per coding`);
    return tags;
  }

  it('each document, page and memento has a tag per coding', async () => {
    for (const path of documents) await tagsOf(path);
  });

  for (const given of CODINGS)
    for (const asked of CODINGS)
      it(`the ${given} tag, asked for ${asked}: ${given === asked ? '304' : '200'}`, async () => {
        for (const path of documents) {
          const tags = await tagsOf(path);
          for (const form of [
            tags.get(given)!,
            `W/${tags.get(given)!}`,
            `"x", ${tags.get(given)!}`,
          ]) {
            const res = await rawRequest(app, path, {
              'Accept-Encoding': asked,
              'If-None-Match': form,
            });
            assert.equal(res.status, given === asked ? 304 : 200, `${path} ${form}`);
            assert.equal(res.headers.etag, tags.get(asked), `${path}: the sent coding's tag`);
          }
        }
      });

  it('a list naming every coding’s tag is 304 in each coding', async () => {
    for (const path of documents) {
      const tags = await tagsOf(path);
      const all = [...tags.values()].join(', ');
      for (const asked of CODINGS) {
        const res = await rawRequest(app, path, { 'Accept-Encoding': asked, 'If-None-Match': all });
        assert.equal(res.status, 304, `${path} ${asked}`);
      }
    }
  });
});
