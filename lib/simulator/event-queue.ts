/**
 * The discrete-event clock: a binary heap of callbacks ordered by time, ties in scheduling order so a run is
 * deterministic. `work` marks events that are part of some message's story; periodic housekeeping (offset commits)
 * is not work, and the run ends once only housekeeping is left.
 */
export interface Scheduled {
  at: number;
  seq: number;
  work: boolean;
  run: () => void;
}

function before(x: Scheduled, y: Scheduled): boolean {
  return x.at < y.at || (x.at === y.at && x.seq < y.seq);
}

export class EventQueue {
  private readonly heap: Scheduled[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(at: number, run: () => void, work: boolean): void {
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, work, run });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  pop(): Scheduled | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) break;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
    return top;
  }
}
