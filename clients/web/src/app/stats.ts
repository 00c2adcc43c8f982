/**
 * A match's statistics from its stream's events (pure: no DOM, no clock), for the results screen.
 *
 * The event kinds are pengo-versus's (rules/versus/events.py, rules/kick's event kinds; the stream's
 * `joined.tables.events` names them): `queued` is a packet of attack units on its way to `seat` from
 * `source` (what the source sent, after its own offset), `offset` the units a seat's attack cancelled
 * of its own pending ones, `landing` units landed on `seat` (received), `crush` the Sno-Bees (`ids`)
 * one slide crushed, `line` the three diamonds lined up, `death` a Pengo lost.
 *
 * A player's stream is speculative: a `rewind` takes back the frames from its frame on, and they come
 * again. `EventLog` keeps each frame's latest events, so the count is the match's final log's.
 */

import type { GameEvent } from "../net/vocabulary";
import type { FrameBody, StreamMessage } from "../net/wire";

/** One seat's numbers. */
export interface SeatStats {
  /** Attack units sent to the other boards (after the seat's own offset). */
  sent: number;
  /** Attack units that landed on this board. */
  received: number;
  /** Incoming units this seat's attacks cancelled before they landed. */
  cancelled: number;
  /** Sno-Bees crushed by kicked blocks. */
  crushes: number;
  /** Diamond lines made. */
  lines: number;
  deaths: number;
}

function number(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Each seat's statistics from a match's events, in any order. */
export function matchStats(events: Iterable<GameEvent>, seats: number): SeatStats[] {
  const stats: SeatStats[] = Array.from({ length: seats },
    () => ({ sent: 0, received: 0, cancelled: 0, crushes: 0, lines: 0, deaths: 0 }));
  const of = (seat: unknown): SeatStats | undefined => (typeof seat === "number" ? stats[seat] : undefined);
  for (const event of events) {
    switch (event.kind) {
      case "queued": {
        const source = of(event.source);
        if (source) source.sent += number(event.units);
        break;
      }
      case "landing": {
        const seat = of(event.seat);
        if (seat) seat.received += number(event.units);
        break;
      }
      case "offset": {
        const seat = of(event.seat);
        if (seat) seat.cancelled += number(event.units);
        break;
      }
      case "crush": {
        const seat = of(event.seat);
        if (seat) seat.crushes += Array.isArray(event.ids) ? event.ids.length : 1;
        break;
      }
      case "line": {
        const seat = of(event.seat);
        if (seat) seat.lines += 1;
        break;
      }
      case "death": {
        const seat = of(event.seat);
        if (seat) seat.deaths += 1;
        break;
      }
    }
  }
  return stats;
}

/** The latest events of each frame a stream carried (a rewind takes back the frames from its frame). */
export class EventLog {
  private readonly frames = new Map<number, unknown[][]>();

  constructor(private readonly decode: (values: unknown[]) => GameEvent) {}

  apply(message: StreamMessage): void {
    switch (message.kind) {
      case "frame":
        this.frames.set(message.frame, message.events);
        break;
      case "rewind":
        this.takeBackFrom(message.frame);
        break;
      case "resync":
        this.takeBackFrom(message.frame);
        for (const body of message.frames as FrameBody[]) this.frames.set(body.frame, body.events);
        break;
      default:
        break;
    }
  }

  private takeBackFrom(frame: number): void {
    for (const key of [...this.frames.keys()]) if (key >= frame) this.frames.delete(key);
  }

  /** Every event kept, decoded, frame by frame. */
  *events(): Generator<GameEvent> {
    const frames = [...this.frames.keys()].sort((a, b) => a - b);
    for (const frame of frames) for (const values of this.frames.get(frame)!) yield this.decode(values);
  }

  /** The frames kept (the first one, and how many), to say when the log does not start at frame 0. */
  get firstFrame(): number | null {
    let first: number | null = null;
    for (const frame of this.frames.keys()) if (first === null || frame < first) first = frame;
    return first;
  }
}
