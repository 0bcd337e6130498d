// Validates an OAI-PMH answer against the official schemas with Debian's xmllint, offline
// (--nonet): the driver schema (test/support/oai/) imports them where `npm run fetch-data` puts
// them, and the XML catalog beside it maps the one schema they import by URL to a local file.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/util/paths';
import { skipWithout } from './missing';

const HERE = path.join(PROJECT_ROOT, 'test', 'support', 'oai');
export const OAI_DRIVER_SCHEMA = path.join(HERE, 'oai-pmh-driver.xsd');
export const OAI_CATALOG = path.join(HERE, 'catalog.xml');
export const XMLLINT = '/usr/bin/xmllint';
export const hasXmllint = fs.existsSync(XMLLINT);

/** What xmllint says is wrong with `xml` (empty: it validates). */
export function oaiSchemaErrors(xml: string): string {
  const run = spawnSync(XMLLINT, ['--nonet', '--noout', '--schema', OAI_DRIVER_SCHEMA, '-'], {
    input: xml,
    encoding: 'utf8',
    env: { ...process.env, XML_CATALOG_FILES: OAI_CATALOG },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  // A schema it could not read is a warning, and the rest validated without it: a failure here.
  if (run.status === 0 && !/warning|I\/O error/i.test(run.stderr)) return '';
  return run.stderr.trim() || `xmllint exited with ${run.status}`;
}

/** Skips the suite without xmllint, except in CI, where that fails. */
export function needsXmllint(this: Mocha.Context): void {
  if (!hasXmllint)
    skipWithout(this, 'libxml2-utils (xmllint)', 'sudo bash .ci/packages installs it');
}
