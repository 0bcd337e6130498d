// lobid's institution types (src/rdf/libtype.ts): every term the agency's codes make is named in
// both languages, and taken for the kind its label says.
import assert from 'node:assert/strict';
import { LIBTYPE, LIBTYPES } from '../../../src/rdf/libtype';

describe('the institution types', () => {
  it('names every term in German and English', () => {
    assert.ok(LIBTYPES.size >= 33, `${LIBTYPES.size} types`);
    for (const [term, type] of LIBTYPES) {
      assert.match(term, /^http:\/\/purl\.org\/lobid\/libtype#n\d\d$/);
      assert.ok(type.de.trim() !== '' && type.en.trim() !== '', term);
    }
  });

  it('takes the archives for archives, the museum for a museum, and libraries for libraries', () => {
    for (const [term, type] of LIBTYPES) {
      const label = type.de;
      if (label.startsWith('Archiv')) assert.equal(type.kind, 'archive', term);
      else if (label.startsWith('Museum')) assert.equal(type.kind, 'museum', term);
      else if (/bibliothek$|Mediathek/i.test(label) && !/Virtuelle|Fachstelle/.test(label))
        assert.equal(type.kind, 'library', term);
    }
    assert.equal(LIBTYPES.get(`${LIBTYPE}n52`)?.en, 'Archive (municipal)');
    assert.equal(LIBTYPES.get(`${LIBTYPE}n86`)?.kind, 'museum');
    assert.equal(LIBTYPES.get(`${LIBTYPE}n33`)?.de, 'Öffentliche Bibliothek');
  });
});
