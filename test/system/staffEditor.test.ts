// The query editor in a real browser (Chromium, headless): YASGUI loads from this service alone,
// shows one tab for each example query, and runs a query against the endpoint with the staff
// credentials. Chromium comes from the Debian package `.ci/packages` installs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { loadExamples } from '../../src/http/sparql/editor';
import { policyViolations, watchPolicy } from '../browser/pages';
import { buildStaffApp, SMALL, STAFF, type StaffApp } from '../staffSupport';
import { needsThirdParty } from '../support';
import { skipWithout } from '../support/missing';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));

describe('the query editor in a browser', function () {
  before(needsThirdParty);
  this.timeout(120_000);
  let staff: StaffApp;
  let server: http.Server;
  let browser: Browser;
  let base: string;

  before(async function () {
    if (!CHROMIUM) skipWithout(this, 'chromium', 'sudo bash .ci/packages installs it');
    staff = await buildStaffApp(SMALL);
    server = staff.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });

  after(async () => {
    await browser?.close();
    server?.close();
    await staff?.close();
  });

  it('loads nothing from another host, shows the examples as tabs, and runs a query', async () => {
    const context = await browser.newContext({
      httpCredentials: { username: STAFF.name, password: STAFF.password },
    });
    await watchPolicy(context);
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(`${base}/sparql`);
    assert.equal(response?.status(), 200);
    await page.waitForSelector('.yasqe .CodeMirror');
    const tabs = await page.$$eval('.tabsList .tab', (elements) =>
      elements.map((e) => (e.textContent ?? '').trim()),
    );
    const examples = loadExamples();
    for (const example of examples)
      assert.ok(
        tabs.some((t) => t.includes(example.title.slice(0, 20))),
        `a tab for ${example.name}`,
      );
    await page.click('.yasqe_queryButton');
    await page.waitForSelector('.yasr .dataTable, .yasr table', { timeout: 30_000 });
    const cells = await page.$$eval('.yasr td', (elements) => elements.length);
    assert.ok(cells > 0, 'the result table has rows');
    assert.deepEqual(errors, []);
    assert.match(
      response?.headers()['content-security-policy'] ?? '',
      /script-src 'self' 'sha256-/,
    );
    assert.deepEqual(
      await policyViolations(page),
      [],
      'nothing its Content-Security-Policy refuses',
    );
    const elsewhere = requested.filter((url) => !url.startsWith(base) && !url.startsWith('data:'));
    assert.deepEqual(elsewhere, [], 'nothing from another host');
    assert.ok(
      requested.some((url) => url.startsWith(`${base}/sparql`) && url !== `${base}/sparql`),
    );
    await context.close();
  });
});
