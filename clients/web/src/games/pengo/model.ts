/**
 * Pengo versus's match as its stream shows it, rebuilt from the stream alone (the client plays no
 * rules, but this is where the stream's numbers get Pengo's meaning: blocks, sliding, cracks, eggs).
 *
 * A keyframe sets every seat's summary, records and blocks; each frame record then applies its
 * delta-coded actors (protocol/delta.py: summary changes, small moves, whole records, gone keys,
 * notes) and its events, which move, break, crack and thaw blocks; a `board` note replaces a board, a
 * `landed` note names a landing's new blocks. `MatchStream` (net/stream.ts) adds the stream's
 * bookkeeping: rewinds (the state before the rewound frame is kept), resyncs, the frames kept for drawing.
 */

import type { StreamModel } from "../../net/stream";
import type { GameEvent } from "../../net/vocabulary";
import type { FrameBody, SeatView, View } from "../../net/wire";
import type { PengoVocabulary } from "./tables";

/** A block as drawn. */
export interface Block {
  id: number;
  x: number;
  y: number;
  material: string;
  damage: number;
  breaking: boolean;
  sliding: boolean;
}

/** One seat's board. */
export interface SeatModel {
  name: string;
  cols: number;
  rows: number;
  summary: unknown[];
  records: Map<number, number[]>;
  blocks: Map<number, Block>;
  /** The carve order of the maze intro (flat x, y), when a board note brought one. */
  carve: number[];
}

/** The plain form of a model, for comparing with a keyframe view (tests) and showing (debug). */
export interface PlainSeat {
  summary: unknown[];
  records: number[][];
  blocks: number[][];
}

import { MAX_STEP, STEP_SPAN } from "../../generated/protocol";

/** A seat from its figures (copied: a model never shares a record or a summary with another). */
function seatModel(
  from: { name: string; cols: number; rows: number; summary: unknown[] },
  records: Iterable<number[]>,
  blocks: Map<number, Block>,
  carve: number[],
): SeatModel {
  return {
    name: from.name,
    cols: from.cols,
    rows: from.rows,
    summary: from.summary.slice(),
    records: new Map([...records].map((record) => [record[0]!, record.slice()])),
    blocks,
    carve,
  };
}

function cloneSeat(seat: SeatModel): SeatModel {
  const blocks = new Map([...seat.blocks].map(([id, block]) => [id, { ...block }]));
  return seatModel(seat, seat.records.values(), blocks, seat.carve);
}

/** Numbers and nested arrays compared by value. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  }
  return false;
}

/** Every seat's state at the start of frame `frame` (after frame − 1). */
export class MatchModel implements StreamModel<MatchModel> {
  frame = 0;
  timeLeft = 0;
  seats: SeatModel[] = [];
  /** Events of the last frame applied, per seat (drawing uses them for effects). */
  lastEvents: GameEvent[] = [];

  constructor(readonly vocabulary: PengoVocabulary) {}

  clone(): MatchModel {
    const copy = new MatchModel(this.vocabulary);
    copy.frame = this.frame;
    copy.timeLeft = this.timeLeft;
    copy.seats = this.seats.map(cloneSeat);
    copy.lastEvents = this.lastEvents;
    return copy;
  }

  /** Start from a keyframe view (the state at the start of `view.frame`). */
  applyView(view: View): void {
    this.frame = view.frame;
    this.timeLeft = view.time_left;
    this.seats = view.seats.map((seat) => this.seatFromView(seat));
  }

  private seatFromView(view: SeatView): SeatModel {
    return seatModel(view, view.records, this.blocksFrom(view.blocks, view.records), []);
  }

  private blocksFrom(flat: (number | string)[], records: Iterable<number[]>): Map<number, Block> {
    const keys = this.vocabulary.tables.keys;
    const sliding = new Set<number>();
    for (const record of records) {
      const key = record[0] ?? -1;
      if (key >= keys.block) sliding.add(key - keys.block);
    }
    const blocks = new Map<number, Block>();
    for (let i = 0; i + 4 < flat.length; i += 5) {
      const id = flat[i] as number;
      const state = flat[i + 4] as number;
      blocks.set(id, {
        id,
        x: flat[i + 1] as number,
        y: flat[i + 2] as number,
        material: this.vocabulary.word(flat[i + 3]),
        damage: state >> 1,
        breaking: (state & 1) === 1,
        sliding: sliding.has(id),
      });
    }
    return blocks;
  }

  /** Apply one frame record: the seats' changes, then the frame's events. */
  applyFrame(body: FrameBody): void {
    const vocabulary = this.vocabulary;
    const events = body.events.map((values) => vocabulary.event(values));
    this.lastEvents = events;
    const landings: GameEvent[][] = this.seats.map(() => []);
    body.actors.forEach((change, index) => {
      const seat = this.seats[index];
      if (seat !== undefined) this.applySeat(seat, change, events.filter((e) => e.seat === index), landings[index]!);
    });
    this.frame = body.frame + 1;
    this.timeLeft = Math.max(0, this.timeLeft - 1);
  }

  private applySeat(seat: SeatModel, change: unknown[], events: GameEvent[], _landings: GameEvent[]): void {
    const [changes = [], moves = [], whole = [], gone = [], notes = []] = change as [
      unknown[]?, number[]?, number[][]?, number[]?, unknown[][]?,
    ];
    for (let i = 0; i + 1 < changes.length; i += 2) seat.summary[changes[i] as number] = changes[i + 1];
    for (let i = 0; i + 1 < moves.length; i += 2) {
      const record = seat.records.get(moves[i]!);
      if (record === undefined) continue;
      const step = moves[i + 1]!;
      record[1]! += Math.floor(step / STEP_SPAN) - MAX_STEP;
      record[2]! += (step % STEP_SPAN) - MAX_STEP;
    }
    for (const record of whole) seat.records.set(record[0]!, record.slice());
    for (const key of gone) seat.records.delete(key);
    // Events first (they move blocks on this frame), then the notes (a new board replaces it all).
    let landing: GameEvent | undefined;
    for (const event of events) {
      if (event.kind === "landing") landing = event;
      this.applyEvent(seat, event);
    }
    for (const note of notes) this.applyNote(seat, note, landing);
  }

  private applyEvent(seat: SeatModel, event: GameEvent): void {
    const blocks = seat.blocks;
    const block = typeof event.block === "number" ? blocks.get(event.block) : undefined;
    const at = event.at as [number, number] | undefined;
    switch (event.kind) {
      case "slide-start":
        if (block) block.sliding = true;
        break;
      case "slide-step":
        if (block && at) [block.x, block.y] = at;
        break;
      case "slide-stop":
        if (block && at) {
          [block.x, block.y] = at;
          block.sliding = false;
        }
        break;
      case "break-start":
        if (block) {
          block.breaking = true;
          block.damage = 0;
        }
        break;
      case "broken":
        if (typeof event.block === "number") blocks.delete(event.block);
        break;
      case "crack":
        if (block) block.damage = event.damage as number;
        break;
      case "gem-thaw":
        for (const candidate of blocks.values()) {
          if (at && candidate.x === at[0] && candidate.y === at[1] && !candidate.sliding) candidate.material = "ice";
        }
        break;
      default:
        break;
    }
  }

  private applyNote(seat: SeatModel, note: unknown[], landing: GameEvent | undefined): void {
    const kind = this.vocabulary.tables.notes[note[0] as number]?.[0];
    if (kind === "board") {
      const [, cols, rows, flat, carve] = note as [number, number, number, (number | string)[], number[]];
      seat.cols = cols;
      seat.rows = rows;
      seat.blocks = this.blocksFrom(flat, seat.records.values());
      seat.carve = carve;
    } else if (kind === "landed" && landing !== undefined) {
      const ids = note[2] as number[];
      const cells = [
        ...((landing.blocks as [number, number][]) ?? []).map((cell) => ({ cell, material: "ice" })),
        ...((landing.gems as [number, number][]) ?? []).map((cell) => ({ cell, material: "counter-gem" })),
      ];
      ids.forEach((id, index) => {
        const placed = cells[index];
        if (placed === undefined) return;
        seat.blocks.set(id, {
          id, x: placed.cell[0], y: placed.cell[1], material: placed.material, damage: 0, breaking: false, sliding: false,
        });
      });
    }
  }

  /** A summary value by its field name. */
  field(seat: number, name: string): unknown {
    return this.seats[seat]?.summary[this.vocabulary.summaryIndex[name] ?? -1];
  }

  /** The model as plain sorted data. */
  plain(): PlainSeat[] {
    return this.seats.map((seat) => ({
      summary: seat.summary,
      records: [...seat.records.values()].sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0)),
      blocks: [...seat.blocks.values()]
        .map((b) => [b.id, b.x, b.y, this.vocabulary.code(b.material), b.breaking ? 1 : b.damage * 2])
        .sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0)),
    }));
  }

  /** Where this model and a keyframe view of the same frame differ (empty when they agree). */
  differences(view: View): string[] {
    const other = new MatchModel(this.vocabulary);
    other.applyView(view);
    const mine = this.plain();
    const theirs = other.plain();
    const found: string[] = [];
    if (this.frame !== view.frame) found.push(`frame ${this.frame} != ${view.frame}`);
    theirs.forEach((seat, index) => {
      const own = mine[index];
      if (own === undefined) {
        found.push(`seat ${index} missing`);
        return;
      }
      const names = this.vocabulary.tables.summary;
      seat.summary.forEach((value, field) => {
        if (!deepEqual(value, own.summary[field])) {
          found.push(`seat ${index} ${names[field]}: ${JSON.stringify(own.summary[field])} != ${JSON.stringify(value)}`);
        }
      });
      if (!deepEqual(own.records, seat.records)) {
        found.push(`seat ${index} records: ${JSON.stringify(own.records)} != ${JSON.stringify(seat.records)}`);
      }
      if (!deepEqual(own.blocks, seat.blocks)) {
        const a = new Set(own.blocks.map((b) => JSON.stringify(b)));
        const b = new Set(seat.blocks.map((x) => JSON.stringify(x)));
        const extra = [...a].filter((x) => !b.has(x));
        const missing = [...b].filter((x) => !a.has(x));
        found.push(`seat ${index} blocks: extra ${extra.join(" ")} missing ${missing.join(" ")}`);
      }
    });
    return found;
  }
}
