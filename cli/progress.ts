// What long commands (load, harvest, generate) show while they work: on a terminal, a bar with the
// phase, the count, the rate and the time left (cli-progress); when stderr is not a terminal (a
// log, a pipe, CI), a plain line every PROGRESS_LINE_MS and one when a phase ends; with --quiet,
// nothing. Always on stderr: stdout keeps the command's report, which scripts read.
import { SingleBar } from 'cli-progress';
import type { OnProgress } from '../src/load/report';

export type ProgressMode = 'bar' | 'lines' | 'quiet';

/** Tells where progress goes: `--quiet` silences it; a terminal gets a bar, anything else lines. */
export function progressMode(
  quiet: boolean | undefined,
  stream: NodeJS.WriteStream = process.stderr,
): ProgressMode {
  if (quiet) return 'quiet';
  return stream.isTTY ? 'bar' : 'lines';
}

/** How often a plain line is written while a phase runs. */
export const PROGRESS_LINE_MS = 10_000;

const number = new Intl.NumberFormat('en');

/** `12 s`, `4 min 05 s`, `1 h 02 min`. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'unknown';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

export type { OnProgress };

/**
 * One command's progress. `report` is the callback to hand to the work; `end` closes the phase
 * under way (call it before printing the command's own last line).
 */
export class Progress {
  private phase: string | undefined;
  private unit = '';
  private total: number | undefined;
  private done = 0;
  private started = 0;
  private lastLine = 0;
  private bar: SingleBar | undefined;

  constructor(
    private readonly command: string,
    private readonly mode: ProgressMode,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly now: () => number = Date.now,
    private readonly lineMs = PROGRESS_LINE_MS,
  ) {}

  readonly report: OnProgress = (phase, done, total, unit) => {
    if (this.mode === 'quiet') return;
    if (phase !== this.phase) {
      this.end();
      this.phase = phase;
      this.unit = unit;
      this.total = total;
      this.started = this.now();
      this.lastLine = this.started;
      if (this.mode === 'bar') this.startBar();
    }
    this.done = done;
    if (total !== undefined) this.total = total;
    if (this.mode === 'bar') this.bar!.update(done, this.payload());
    else if (this.now() - this.lastLine >= this.lineMs) {
      this.lastLine = this.now();
      this.stream.write(`${this.command}: ${this.line()}\n`);
    }
  };

  /**
   * Ends the phase under way: the bar stops, or a last line says what it did in how long. When the
   * work failed (`finished` false), no line claims the phase was done: the failure says why.
   */
  end(finished = true): void {
    if (this.phase === undefined) return;
    const seconds = (this.now() - this.started) / 1000;
    if (this.mode === 'bar') {
      this.bar!.update(this.done, this.payload());
      this.bar!.stop();
      this.bar = undefined;
    } else if (this.mode === 'lines' && finished)
      this.stream.write(
        `${this.command}: ${this.phase} done, ${number.format(this.done)} ${this.unit} in ${duration(seconds)}\n`,
      );
    this.phase = undefined;
  }

  private rate(): number {
    const seconds = (this.now() - this.started) / 1000;
    return seconds > 0 ? this.done / seconds : 0;
  }

  private left(): string {
    const rate = this.rate();
    if (this.total === undefined || rate === 0) return '';
    return `, about ${duration((this.total - this.done) / rate)} left`;
  }

  /** `reading: 12,000 of 17,000 institutions (71%), 1,234/s, about 4 s left`. */
  line(): string {
    const of = this.total === undefined ? '' : ` of ${number.format(this.total)}`;
    const share =
      this.total === undefined || this.total === 0
        ? ''
        : ` (${Math.floor((this.done / this.total) * 100)}%)`;
    return `${this.phase}: ${number.format(this.done)}${of} ${this.unit}${share}, ${number.format(Math.round(this.rate()))}/s${this.left()}`;
  }

  private payload(): Record<string, string> {
    return {
      phase: this.phase!,
      unit: this.unit,
      count: number.format(this.done),
      of: this.total === undefined ? '' : ` of ${number.format(this.total)}`,
      rate: number.format(Math.round(this.rate())),
      left: this.left(),
    };
  }

  private startBar(): void {
    const known = this.total !== undefined;
    this.bar = new SingleBar({
      stream: this.stream,
      format: `${this.command}: {phase} ${known ? '[{bar}] ' : ''}{count}{of} {unit}, {rate}/s{left}`,
      barsize: 24,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
      // Redraw inside update(): the store's WebAssembly blocks the event loop for seconds at a time.
      synchronousUpdate: true,
    });
    this.bar.start(this.total ?? 0, 0, this.payload());
  }
}
