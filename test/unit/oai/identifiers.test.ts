// The repository identifier: a dotted domain name, as oai-identifier.xsd asks, whatever BASE_IRI.
import assert from 'node:assert/strict';
import { isilOfIdentifier, repositoryIdentifier } from '../../../src/oai/identifiers';

describe('repositoryIdentifier', () => {
  const rows: [string, string][] = [
    ['https://ld.zdb-services.de', 'ld.zdb-services.de'],
    ['https://LD.example.org:8443', 'ld.example.org'],
    ['http://localhost:8080', 'localhost.invalid'],
    ['http://127.0.0.1:8080', 'ip-127-0-0-1.invalid'],
    ['http://[::1]:8080', 'ip-1.invalid'],
  ];
  for (const [base, expected] of rows)
    it(`${base}: ${expected}`, () => assert.equal(repositoryIdentifier(base), expected));
});

describe('isilOfIdentifier', () => {
  it('the ISIL of an identifier here', () =>
    assert.equal(isilOfIdentifier('x.org', 'oai:x.org:DE-1a'), 'DE-1a'));
  it('none of another repository', () =>
    assert.equal(isilOfIdentifier('x.org', 'oai:y.org:DE-1a'), undefined));
  it('none without a local part', () =>
    assert.equal(isilOfIdentifier('x.org', 'oai:x.org:'), undefined));
});
