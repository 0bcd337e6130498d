// Writing one version's dumps (src/documents/versionDumps.ts): the three files, each under a temporary
// name until whole, with its SHA-256 and size, and what each institution's description becomes in
// each. It runs in a worker thread of its own (dumpsWorker.ts): framing every description as
// JSON-LD left its garbage in the serving thread's heap for a long while (docs/benchmark.md, "the
// dumps written in a thread of their own"), which goes with the thread here.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { toDescription, withOwnBlankNodes } from '../rdf/description';
import { toJsonLd } from '../rdf/jsonld';
import { flatRecord } from '../record/flatRecord';
import { csvRow, CSV_HEAD } from '../record/csv';

/** One file being written: its stream (gzipped or not), its hash and size as written. */
export class Writing {
  private readonly out: fs.WriteStream;
  private readonly gzip: zlib.Gzip | undefined;
  private readonly hash = createHash('sha256');
  /** Why the file cannot be written (a disk full, a folder gone): every later call throws it. */
  private failed: Error | undefined;
  constructor(
    readonly file: string,
    gzip: boolean,
  ) {
    this.out = fs.createWriteStream(`${file}.part`);
    // The file's error fails the writing: the stream stops, and a write waiting for it to drain
    // would wait for ever (the dumps "making" until the next version).
    this.out.on('error', (error) => {
      this.failed ??= error;
      this.waiting?.(error);
    });
    if (gzip) {
      this.gzip = zlib.createGzip({ level: 6 });
      this.gzip.on('data', (chunk: Buffer) => this.hash.update(chunk));
      this.gzip.pipe(this.out);
    }
  }

  /** Rejects the drain or close being waited for, when the file fails. */
  private waiting: ((error: Error) => void) | undefined;

  /** Resolves when `event` comes from `emitter`, rejects when the file fails first. */
  private until(emitter: NodeJS.EventEmitter, event: string): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise<void>((resolve, reject) => {
      this.waiting = reject;
      emitter.once(event, () => resolve());
    }).finally(() => (this.waiting = undefined));
  }

  async write(text: string): Promise<void> {
    if (this.failed) throw this.failed;
    const target = this.gzip ?? this.out;
    if (!this.gzip) this.hash.update(text);
    if (!target.write(text)) await this.until(target, 'drain');
  }

  async close(): Promise<{ bytes: number; sha256: string }> {
    const done = this.until(this.out, 'close');
    if (this.gzip) this.gzip.end();
    else this.out.end();
    await done;
    if (this.failed) throw this.failed;
    fs.renameSync(`${this.file}.part`, this.file);
    return { bytes: fs.statSync(this.file).size, sha256: this.hash.digest('hex') };
  }

  abandon(): void {
    this.gzip?.destroy();
    this.out.destroy();
    fs.rmSync(`${this.file}.part`, { force: true });
  }
}

/** An institution to write: its ISIL, IRI, and its description as the store port answers it. */
export interface DumpItem {
  readonly isil: string;
  readonly iri: string;
  readonly ntriples: string;
}

/** The three files of one set, [N-Triples gzip, JSON-LD lines gzip, CSV], and what they hold. */
export class DumpWriting {
  readonly files: readonly [Writing, Writing, Writing];
  institutions = 0;
  triples = 0;

  constructor(
    paths: readonly [string, string, string],
    private readonly contextUrl: string,
  ) {
    this.files = [
      new Writing(paths[0], true),
      new Writing(paths[1], true),
      new Writing(paths[2], false),
    ];
  }

  async begin(): Promise<void> {
    await this.files[2].write(`${CSV_HEAD.join(',')}\r\n`);
  }

  /** One institution's lines in each file. */
  async add({ isil, iri, ntriples }: DumpItem): Promise<void> {
    const [nt, jsonl, csv] = this.files;
    const description = toDescription(iri, ntriples);
    this.triples += description.triples.length;
    const n = ++this.institutions;
    await nt.write(withOwnBlankNodes(description.triples, `i${n}_`));
    await jsonl.write(
      `${JSON.stringify(JSON.parse(await toJsonLd(description, this.contextUrl)))}\n`,
    );
    const e = flatRecord(isil, description);
    await csv.write(`${csvRow(e, iri)}\r\n`);
  }

  /** Each file renamed into place, with its size and SHA-256. */
  async close(): Promise<{ bytes: number; sha256: string }[]> {
    const closed = [];
    for (const file of this.files) closed.push(await file.close());
    return closed;
  }

  abandon(): void {
    for (const file of this.files) file.abandon();
  }
}
