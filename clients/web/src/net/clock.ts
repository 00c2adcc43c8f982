/**
 * The estimate of the server's current match frame, as the session has made it since protocol 3, and
 * the lead an input is stamped with (issue 21: inputs that arrive before their frame).
 *
 * Pings carry an id; each pong gives a sample, the offset between the server's frame and the local
 * time, corrected by half its round trip; of the last `CLOCK_SAMPLES` the one with the smallest round
 * trip wins. The newest frame record bounds the estimate from below (the server was at least one
 * frame past it when it arrived). Times are milliseconds on any monotonic clock, passed in: the clock
 * reads none itself.
 */

import type { Pong } from "./wire";

/** Frames of margin an input is stamped beyond its measured one-way delay and jitter. */
export const LEAD_MARGIN_FRAMES = 1;
/** The most frames ahead of the server's present an input is stamped (a bound on a wild sample;
 * the server's `max_ahead` is 120). */
export const LEAD_MAX_FRAMES = 40;

/** Clock samples kept. */
export const CLOCK_SAMPLES = 8;
/** Pings awaiting their pong kept (the oldest is forgotten past this). */
export const PINGS_KEPT = 4 * CLOCK_SAMPLES;

export class ServerClock {
  /** Frames per millisecond, known once the server's `welcome` named its frame rate. */
  private rate: number | null = null;
  private readonly pings = new Map<number, number>();
  private nextPing = 1;
  /** [round trip, offset] per pong: the server frame at local time t is offset + t × rate. */
  private readonly samples: [number, number][] = [];
  /** The newest frame record seen and when it arrived. */
  private latest: [number, number] | null = null;

  /** The server's frame rate (frames per second), from `welcome`. */
  setFrameRate(framesPerSecond: number): void {
    this.rate = framesPerSecond / 1000;
  }

  /** A ping to send now: its id and the low 31 bits of the local time. */
  ping(now: number): { id: number; t: number } {
    const id = this.nextPing++;
    this.pings.set(id, now);
    if (this.pings.size > PINGS_KEPT) this.pings.delete(Math.min(...this.pings.keys()));
    return { id, t: Math.floor(now) & 0x7fffffff };
  }

  /** A pong arrived: a sample when it answers a ping still kept and the server was in a match. */
  pong(message: Pong, now: number): void {
    const sent = this.pings.get(message.id);
    this.pings.delete(message.id);
    if (sent === undefined || message.frame < 0 || this.rate === null) return;
    const rtt = Math.max(0, now - sent);
    this.samples.push([rtt, message.frame + (rtt / 2) * this.rate - now * this.rate]);
    if (this.samples.length > CLOCK_SAMPLES) this.samples.shift();
  }

  /** A frame record for `frame` arrived (an older one than the newest changes nothing). */
  frameRecord(frame: number, now: number): void {
    if (this.latest === null || frame >= this.latest[0]) this.latest = [frame, now];
  }

  /** A resync's last frame arrived: it is the newest, even if older than one seen before. */
  resynced(frame: number, now: number): void {
    this.latest = [frame, now];
  }

  /**
   * How many frames ahead of the server's present (`serverFrame`) an input should be stamped so that it
   * normally reaches the server before its frame: the one-way delay (half the smallest round trip of the
   * samples kept), its jitter (half the spread between the smallest and the largest round trip kept)
   * and `LEAD_MARGIN_FRAMES`, rounded up, at most `LEAD_MAX_FRAMES`; null before a pong. The samples are
   * the last `CLOCK_SAMPLES` pongs (two seconds), so the lead follows a changed network, and a stall
   * (a hidden tab, a slow pong) leaves it within two seconds.
   */
  lead(): number | null {
    const rate = this.rate;
    if (rate === null || this.samples.length === 0) return null;
    let low = Infinity;
    let high = 0;
    for (const [rtt] of this.samples) {
      low = Math.min(low, rtt);
      high = Math.max(high, rtt);
    }
    return Math.min(LEAD_MAX_FRAMES, Math.ceil((low / 2 + (high - low) / 2) * rate + LEAD_MARGIN_FRAMES));
  }

  /** The estimated frame the server is on at `now` (null until a pong or a frame arrived). */
  serverFrame(now: number): number | null {
    const rate = this.rate;
    if (rate === null) return null;
    let best: number | null = null;
    if (this.samples.length > 0) {
      const [, offset] = this.samples.reduce((a, b) => (b[0] < a[0] ? b : a));
      best = offset + now * rate;
    }
    if (this.latest !== null) {
      const floor = this.latest[0] + 1 + (now - this.latest[1]) * rate;
      best = best === null ? floor : Math.max(best, floor);
    }
    return best;
  }
}
