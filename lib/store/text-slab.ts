/**
 * UTF-8 text written straight into large buffers and handed out as slices of them. COPY text was built as lines in an
 * array, joined and then encoded: the join flattens each line (a rope of its fields) into a new string only to copy
 * it again into the buffer, ~1 µs an event of the ~6 a batch costs to build (docs/performance.md#copy-text-written-into-buffers).
 * Writing each line into the buffer flattens it once, and the slices share their slab, so a batch waiting to be
 * written is a few buffers off the JS heap.
 */
export class TextSlab {
  private slab: Buffer;
  /** Where the slice not yet handed out starts. */
  private start = 0;
  private end = 0;
  /** Slices of slabs that filled up before `take` was called. */
  private done: Buffer[] = [];

  constructor(private readonly size = 256 * 1024) {
    this.slab = Buffer.allocUnsafe(size);
  }

  write(text: string): void {
    // A UTF-16 code unit is at most 3 bytes of UTF-8: the bound needs no encoding pass.
    const most = text.length * 3;
    if (this.end + most > this.slab.length) {
      this.retire();
      if (most > this.size) {
        this.done.push(Buffer.from(text));
        return;
      }
      this.slab = Buffer.allocUnsafe(this.size);
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
