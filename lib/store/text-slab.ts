/**
 * UTF-8 text written straight into large buffers and handed out as slices of them. COPY text was built as lines in an
 * array, joined, then encoded: a whole batch's lines lived until the join, long enough for the young collector to
 * copy and promote them, and the join copied each line (a rope of its fields) once more before the encoding did.
 * Written into the buffer as it is made, a line dies young and is copied once: `toCopyRows` of the soak's batches
 * took 3.7 µs an event instead of 6.4 (docs/performance-log.md#copy-text-written-into-buffers).
 */
const FIRST_SLAB = 16 * 1024;

export class TextSlab {
  /** Empty until the first write, then twice as large each time up to `size`: a batch of a few events stays small. */
  private slab = Buffer.alloc(0);
  /** Where the slice not yet handed out starts. */
  private start = 0;
  private end = 0;
  /** Slices of slabs that filled up before `take` was called. */
  private done: Buffer[] = [];

  constructor(private readonly size = 256 * 1024) {}

  write(text: string): void {
    // A UTF-16 code unit is at most 3 bytes of UTF-8: the bound needs no encoding pass.
    const most = text.length * 3;
    if (this.end + most > this.slab.length) {
      this.retire();
      if (most > this.size) {
        this.done.push(Buffer.from(text));
        return;
      }
      this.slab = Buffer.allocUnsafe(Math.min(this.size, Math.max(this.slab.length * 2, FIRST_SLAB, most)));
      this.start = 0;
      this.end = 0;
    }
    this.end += this.slab.write(text, this.end);
  }

  /** Everything written since the last call, in order; the slab goes on being filled after it. */
  take(): Buffer[] {
    this.retire();
    const taken = this.done;
    this.done = [];
    return taken;
  }

  private retire(): void {
    if (this.end > this.start) this.done.push(this.slab.subarray(this.start, this.end));
    this.start = this.end;
  }
}
