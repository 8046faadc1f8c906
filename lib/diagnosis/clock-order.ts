/**
 * Two events whose order is known — a duplicate's first delivery and its repeat, as the diagnosis ordered them, or a
 * send and its consumption — measured by stamps from different hosts' clocks. The clocks may put the later event
 * first (deliveries.ts moves a delivery after another within the skew when causality says so), and a negative
 * duration then told the reader nothing true. Every place that shows or exports a gap measures it here: the gap is the
 * distance between the stamps, never negative, and when the stamps contradict the known order, `clockSkewMs` says by
 * how much: the hosts' clocks disagree by at least that.
 */

export interface ClockOrder {
  /** How far apart the two stamps are: never negative. */
  gapMs: number;
  /** How far the later event's stamp lies before the earlier one's; 0 when the clocks agree with the order. */
  clockSkewMs: number;
}

/** `earlierTs` and `laterTs`: the stamps of the event that came first and of the one that followed it. */
export function clockOrder(earlierTs: number, laterTs: number): ClockOrder {
  const signed = laterTs - earlierTs;
  // `+ 0` turns -0 into 0, so an equal pair reads as a gap of 0 ms either way round.
  return { gapMs: Math.abs(signed) + 0, clockSkewMs: Math.max(0, -signed) + 0 };
}

export interface PairMember {
  /** A delivery id, `d1`, `d2`…: deliveries.ts numbers them in the order the diagnosis settled on. */
  id: string;
  start: number;
}

export interface OrderedPair<T extends PairMember> extends ClockOrder {
  first: T;
  second: T;
}

/** The diagnosis's position of a delivery: its number, whatever its clock said. */
function position(d: PairMember): number {
  return Number(d.id.replace(/^\D+/, ""));
}

/**
 * Two deliveries of a duplicate in the diagnosis's order, given in either order, with the gap between them and how
 * far their clocks contradict that order.
 */
export function orderPair<T extends PairMember>(a: T, b: T): OrderedPair<T> {
  const [first, second] = position(a) <= position(b) ? [a, b] : [b, a];
  return { first, second, ...clockOrder(first.start, second.start) };
}

/**
 * How far a consumption's stamp lies before the earliest stamp of the sends of its message: a consumption cannot
 * start before the message was sent, so that much is clock disagreement between the producer's and the consumer's
 * hosts. 0 when a send is stamped before it, or none is known.
 */
export function consumedBeforeSent(consumeStart: number, sendTs: readonly number[]): number {
  if (sendTs.length === 0) return 0;
  return clockOrder(Math.min(...sendTs), consumeStart).clockSkewMs;
}
