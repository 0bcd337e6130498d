// Reconciliation's scoring (src/search/candidates.ts): what a name's words say an institution is,
// and a candidate of another kind ranked below one of the kind the name says, over entries made
// for the purpose. The service's answers are tested against the spec's schemas in
// test/integration/reconcile.test.ts.
import assert from 'node:assert/strict';
import { kindsNamed, significant, townsNamed } from '../../../src/search/likeness';
import { reconcile } from '../../../src/search/candidates';
import { SearchIndex } from '../../../src/search/searchIndex';
import { entry } from '../../support/flatRecords';

/**
 * `count` institutions, their ISILs `isil` and a number, named `name` with its `#` the number: as
 * many of a word as the agency's names have.
 */
const many = (count: number, isil: string, name: string) =>
  Array.from({ length: count }, (_, i) => entry(`${isil}${i}`, name.replace('#', String(i))));

/** The ISIL of the first candidate for `query`, if there is one. */
const firstId = (index: SearchIndex, query: string) => reconcile(index, { query })[0]?.id;

/**
 * Others, so that the entries a test makes are among enough institutions for their words to be as
 * common or as rare as in the agency's names: `museums` named `Museum Nummer i`, `libraries` named
 * `Bibliothek Nummer i`.
 */
const others = (museums: number, libraries = 0) => [
  ...many(museums, 'DE-MUS-9', 'Museum Nummer #'),
  ...many(libraries, 'DE-9', 'Bibliothek Nummer #'),
];

describe('reconciliation scoring', () => {
  it('reads the kind of institution from the words of its name, compounds included', () => {
    assert.deepEqual([...kindsNamed('Stadtarchiv Baden-Baden')], ['archive']);
    assert.deepEqual([...kindsNamed('Stadtbücherei Harburg')], ['library']);
    assert.deepEqual([...kindsNamed('Mediothek Krefeld')], ['library']);
    assert.deepEqual([...kindsNamed('Kunstmuseen Krefeld')], ['museum']);
    assert.deepEqual([...kindsNamed('Museum für Moderne Kunst, Bibliothek')].sort(), [
      'library',
      'museum',
    ]);
    assert.deepEqual([...kindsNamed('Landesamt für Denkmalpflege')], []);
  });

  it('compares words in one form: plurals as the singular, prepositions left out', () => {
    assert.deepEqual(significant('Galerien auf der Insel'), ['galerie', 'insel']);
    assert.deepEqual(significant('Kunstmuseen bei Krefeld'), ['kunstmuseum', 'krefeld']);
    assert.deepEqual(significant('Büchereien und Sammlungen mit Archiv'), [
      'bibliothek',
      'sammlung',
      'archiv',
    ]);
    // A word that only ends like a plural stays as it is.
    assert.deepEqual(significant('Bibliotheca Albertina'), ['bibliotheca', 'albertina']);
    // An abbey is a monastery; a Heimatstube or Heimathaus a town's Heimatmuseum.
    assert.deepEqual(significant('Benediktinerabtei Heimatstuben Heimathaus'), [
      'benediktinerkloster',
      'heimatmuseum',
      'heimatmuseum',
    ]);
    // A museum named with the end of `Museum` is that compound; a word that only ends so is not.
    assert.deepEqual(significant('Porzellaneum Natureum'), ['porzellanmuseum', 'naturmuseum']);
    assert.deepEqual(significant('Museum Mausoleum Athenaeum Lyceum Petroleum'), [
      'museum',
      'mausoleum',
      'athenaeum',
      'lyceum',
      'petroleum',
    ]);
  });

  it('ranks a candidate of the kind the name says above one of another kind in the same town', async () => {
    // Both share the town's name alone; the museum's record says it is one, the archive's name.
    const index = await SearchIndex.build('v', [
      entry('DE-Sgu1', 'Gemeindearchiv Schwangau'), // first by name, were they alike
      entry('DE-MUS-366414', 'Alte Geräte Schwangau', { type: 'museum' }),
    ]);
    assert.equal(firstId(index, 'Feuerwehrmuseum Schwangau'), 'DE-MUS-366414');
    assert.equal(firstId(index, 'Archiv Schwangau'), 'DE-Sgu1');
  });

  it('takes an Abtei for the Kloster, a Heimatstube for the Heimatmuseum, of the same name', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-1', 'Ehemaliges Benediktinerkloster'),
      entry('DE-1', 'Bibliothek der ehemaligen Benediktinerabtei Werden'),
      entry('DE-2', 'Gemeindearchiv Neulußheim'),
      entry('DE-MUS-2', 'Heimatmuseum Neulußheim'),
      ...many(20, 'DE-MUS-4', 'Benediktinerabtei Ort#'),
      // As common as in the agency's names.
      ...many(20, 'DE-MUS-5', 'Heimatstube'),
      ...many(300, 'DE-MUS-6', 'Heimatmuseum Ort#'),
      ...others(5000, 4000),
    ]);
    assert.equal(firstId(index, 'Ehemalige Benediktinerabtei'), 'DE-MUS-1');
    // A Heimatstube is a museum, and the town's Heimatmuseum.
    assert.deepEqual([...kindsNamed('Heimatstube')], ['museum']);
    assert.equal(firstId(index, 'Heimatstube Neulußheim'), 'DE-MUS-2');
  });

  it('takes a Bücherei for the Bibliothek of the same name', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-Maf1', 'Stadtarchiv Marktheidenfeld'),
      entry('DE-1495', 'Stadtbibliothek Marktheidenfeld'),
    ]);
    const [best] = reconcile(index, { query: 'Stadtbücherei Marktheidenfeld' });
    assert.equal(best!.id, 'DE-1495');
    assert.equal(best!.match, false, 'a name alone is never matched automatically');
  });

  it('takes a compound for its parts written apart, and the other way round', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-812813', 'Hugenottenmuseum'),
      entry('DE-MUS-071918', 'Deutsches Hugenotten-Museum'),
      entry('DE-MUS-757419', 'Museum am Meer'),
      entry('DE-MUS-758818', 'Waffelmuseum'),
      // Others, so that a museum is a common word and a name's own words are telling.
      ...others(30),
    ]);
    // Found though no word of the label is a word of its name, and ranked above the one that
    // shares the compound but not `Deutsches`.
    assert.equal(firstId(index, 'Deutsches Hugenottenmuseum Bad Karlshafen'), 'DE-MUS-071918');
    assert.equal(firstId(index, 'Waffel Museum Meyer'), 'DE-MUS-758818');
  });

  it("finds a compound's first part at the start of a word of a name", async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-746414', 'Internationales Museum für Nummernschilder'),
      // Enough others that a word no name has is telling (src/search/candidates.ts, TELLING).
      ...others(200),
    ]);
    // No word of the label is a word of the name, nor a typo of one.
    assert.equal(firstId(index, 'Nummernschildmuseum'), 'DE-MUS-746414');
  });

  it('names the whole institution before its parts when a name fits both', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-66', 'Hochschul- und Landesbibliothek Fulda, Standort Heinrich-von-Bibra-Platz'),
      entry('DE-66-0', 'Hochschul- und Landesbibliothek Fulda, Standort Campus'),
      entry('DE-66-1', 'Hochschul- und Landesbibliothek Fulda, Wissenschaftliche Sammlung Rhön'),
    ]);
    // The parts' shorter names fit Wikidata's label better, word for word.
    const ids = reconcile(index, { query: 'Hochschul- und Landesbibliothek Fulda' }).map(
      (c) => c.id,
    );
    assert.equal(ids[0], 'DE-66');
    assert.deepEqual(ids.slice(1).sort(), ['DE-66-0', 'DE-66-1'], 'the parts follow');
    // A name that says which part still finds the part.
    assert.equal(
      firstId(index, 'Hochschul- und Landesbibliothek Fulda, Standort Campus'),
      'DE-66-0',
    );
  });

  it("ranks a name holding the query's words together, in its order, above one holding them apart", async () => {
    const index = await SearchIndex.build('v', [
      // The same words: first by name, were they alike.
      entry('DE-MUS-491010', 'Arbeit und Museum Hamburg'),
      entry('DE-MUS-290213', 'Museum der Arbeit Hamburg'),
      ...others(30),
    ]);
    const [best, next] = reconcile(index, { query: 'Museum der Arbeit' });
    assert.equal(best!.id, 'DE-MUS-290213');
    assert.equal(next!.id, 'DE-MUS-491010');
  });

  it("takes a town's adjective for the town, and a compound no name holds by its end", async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-455212', 'Museum der Stadt Pasewalk+Künstlergedenkstätte+Paul Holz'),
      entry('DE-MUS-800919', 'Panorama Museum'),
      entry('DE-MUS-477410', 'Gedenkstätte Bonn'),
      entry('DE-MUS-313311', 'Gedenkstätte Aachen'), // first by name, were they alike
      // A town's museum is a common name, the town's name a rare word: more of them than the
      // best by BM25 that reconciliation weighs (src/search/candidates.ts, candidatePool).
      ...many(120, 'DE-MUS-1', 'Stadtmuseum'),
      // Enough others that a word one name has is telling (src/search/candidates.ts, TELLING).
      ...others(300),
    ]);
    assert.equal(firstId(index, 'Pasewalker Stadtmuseum'), 'DE-MUS-455212');
    assert.equal(firstId(index, 'Bonner Gedenkstätte'), 'DE-MUS-477410');
    assert.equal(firstId(index, 'Bauernkriegspanorama'), 'DE-MUS-800919');
  });

  it("takes a name's acronym for the words it stands for, unless the name spells it out itself", async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-360010', 'Museum MMK'),
      entry('DE-MUS-055718', 'Mönchehaus Museum für moderne Kunst'),
      entry('DE-Tue133', 'Bildungszentrum und Archiv zur Frauengeschichte BAF e.V.'),
      entry('DE-MUS-787717', 'Besucherbergwerk F60 gGmbH'),
      ...others(200),
    ]);
    // Found by the acronym alone (no other word of the query is telling), and ranked first.
    assert.equal(firstId(index, 'Museum für Moderne Kunst'), 'DE-MUS-360010');
    // BAF is the archive's own initials, not those of a Besucherbergwerk Abraumförderbrücke F60.
    assert.equal(firstId(index, 'Besucherbergwerk Abraumförderbrücke F60'), 'DE-MUS-787717');
  });

  it('takes the quoted part of a name for the name an institution goes by', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-147322', 'Schmiede am Junkerhaus'),
      entry('DE-MUS-172818', 'Städtisches Museum "Junkerhaus"'),
      entry('DE-MUS-823110', 'Museum Viadrina im Junkerhaus'),
    ]);
    assert.equal(firstId(index, 'Junkerhaus'), 'DE-MUS-172818');
  });

  it("takes a name's abbreviation for the query's word it shortens", async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-855310', 'Museum Sächs.-Böhm. Erzgeb. im Bergmagazin'),
      entry('DE-MUS-959219', 'Sächsisches Industriemuseum'),
      entry('DE-MUS-962616', 'Glashüttenmuseum des Erzgebirges'),
      // Enough others that a word few names have is telling (TELLING in src/search/candidates.ts).
      ...others(300),
    ]);
    // Found though no word of the label is a word of the name: `erzgeb` is not `erzgebirge`.
    assert.equal(firstId(index, 'Museum sächsisch-böhmisches Erzgebirge'), 'DE-MUS-855310');
  });

  it('weighs the words joined by hyphens together as one, not each as a word of its own', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-467918', 'Uhrenindustriemuseum'),
      entry(
        'DE-Vil3',
        'Wissenschaftliche Spezialbibliothek Stadtarchiv und Museen Villingen-Schwenningen',
      ),
      entry('DE-Vil5', 'Stadtarchiv Villingen-Schwenningen'),
      entry('DE-MUS-435718', 'Eisenmuseum Jünkerath'),
      entry('DE-MUS-112123', 'Eisenbahnmuseum'),
      entry('DE-MUS-764016', 'Eisenbahnmuseum'),
      entry('DE-MUS-1', 'Museum Eisenbahn und Technik'),
      entry('DE-MUS-2', 'Eisenbahn-Erlebniswelt'),
      // Others, so that a museum is as common as in the agency's names, one in eight.
      ...others(250, 1750),
    ]);
    // The town's name in two parts is no more telling than one part, nor than the museum's name.
    assert.equal(firstId(index, 'Uhrenindustriemuseum Villingen-Schwenningen'), 'DE-MUS-467918');
    // `Eisenbahn-Museum` is the compound `Eisenbahnmuseum`: no more than one word of the label.
    assert.equal(firstId(index, 'Eisenbahn-Museum Jünkerath'), 'DE-MUS-435718');
  });

  it("ranks a name holding the query's words before its last one together above one holding them apart", async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-022926', 'Archäologisches Museum'),
      entry('DE-MUS-259910', 'Naturmuseum Königsbrunn'),
      entry('DE-MUS-188516', 'Lechfeldmuseum Königsbrunn'),
      // The town's name rarer than `archäologisches`, as in the agency's names.
      ...many(30, 'DE-MUS-8', 'Archäologisches Landesamt #'),
      ...others(250, 1750),
    ]);
    assert.equal(firstId(index, 'Archäologisches Museum Königsbrunn'), 'DE-MUS-022926');
  });

  it('takes no last word for one a label adds when it names the institution', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-007521', 'Nudelmuseum'),
      entry('DE-MUS-205116', 'Erstes Deutsches Historic-Actien-Museum'),
      // As common as in the agency's names: 7 `Erstes Deutsches`, 260 `Deutsches`, 25 `Historic`.
      ...['Engels', 'Fliesen', 'Ringer', 'Strumpf', 'Bürsten'].map((what, i) =>
        entry(`DE-MUS-8${i}`, `Erstes Deutsches ${what}museum`),
      ),
      ...many(250, 'DE-MUS-7', 'Deutsches Haus #'),
      ...many(24, 'DE-MUS-6', 'Historic Haus #'),
      ...others(5200, 4900),
    ]);
    // `Nudelmuseum` is the museum's own noun; `Erstes Deutsches` together says little.
    assert.equal(firstId(index, 'Erstes Deutsches Nudelmuseum'), 'DE-MUS-007521');
  });

  it("learns the towns from a town's own institutions and the cities, not from places within one", () => {
    const towns = townsNamed([
      entry('DE-1', 'Stadtbibliothek Mainz'),
      entry('DE-2', 'Stadtarchiv Bad Wildungen'),
      entry('DE-3', 'Gemeindebücherei St. Ingbert'),
      entry('DE-MUS-4', 'Stadtmuseum im Alleehaus'),
      entry('DE-MUS-5', 'Kreismuseum Bibliothek'),
      entry('DE-6', 'Landesbibliothek', { cities: ['Frankfurt am Main'] }),
    ]);
    assert.deepEqual([...towns].sort(), ['frankfurt', 'ingbert', 'main', 'mainz', 'wildungen']);
  });

  it('ranks a candidate naming another town than the query below one of the town it names', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-477410', 'Gedenkstätte und NS-Dokumentationszentrum Bonn'),
      entry(
        'DE-MUS-313311',
        'Mahn- und Gedenkstätte für die Opfer nationalsozial. Gewaltherrschaft in Düsseldorf',
      ), // first by name, were towns not known
      entry('DE-MUS-387713', 'Historisches Straßenbahndepot St. Peter'),
      entry('DE-MUS-106316', 'Naturhistorisches Museum Nürnberg'),
      // What tells these words are towns: each town's own archive.
      ...['Bonn', 'Düsseldorf', 'Nürnberg'].map((town, i) =>
        entry(`DE-7${i}`, `Stadtarchiv ${town}`),
      ),
      entry('DE-74', 'Gemeindearchiv St. Peter'),
      ...others(300),
    ]);
    assert.equal(
      firstId(index, 'Gedenkstätte für die Bonner Opfer des Nationalsozialismus'),
      'DE-MUS-477410',
    );
    // A saint's name after `St.` is not taken for another town.
    assert.equal(firstId(index, 'Historisches Straßenbahndepot Nürnberg'), 'DE-MUS-387713');
  });

  it('ranks a candidate naming another town than the city given below one naming none', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-100', 'Stadtmuseum Neustadt'), // first by name, were towns not known
      entry('DE-MUS-200', 'Stadtmuseum im Alten Rathaus'),
      entry('DE-7', 'Stadtarchiv Neustadt'),
      ...others(300),
    ]);
    const query = (city?: string) =>
      reconcile(index, {
        query: 'Stadtmuseum',
        ...(city ? { properties: [{ pid: 'city', v: city }] } : {}),
      })[0]?.id;
    assert.equal(query(), 'DE-MUS-100');
    assert.equal(query('Bad Kaufbeuren'), 'DE-MUS-200');
    assert.equal(query('Neustadt'), 'DE-MUS-100');
  });

  it('weighs a word given many times as given once', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-1', 'Museum der Arbeit'),
      entry('DE-MUS-2', 'Museum am Meer'),
      ...others(50),
    ]);
    // The same candidates in the same order, each as like the query's words (its score differs:
    // the repeated words are not the name's exact phrase).
    const ranked = (query: string) =>
      reconcile(index, { query, limit: 25 }).map((c) => [c.id, c.features[0]]);
    assert.deepEqual(
      ranked('museum der arbeit '.repeat(25).slice(0, 500)),
      ranked('museum der arbeit'),
    );
  });

  it('reads an acronym as the initials of a run of the query, words joined by hyphens as one', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-B2223', 'Landeskirchliche Bibliothek der EKBO'),
      entry('DE-B1556', 'Evangelische Hochschule Berlin, Bibliothek'),
      entry('DE-Hv134', 'Evangelische Kirche in Deutschland, Kirchenamt, Bibliothek'),
      entry('DE-E13', 'BKK Dachverband e.V., Bibliothek'),
      entry('DE-MUS-1', 'Museum für Kunst und Kulturgeschichte'),
      ...others(100, 300),
    ]);
    // EKBO: Evangelische Kirche Berlin-Brandenburg-schlesische Oberlausitz, a run in the middle.
    const label =
      'Zentralbibliothek der Evangelischen Kirche Berlin-Brandenburg-schlesische Oberlausitz und Bibliothek des Berliner Missionswerkes';
    assert.equal(firstId(index, label), 'DE-B2223');
    // A run of three initials is too often another's: BKK is not a Bildagentur für Kunst, Kultur.
    const ids = reconcile(index, { query: 'Bildagentur für Kunst, Kultur und Geschichte' }).map(
      (c) => c.id,
    );
    assert.equal(ids[0], 'DE-MUS-1');
    assert.ok(!ids.includes('DE-E13'), ids.join(' '));
  });

  it('takes a Städtisches Museum for the Stadtmuseum of the same town', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-446515', 'Stadtmuseum Medebach'),
      // As many of each as in the agency's names, among as many museums and libraries.
      ...many(4, 'DE-MUS-1', 'Städtisches Museum'),
      ...many(120, 'DE-MUS-2', 'Städtische Sammlung #'),
      ...many(250, 'DE-MUS-3', 'Stadtmuseum Ort#'),
      ...others(4800, 13000),
    ]);
    assert.equal(firstId(index, 'Städtisches Museum Medebach'), 'DE-MUS-446515');
  });

  it("counts a word only like the query's, a typo apart or a part, as no more telling than the query's word", async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-785617', 'Wuseum'),
      entry('DE-MUS-281912', 'Torfschiffmuseum Schlußdorf'),
      entry('DE-Mz5', 'Leibniz-Institut für Europäische Geschichte, Bibliothek'),
      entry('DE-F137', 'Max-Planck-Institut für Rechtsgeschichte und Rechtstheorie, Bibliothek'),
      ...many(30, 'DE-7', 'Institut für Geschichte #'),
      ...others(300, 300),
    ]);
    // `Wuseum` is one letter from `Museum`, the commonest word of the agency's names.
    const museum = reconcile(index, { query: 'Museum Schlußdorf', limit: 25 });
    assert.equal(museum[0]?.id, 'DE-MUS-281912');
    assert.ok(!museum.slice(0, 3).some((c) => c.id === 'DE-MUS-785617'));
    // `Geschichte` is not `Rechtsgeschichte`; `Max-Planck` and `Rechtsgeschichte` tell the institute.
    assert.equal(
      reconcile(index, {
        query: 'Bibliothek des Max-Planck-Instituts für europäische Rechtsgeschichte',
      })[0]?.id,
      'DE-F137',
    );
  });

  it('takes no Stadtarchiv for a misspelt Staatsarchiv: a town is not a state', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-2329', 'Stadtarchiv Freiburg'),
      entry(
        'DE-Frei145',
        'Landesarchiv Baden-Württemberg, Abteilung Staatsarchiv Freiburg, Bibliothek',
      ),
      // As common as in the agency's names.
      ...many(566, 'DE-5', 'Stadtarchiv Ort#'),
      ...many(44, 'DE-6', 'Staatsarchiv Ort#'),
      ...many(9, 'DE-7', 'Landesarchiv Baden-Württemberg #'),
      ...many(51, 'DE-8', 'Freiburg Haus #'),
      ...others(5000, 4500),
    ]);
    assert.equal(firstId(index, 'Staatsarchiv Freiburg'), 'DE-Frei145');
    assert.equal(firstId(index, 'Stadtarchiv Freiburg'), 'DE-2329');
  });

  it('takes a word with another German ending for the same word', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-Gnm1', 'Germanisches Nationalmuseum, Bibliothek'),
      entry('DE-Gnm2', 'Historisches Archiv des Germanischen Nationalmuseums'),
      ...many(20, 'DE-5', 'Germanisches Haus #'),
      ...many(20, 'DE-6', 'Nationalmuseum Ort#'),
      ...others(5000, 4900),
    ]);
    // The library of the museum, not its archive, whose name has the label's endings.
    assert.equal(firstId(index, 'Bibliothek des Germanischen Nationalmuseums'), 'DE-Gnm1');
  });

  it("finds a name that joins two of the query's words, or writes its town as an adjective", async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-1', 'Triasmuseum'),
      entry('DE-15-1', 'Leipziger Städtische Bibliotheken, Zentralbibliothek'),
      entry('DE-15-2', 'Stadtarchiv Leipzig'),
      // More than the best hundred by BM25 share the query's other words.
      ...many(150, 'DE-MUS-2', 'Museum an der Ochsenfurt #'),
      ...many(150, 'DE-3', 'Stadtbibliothek Ort#'),
      ...many(150, 'DE-4', 'Institut # Leipzig'),
      ...many(40, 'DE-5', 'Leipziger Verein #'),
      ...others(300, 300),
    ]);
    assert.equal(firstId(index, 'Trias Museum an der Ochsenfurt'), 'DE-MUS-1');
    assert.equal(firstId(index, 'Stadtbibliothek Leipzig'), 'DE-15-1');
  });

  it("takes a compound's initials for the compound: the UB Weimar for the Universitätsbibliothek", async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-Wim2', 'UB Weimar'),
      entry('DE-518', 'Stadtbücherei Weimar'),
      // As common as in the agency's names.
      ...many(45, 'DE-5', 'Institut # Weimar'),
      ...many(250, 'DE-6', 'Universitätsbibliothek Ort#'),
      ...many(490, 'DE-7', 'Stadtbücherei Ort#'),
      ...others(5000, 4000),
    ]);
    const [best] = reconcile(index, { query: 'Universitätsbibliothek Weimar' });
    assert.equal(best?.id, 'DE-Wim2');
    // Every word of the name is the query's, once `UB` is read as the compound.
    assert.ok(Number(best!.features[0]!.value) > 0.9, JSON.stringify(best!.features));
  });

  it('takes a museum named with the end of Museum (Porzellaneum) for the compound it shortens', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-1', 'Porzellaneum'),
      entry('DE-MUS-2', 'Museum für Alt-Meissner Porzellan'),
      entry('DE-MUS-3', 'LIMESEUM'),
      entry('DE-MUS-4', 'Limesmuseum'),
      ...many(20, 'DE-MUS-5', 'Porzellanmuseum Ort#'),
      ...others(400, 400),
    ]);
    assert.equal(firstId(index, 'Porzellanmuseum Annaburg'), 'DE-MUS-1');
    // Alike once read so, the name that spells the query's word as it does goes first.
    const [first, second] = reconcile(index, { query: 'Limesmuseum Aalen' });
    assert.equal(first?.score, second?.score);
    assert.deepEqual([first?.id, second?.id], ['DE-MUS-4', 'DE-MUS-3']);
  });

  it("takes a place's adjective in -isch for the place, and for its adjective in -er", async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-1', 'Rheinhessisches Postmuseum'),
      entry('DE-MUS-2', 'Postmuseum Rheinhausen'), // a typo away
      entry('DE-MUS-3', 'Oberpfälzer Handwerksmuseum'),
      entry('DE-MUS-4', 'Handwerksmuseum'),
      entry('DE-1', 'Landesarchiv Thüringen - Staatsarchiv Gotha'),
      entry('DE-2', 'Thüringisches Staatsarchiv Meiningen'),
      ...many(20, 'DE-MUS-5', 'Postmuseum Ort#'),
      ...many(20, 'DE-MUS-6', 'Handwerksmuseum Ort#'),
      ...many(20, 'DE-5', 'Staatsarchiv Ort#'),
      ...others(400, 400),
    ]);
    assert.equal(firstId(index, 'Postmuseum Rheinhessen'), 'DE-MUS-1');
    assert.equal(firstId(index, 'Oberpfälzisches Handwerksmuseum'), 'DE-MUS-3');
    assert.equal(firstId(index, 'Thüringisches Staatsarchiv Gotha'), 'DE-1');
  });

  it('finds the names a compound no name holds begins, by its longest start', async () => {
    const index = await SearchIndex.build('v', [
      entry('DE-MUS-1', 'Torfschiffmuseum'),
      entry('DE-MUS-2', 'Museums Albersdorf - Museum für Archäologie und Ökologie'),
      // More than the best hundred by BM25 share the query's other word.
      ...others(300),
    ]);
    assert.equal(firstId(index, 'Torfschiffswerft-Museum Schlußdorf'), 'DE-MUS-1');
    // The longest start a name's word begins, found by the sorted words on either side of it.
    assert.equal(index.knownStart('torfschiffswerft'), 'torfschiff');
    assert.equal(index.knownStart('torfschiffmuseum'), 'torfschiffmuseum');
    assert.equal(index.knownStart('xylophon'), '');
  });

  it('ranks an institution above a package of e-resources (a ZDB product sigel)', async () => {
    const index = await SearchIndex.build('v', [
      entry('ZDB-33-HSS', 'KU select HSS [Open Access]'),
      entry('DE-MUS-1', 'Heimatmuseum der Stadt Sinzig'),
      ...others(400, 400),
    ]);
    assert.equal(firstId(index, 'Heimatmuseum Sinzig im Schloss'), 'DE-MUS-1');
    // A package's own name still finds it first.
    assert.equal(firstId(index, 'KU select'), 'ZDB-33-HSS');
  });
});
