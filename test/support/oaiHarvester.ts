// Debian's OAI-PMH harvester (`oai_pmh`, libhttp-oai-perl) run against a server: it follows every
// resumption token and prints each record's header lines, then its metadata, records separated by
// a form feed. Read here into the records it harvested.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

export const OAI_PMH = '/usr/bin/oai_pmh';
export const hasHarvester = fs.existsSync(OAI_PMH);

export interface Harvested {
  readonly identifier: string;
  readonly deleted: boolean;
  readonly datestamp: string;
  /** Whether metadata followed the header. */
  readonly metadata: boolean;
}

/** What `oai_pmh` printed, record by record. */
export function readHarvest(output: string): Harvested[] {
  return output
    .split('\f')
    .filter((chunk) => /^identifier: /m.test(chunk))
    .map((chunk) => ({
      identifier: /^identifier: (.*)$/m.exec(chunk)![1]!.trim(),
      deleted: /^status: deleted$/m.test(chunk),
      datestamp: /^datestamp: (.*)$/m.exec(chunk)?.[1]?.trim() ?? '',
      metadata: /<metadata[\s>]/.test(chunk),
    }));
}

/**
 * Runs `oai_pmh` with `args` against `baseUrl` (ListRecords unless `-X` says otherwise); rejects
 * when it exits with an error. Its output is latin-1 (it prints without an encoding layer): read
 * as such, the identifiers and header lines are ASCII either way.
 */
export function runHarvester(
  baseUrl: string,
  args: readonly string[],
): Promise<{ output: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(OAI_PMH, [...args, baseUrl], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`oai_pmh ${args.join(' ')} exited with ${code}: ${err}`));
      else
        resolve({
          output: Buffer.concat(out).toString('latin1'),
          seconds: (performance.now() - started) / 1000,
        });
    });
  });
}
