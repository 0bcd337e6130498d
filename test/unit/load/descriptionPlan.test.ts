// A file's plan made in two parts and joined (src/load/descriptionPlan.ts, `planPart`), as the
// placing thread and the loading thread make it side by side: cut at every line, joined after a
// structured clone (the first part crosses between threads), it places every line as the plan of
// one pass does, blank nodes, links and chains across the cut included.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DescriptionPlan } from '../../../src/load/descriptionPlan';
import {
  lineFrom,
  placedPieces,
  planDescriptions,
  planPart,
} from '../../../src/load/placedNTriples';
import { BASE, tempDir } from '../../support';

const X = `<${BASE}/resource/organisations/DE-X>`;
const Y = `<${BASE}/resource/organisations/DE-Y>`;
const P = '<http://example.org/p>';
const URL = '<http://www.w3.org/2006/vcard/ns#url>';

/** Blank nodes written deepest first, shared, linked by v:url, a cycle, comments, the rest. */
const LINES = [
  `# a comment`,
  `_:b3 ${P} "deepest" .`,
  `_:b2 ${P} _:b3 .`,
  `${Y} ${URL} <https://example.org/shared> .`,
  `_:b1 ${P} _:b2 .`,
  ``,
  `<https://example.org/shared> ${P} "shared" .`,
  `${X} ${P} _:b1 .`,
  `_:c ${P} _:d .`,
  `${X} ${URL} <https://example.org/shared> .`,
  `_:d ${P} _:c .`,
  `${Y} ${P} _:c .`,
  `${X} ${URL} ${Y} .`,
  `${Y} ${P} _:s .`,
  `${X} ${P} _:s .`,
  `_:s ${P} "s" .`,
  `_:lone ${P} "in no description" .`,
  `${Y} ${P} "y" .`,
];

describe('a plan made in two parts and joined', () => {
  let dir: string;
  let file: string;
  let fd: number;
  before(() => {
    dir = tempDir();
    file = path.join(dir, 'parts.nt');
    fs.writeFileSync(file, `${LINES.join('\n')}\n`);
    fd = fs.openSync(file, 'r');
  });
  after(() => {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** What `plan` places: every piece's text, joined. */
  const placed = (plan: DescriptionPlan) =>
    [...placedPieces(fd, plan, file)].map((piece) => piece.text.toString()).join('');

  it('places every line as one pass does, cut at any line: the same graphs and last lines', () => {
    const whole = planDescriptions(fd, BASE, undefined, () => undefined, true)!;
    const subjects = new Set(
      LINES.filter((line) => line !== '' && !line.startsWith('#')).map(
        (line) => line.split(' ')[0]!,
      ),
    );
    const expected = placed(whole);
    assert.ok(expected.includes(`/data/organisations/DE-Y>`), expected);
    const size = fs.fstatSync(fd).size;
    const text = fs.readFileSync(file);
    const cuts = [0, ...[...text.keys()].filter((i) => text[i] === 0x0a).map((i) => i + 1)];
    for (const cut of cuts) {
      const first = planPart(fd, BASE, 0, cut, () => undefined);
      const second = planPart(fd, BASE, cut, size, () => undefined);
      assert.ok(first.vouched && second.vouched);
      const joined = DescriptionPlan.revive(structuredClone(first.plan));
      joined.append(second.plan);
      joined.close();
      assert.equal(placed(joined), expected, `cut at byte ${cut}`);
      assert.deepEqual(joined.lastLines, whole.lastLines, `cut at byte ${cut}: last lines`);
      for (const subject of subjects)
        assert.deepEqual(joined.graphs(subject), whole.graphs(subject), `${subject} cut at ${cut}`);
    }
  });

  it('is cut where a line starts, at the byte asked or after, or at the end', () => {
    const size = fs.fstatSync(fd).size;
    const text = fs.readFileSync(file);
    for (const at of [1, 17, Math.floor(size / 2), size - 1]) {
      const cut = lineFrom(fd, size, at);
      assert.equal(text[cut - 1], 0x0a, `at ${at}`);
      assert.ok(cut >= at && text.subarray(at - 1, cut - 1).indexOf(0x0a) === -1, `at ${at}`);
    }
    assert.equal(lineFrom(fd, size, 0), 0);
    const lineStart = text.indexOf(0x0a) + 1;
    assert.equal(lineFrom(fd, size, lineStart), lineStart, 'a line starting there');
    const one = path.join(dir, 'one-line.nt');
    fs.writeFileSync(one, `${X} ${P} "no newline at the end" .`);
    const oneFd = fs.openSync(one, 'r');
    try {
      const oneSize = fs.fstatSync(oneFd).size;
      assert.equal(lineFrom(oneFd, oneSize, 5), oneSize);
    } finally {
      fs.closeSync(oneFd);
    }
  });
});
