/**
 * Payload versus's match as its stream shows it (rules/payload/match.py), rebuilt from the stream alone.
 *
 * A keyframe gives every seat its summary (SUMMARY_FIELDS), its board's parts as records
 * (`[cell, px, py, part code]`) and its run as `run_plain` without the seed and the deal. Each frame
 * record then brings each seat's delta-coded actors (protocol/delta.py: summary changes, whole records,
 * gone keys) and the frame's events as plain maps with their seat (events.py `event_plain`, and the
 * match's own `attack`, `queued`, `refused`, `forfeit`, `end`). The run is followed from them: the
 * numbers and the phase's kind from the summary, the board from the records, and what only the events
 * name (the draft's offers and pick, the blueprint choices and the blueprints taken, the jams landed)
 * from the events. No rule is played here: every keyframe is compared with the run built up to it
 * (`differences`), and the previews of a seat's board are asked of rules/payload in the browser engine.
 */

import type { StreamModel } from "../../net/stream";
import type { GameEvent, StreamTables, Vocabulary } from "../../net/vocabulary";
import type { FrameBody, View } from "../../net/wire";
import type { PartRow, PayloadView, Phase } from "./types";

/** Payload's stream tables (rules/payload/ruleset.py `stream_tables`). */
export interface PayloadTables extends StreamTables {
  parts: string[];
  compendium: PartRow[];
  cell_px: number;
}

/** A run as a viewer sees it: rules/payload/plain.py `run_plain` without the seed and the deal. */
export type ShownRun = Pick<PayloadView, "difficulty" | "variant" | "round" | "board" | "phase" | "round_score"
  | "total_score" | "rounds_cleared" | "blueprints"> & { received: string[] };

export interface PayloadSeat {
  name: string;
  cols: number;
  rows: number;
  summary: unknown[];
  /** The board's parts by cell, as the stream's records carry them. */
  records: Map<number, number[]>;
  run: ShownRun;
  /** The last move the match refused this seat (its reason), if any. */
  refused: string | null;
}

/** A keyframe's seat as Payload sends it. */
interface PayloadSeatView {
  name: string;
  cols: number;
  rows: number;
  summary: unknown[];
  records: number[][];
  run: ShownRun;
}

/** rules/payload/match.py `_PHASE_CODES`: the summary's phase field. */
const PHASE_CODES = ["draft", "blueprints", "dropping", "over"] as const;

function copyRun(run: ShownRun): ShownRun {
  return { ...run, board: run.board.slice(), phase: structuredCopy(run.phase), blueprints: run.blueprints.slice(),
    received: run.received.slice() };
}

function structuredCopy(phase: Phase): Phase {
  return phase.phase === "draft" ? { ...phase, offers: phase.offers.slice() }
    : phase.phase === "blueprints" ? { ...phase, choices: phase.choices.slice() } : { ...phase };
}

function copySeat(seat: PayloadSeat): PayloadSeat {
  return {
    ...seat, summary: seat.summary.slice(), records: new Map([...seat.records].map(([k, r]) => [k, r.slice()])),
    run: copyRun(seat.run),
  };
}

/** Plain data compared by value (JSON's order is the rules' own: keys are written in one order). */
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export class PayloadModel implements StreamModel<PayloadModel> {
  frame = 0;
  timeLeft = 0;
  seats: PayloadSeat[] = [];
  lastEvents: GameEvent[] = [];
  /** The match's end record, once a frame this model applied carried it (a keyframe restarts a model:
   * null again after it). */
  ended: GameEvent | null = null;
  private readonly index: Record<string, number>;

  constructor(readonly vocabulary: Vocabulary<PayloadTables>) {
    this.index = vocabulary.summaryIndex;
  }

  clone(): PayloadModel {
    const copy = new PayloadModel(this.vocabulary);
    copy.frame = this.frame;
    copy.timeLeft = this.timeLeft;
    copy.seats = this.seats.map(copySeat);
    copy.lastEvents = this.lastEvents;
    copy.ended = this.ended;
    return copy;
  }

  /** A summary field of a seat, by its name in SUMMARY_FIELDS. */
  field(seat: PayloadSeat, name: string): unknown {
    const at = this.index[name];
    return at === undefined ? undefined : seat.summary[at];
  }

  applyView(view: View): void {
    this.frame = view.frame;
    this.timeLeft = view.time_left;
    this.seats = (view.seats as unknown as PayloadSeatView[]).map((seat) => ({
      name: seat.name, cols: seat.cols, rows: seat.rows, summary: seat.summary.slice(),
      records: new Map(seat.records.map((record) => [record[0]!, record.slice()])),
      run: copyRun(seat.run), refused: null,
    }));
    this.lastEvents = [];
  }

  applyFrame(body: FrameBody): void {
    body.actors.forEach((change, index) => {
      const seat = this.seats[index];
      if (seat !== undefined) this.applyActors(seat, change as unknown[]);
    });
    const events = body.events as unknown as GameEvent[];
    for (const event of events) this.applyEvent(event);
    for (const seat of this.seats) this.follow(seat);
    this.lastEvents = events;
    this.frame = body.frame + 1;
    this.timeLeft = Math.max(0, this.timeLeft - 1);
  }

  /** One seat's delta (protocol/delta.py): `[changes, moves, whole, gone, notes]`, its empty tail left off. */
  private applyActors(seat: PayloadSeat, change: unknown[]): void {
    const [changes = [], , whole = [], gone = []] = change as [unknown[]?, unknown[]?, number[][]?, number[]?];
    for (let i = 0; i + 1 < changes.length; i += 2) seat.summary[changes[i] as number] = changes[i + 1];
    for (const record of whole) seat.records.set(record[0]!, record.slice());
    for (const key of gone) seat.records.delete(key);
  }

  private applyEvent(event: GameEvent): void {
    if (event.kind === "end") this.ended = event;
    const seat = typeof event.seat === "number" ? this.seats[event.seat] : undefined;
    if (seat === undefined) return;
    const run = seat.run;
    // a refusal is shown until the seat's next move goes through
    if (event.kind !== "refused" && event.kind !== "queued" && event.kind !== "received") seat.refused = null;
    switch (event.kind) {
      case "offers":
        run.phase = { phase: "draft", offers: (event.offers as string[]).slice(), selected: null, rerolls: 0 };
        break;
      case "rerolled": {
        const rerolls = run.phase.phase === "draft" ? run.phase.rerolls + 1 : 1;
        run.phase = { phase: "draft", offers: (event.offers as string[]).slice(), selected: null, rerolls };
        break;
      }
      case "selected":
        if (run.phase.phase === "draft") run.phase.selected = event.index as number;
        break;
      case "blueprints":
        run.phase = { phase: "blueprints", choices: (event.choices as string[]).slice() };
        break;
      case "blueprint":
        run.blueprints.push(event.key as string);
        break;
      case "round-cleared":
        // the next round starts with no jam landed on it (run.py apply_drop); its landing comes after
        run.received = [];
        break;
      case "run-end":
        run.phase = { phase: "over", won: Boolean(event.won) };
        break;
      case "received":
        if (typeof event.jam === "string") run.received.push(event.jam);
        break;
      case "refused":
        seat.refused = String(event.reason ?? "refused");
        break;
    }
  }

  /** The run's numbers, phase kind and board from the seat's summary and records (after its events). */
  private follow(seat: PayloadSeat): void {
    const run = seat.run;
    run.round = this.field(seat, "round") as number;
    run.round_score = this.field(seat, "round_score") as number;
    run.total_score = this.field(seat, "total_score") as number;
    run.rounds_cleared = this.field(seat, "rounds_cleared") as number;
    const kind = PHASE_CODES[this.field(seat, "phase") as number];
    if (kind === "dropping") run.phase = { phase: "dropping", drops_left: this.field(seat, "drops_left") as number };
    const parts = this.vocabulary.tables.parts;
    run.board = run.board.map(() => null);
    for (const [cell, record] of seat.records) run.board[cell] = parts[record[3]!] ?? null;
  }

  differences(view: View): string[] {
    const found: string[] = [];
    if (view.frame !== this.frame) found.push(`frame ${this.frame} ≠ ${view.frame}`);
    (view.seats as unknown as PayloadSeatView[]).forEach((shown, index) => {
      const seat = this.seats[index];
      if (seat === undefined) {
        found.push(`seat ${index} missing`);
        return;
      }
      if (!same(seat.summary, shown.summary)) found.push(`seat ${index} summary ${JSON.stringify(seat.summary)} ≠ ${JSON.stringify(shown.summary)}`);
      const records = [...seat.records.values()].sort((a, b) => a[0]! - b[0]!);
      if (!same(records, shown.records)) found.push(`seat ${index} records differ`);
      if (!same(seat.run, shown.run)) found.push(`seat ${index} run ${JSON.stringify(seat.run)} ≠ ${JSON.stringify(shown.run)}`);
    });
    return found;
  }

  plain(): unknown {
    return {
      frame: this.frame,
      seats: this.seats.map((seat) => ({ summary: seat.summary, run: seat.run })),
    };
  }
}
