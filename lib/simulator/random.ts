/**
 * Seeded pseudo-random numbers (sfc32, seeded through splitmix32). Every draw the simulator makes comes from here,
 * so one seed reproduces a run byte for byte. `fork` gives each part of the model its own stream: a scenario that
 * draws one more number then does not shift every later draw of the cluster model.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // Seeds above 2^32 still differ from their low 32 bits.
    let state = (seed ^ Math.floor(seed / 2 ** 32)) >>> 0;
    const split = (): number => {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = split();
    this.b = split();
    this.c = split();
    this.d = split();
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An independent stream named by `label` (FNV-1a of the label mixed with one draw of this stream). */
  fork(label: string): Rng {
    let hash = 0x811c9dc5;
    for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 0x01000193);
    return new Rng((hash ^ Math.floor(this.next() * 4294967296)) >>> 0);
  }

  /** Whole number in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Whole number of milliseconds in [min, max]: times in the model are whole ms, as every log prints them. */
  ms(min: number, max: number): number {
    return this.int(Math.round(min), Math.round(max));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }

  /** Picks by weight; weights need not sum to 1. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let roll = this.next() * total;
    for (const [value, weight] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    const last = entries[entries.length - 1];
    if (last === undefined) throw new Error("weighted pick from an empty list");
    return last[0];
  }

  /** Spread evenly over orders of magnitude: gaps of 2 s and 5 min are equally likely per factor. */
  logUniformMs(min: number, max: number): number {
    return Math.round(Math.exp(Math.log(min) + this.next() * (Math.log(max) - Math.log(min))));
  }

  hex(digits: number): string {
    let out = "";
    for (let i = 0; i < digits; i++) out += "0123456789ABCDEF"[Math.floor(this.next() * 16)];
    return out;
  }
}
