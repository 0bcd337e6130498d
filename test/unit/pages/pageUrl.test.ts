// Where an institution's page lives (src/pages/pageUrl.ts): here, or in the agency's
// directory, as a path or an absolute URL on the origin given, the page itself or a URL of this service that leads to it.
import assert from 'node:assert/strict';
import { institutionPage, servesPages } from '../../../src/pages/pageUrl';

const here = { isilDirectoryUrl: '', baseIri: 'https://ld.example' };
const agency = { isilDirectoryUrl: 'https://sigel.example', baseIri: 'https://ld.example' };

describe('an institution’s page', () => {
  it('is this service’s /isil/ page when no directory is configured', () => {
    assert.equal(servesPages(here), true);
    assert.equal(institutionPage(here, 'DE-1a'), '/isil/DE-1a');
    assert.equal(institutionPage(here, 'DE-1a', { direct: true }), '/isil/DE-1a');
    assert.equal(
      institutionPage(here, 'DE-1a', { base: 'http://local.test' }),
      'http://local.test/isil/DE-1a',
    );
    assert.equal(
      institutionPage(here, '{{id}}', { direct: true, base: 'http://local.test' }),
      'http://local.test/isil/{{id}}',
    );
  });

  it('is the directory’s page, reached here through the institution’s URI, with a directory', () => {
    assert.equal(servesPages(agency), false);
    assert.equal(institutionPage(agency, 'DE-1a'), '/resource/organisations/DE-1a');
    assert.equal(
      institutionPage(agency, 'DE-1a', { base: 'http://local.test' }),
      'http://local.test/resource/organisations/DE-1a',
    );
    assert.equal(
      institutionPage(agency, 'DE-1a', { direct: true }),
      'https://sigel.example/isil/DE-1a',
    );
    assert.equal(
      institutionPage(agency, '{{id}}', { direct: true, base: 'http://local.test' }),
      'https://sigel.example/isil/{{id}}',
    );
  });
});
