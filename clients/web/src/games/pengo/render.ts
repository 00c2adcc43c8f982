/**
 * Drawing the boards on a canvas, with sprites floe draws itself (no arcade art: sprites.ts).
 *
 * The canvas is drawn at the arcade's resolution (13 × 15 cells of 16 pixels per board, boards side
 * by side with a heads-up strip above each) and scaled by CSS with `image-rendering: pixelated`, so
 * it stays crisp at any window size. A moving sprite is drawn at its true position, interpolated
 * between the two frame states around the display time; only a correction (a rewind or resync that
 * moved it by more than a step) glides (motion.ts). Colours, glyphs, shake and flashes follow the
 * player's look (look.ts, from the settings).
 */

import { MAX_STEP } from "../../generated/protocol";
import { BORDER, CELL, GAP, HUD } from "./geometry";
import { boardLabel, deathProgress, type Ending, FRAMES_PER_SECOND, telegraph } from "./hud";
import { type Look, STANDARD_LOOK } from "./look";
import type { MatchModel, SeatModel } from "./model";
import { between, place, type SpritePlace } from "./motion";
import { type BlockShow, Sprites } from "./sprites";
import type { PengoVocabulary } from "./tables";

export { CELL, GAP, HUD };

/** A landing's cells, remembered for the flash of its garbage and the mark of its nuisance eggs. */
export interface LandingMark {
  frame: number;
  cells: [number, number][];
  eggs: [number, number][];
}

export interface DrawInput {
  before: MatchModel;
  after: MatchModel;
  /** 0 … 1 between `before` (a frame's start) and `after` (the next). */
  alpha: number;
  frame: number;
  timeLeft: number;
  names: string[];
  /** The seat this viewer plays (its board is marked), or null. */
  seat: number | null;
  /** Landings that arrived recently, by seat. */
  landings: Map<number, LandingMark[]>;
  /** The frame each seat's latest death began (its `death` event), by seat. */
  deaths: Map<number, number>;
  /** The match's end, once the stream said it (its `match-end` event). */
  ending: Ending | null;
  /** The stream rewound or resynced since the last drawing (positions may be corrected: they glide). */
  corrected: boolean;
}

/** What one drawing showed: its frame and alpha, every sprite's drawn pixel position ("seat:key"),
 * the labels over each board, each dying Pengo's progress and each board's telegraph. */
export interface LastDrawing {
  frame: number;
  alpha: number;
  sprites: Record<string, [number, number]>;
  labels: string[][];
  dying: Record<number, number>;
  telegraph: { units: number; seconds: string }[][];
}

function emptyDrawing(frame: number, alpha: number): LastDrawing {
  return { frame, alpha, sprites: {}, labels: [], dying: {}, telegraph: [] };
}

/** Frames a landing's garbage flashes, and its nuisance eggs are marked. */
const FRESH_FRAMES = 30;
const NUISANCE_FRAMES = 90;

export class Renderer {
  readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly sprites: Sprites;
  /** Each sprite's last drawing ("seat:key"), for easing corrections; `lastDrawn` for the tests. */
  private readonly drawn = new Map<string, SpritePlace>();
  /** The frame each seat was first drawn dying, when its death event was not seen (a seek into it). */
  private readonly dyingSeen = new Map<number, number>();
  /** The longest time to land seen (the telegraph's scale when the config has no fuse). */
  private longestFuse = 1;
  frames = 0;
  /** Milliseconds spent drawing, all frames together (the fps bench reads it). */
  busyMs = 0;
  /** What the last drawing showed (the browser tests read it). */
  lastDrawn: LastDrawing = emptyDrawing(-1, 0);

  constructor(
    canvas: HTMLCanvasElement,
    private readonly vocabulary: PengoVocabulary,
    seats: number,
    /** Frames an attack's fuse burns (the match's `attack.fuse_frames`): the telegraph's full bar; null
     * when the match's config does not say (the longest fuse seen is the full bar). */
    private fuseFrames: number | null,
    look: Look = STANDARD_LOOK,
    cols = 13,
    rows = 15,
  ) {
    this.canvas = canvas;
    canvas.width = seats * (cols * CELL + 2 * BORDER) + (seats - 1) * GAP;
    canvas.height = HUD + rows * CELL + 2 * BORDER + 14;
    const ctx = canvas.getContext("2d");
    if (ctx === null) throw new Error("no 2d canvas");
    this.ctx = ctx;
    ctx.imageSmoothingEnabled = false;
    this.sprites = new Sprites(ctx, look);
  }

  /** Draw with another look from now on (the settings changed). */
  setLook(look: Look): void {
    this.sprites.look = look;
  }

  get look(): Look {
    return this.sprites.look;
  }

  /** The stream starts again (a seek): sprites snap to their places. */
  restarted(): void {
    this.drawn.clear();
    this.dyingSeen.clear();
  }

  /** Scale the canvas to the largest whole multiple that fits its box (halves below 3×: 1.5, 2.5). */
  fit(width: number, height: number): void {
    const room = Math.min(width / this.canvas.width, height / this.canvas.height);
    const scale = Math.max(1, room >= 3 ? Math.floor(room) : Math.floor(room * 2) / 2);
    this.canvas.style.width = `${this.canvas.width * scale}px`;
    this.canvas.style.height = `${this.canvas.height * scale}px`;
  }

  draw(input: DrawInput): void {
    const started = performance.now();
    this.frames += 1;
    const ctx = this.ctx;
    ctx.fillStyle = this.look.colours.background;
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    this.lastDrawn = emptyDrawing(input.frame, input.alpha);
    input.after.seats.forEach((seat, index) => {
      const old = input.before.seats[index] ?? seat;
      const width = seat.cols * CELL + 2 * BORDER;
      const left = index * (width + GAP);
      this.drawSeat(seat, old, index, left, input);
    });
    this.drawTimer(input.timeLeft);
    this.busyMs += performance.now() - started;
  }

  private drawTimer(frames: number): void {
    const seconds = Math.ceil(frames / FRAMES_PER_SECOND);
    const text = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    const ctx = this.ctx;
    ctx.fillStyle = seconds <= 10 ? this.look.colours.danger : this.look.colours.text;
    ctx.font = "bold 10px monospace";
    ctx.textAlign = "center";
    ctx.fillText(text, this.canvas.width / 2, this.canvas.height - 3);
    ctx.textAlign = "left";
  }

  private word(seat: SeatModel, field: string): string {
    return this.vocabulary.word(seat.summary[this.vocabulary.summaryIndex[field] ?? -1]);
  }

  private num(seat: SeatModel, field: string): number {
    const value = seat.summary[this.vocabulary.summaryIndex[field] ?? -1];
    return typeof value === "number" ? value : 0;
  }

  private drawSeat(seat: SeatModel, old: SeatModel, index: number, left: number, input: DrawInput): void {
    const ctx = this.ctx;
    const colours = this.look.colours;
    const flashes = this.look.flashes;
    const status = this.word(seat, "status");
    const frame = input.frame;
    const top = HUD;
    // heads-up: name, score, lives, act, the telegraph
    ctx.font = "8px monospace";
    ctx.fillStyle = input.seat === index ? colours.pengo : colours.text;
    ctx.fillText((input.names[index] ?? seat.name).slice(0, 12), left, 9);
    ctx.fillStyle = colours.text;
    ctx.textAlign = "right";
    ctx.fillText(String(this.num(seat, "score")).padStart(6, "0"), left + seat.cols * CELL + 2 * BORDER, 9);
    ctx.textAlign = "left";
    // A death shows at once: the rules take the life when the dying ends (status_end), the icons now.
    const lives = this.num(seat, "lives") - (status === "dying" ? 1 : 0);
    for (let life = 0; life < Math.min(lives, 6); life += 1) this.sprites.icon(left + life * 9 + 4, 20);
    ctx.fillStyle = colours.dim;
    ctx.fillText(`ACT ${this.num(seat, "act")}`, left + 58, 23);
    this.drawTelegraph(seat, index, left + 100, frame);
    // the board, shaken while Pengo kicks the wall
    const player = seat.records.get(this.vocabulary.tables.keys.player);
    let shakeX = 0;
    let shakeY = 0;
    if (this.look.shake && player !== undefined && this.vocabulary.word(player[4]) === "shake") {
      const side = this.vocabulary.word(player[3]);
      const jitter = frame % 4 < 2 ? 1 : -1;
      if (side === "left" || side === "right") shakeX = jitter;
      else shakeY = jitter;
    }
    const bx = left + BORDER;
    const by = top + BORDER;
    ctx.fillStyle = colours.border;
    ctx.fillRect(left + shakeX, top + shakeY, seat.cols * CELL + 2 * BORDER, seat.rows * CELL + 2 * BORDER);
    ctx.fillStyle = colours.floor;
    ctx.fillRect(bx, by, seat.cols * CELL, seat.rows * CELL);
    const eggs = new Set((seat.summary[this.vocabulary.summaryIndex.egg_blocks ?? -1] as number[] | undefined) ?? []);
    // The eggs flash while they show; without flashes (or with glyphs) they show steadily.
    const eggsShown = eggs.size > 0 && (!flashes || this.look.glyphs || frame % 16 < 10);
    const lit = status === "bonus" && (flashes ? frame % 8 < 4 : true);
    const flashOn = frame % 6 < 3;
    const fresh = new Set<string>();
    const nuisance = new Set<string>();
    for (const landing of input.landings.get(index) ?? []) {
      const age = frame - landing.frame;
      if (age < 0) continue;
      if (age < FRESH_FRAMES) for (const [x, y] of landing.cells) fresh.add(`${x},${y}`);
      if (age < NUISANCE_FRAMES) for (const [x, y] of landing.eggs) nuisance.add(`${x},${y}`);
    }
    const gems = new Map<number, number>();
    for (const gem of (seat.summary[this.vocabulary.summaryIndex.gems ?? -1] as number[][] | undefined) ?? []) {
      gems.set(gem[0]!, gem[1]!);
    }
    const show = (id: number, key: string | null): BlockShow => ({
      egg: eggsShown && eggs.has(id),
      nuisance: key !== null && nuisance.has(key),
      lit,
      fresh: key !== null && fresh.has(key),
      flashOn,
      count: gems.get(id),
    });
    for (const block of seat.blocks.values()) {
      if (block.sliding) continue;
      this.sprites.block(block.material, block.damage, block.breaking, bx + block.x * CELL, by + block.y * CELL, frame,
        show(block.id, `${block.x},${block.y}`));
    }
    const keys = this.vocabulary.tables.keys;
    // Pengo last: on top of the Sno-Bee that caught him and the block he pushes.
    let pengo: number[] | undefined;
    for (const [key, record] of seat.records) {
      if (key === keys.player) {
        pengo = record;
        continue;
      }
      const previous = old.records.get(key) ?? record;
      const [px, py] = this.position(`${index}:${key}`, previous, record, input);
      const x = bx + px;
      const y = by + py;
      if (key >= keys.block) {
        const block = seat.blocks.get(key - keys.block);
        if (block) this.sprites.block(block.material, block.damage, block.breaking, x, y, frame, show(block.id, null));
      } else {
        this.sprites.snoBee(this.vocabulary.word(record[5]), this.vocabulary.word(record[6]), x, y, frame);
      }
    }
    if (pengo !== undefined) {
      const [px, py] = this.position(`${index}:${keys.player}`, old.records.get(keys.player) ?? pengo, pengo, input);
      this.drawPengo(seat, index, pengo, bx + px, by + py, input);
    }
    if (status !== "dying") this.dyingSeen.delete(index);
    const label = boardLabel(index, status, this.num(seat, "out"), input.ending, frame);
    const labels: string[] = [];
    this.lastDrawn.labels[index] = labels;
    if (label !== "" && !(label === "READY!" && flashes && frame % 30 < 8)) {
      labels.push(label);
      this.banner(seat, label, bx, by);
    }
  }

  /** Where the last drawing put seat `seat`'s Pengo ("x,y"), or null when it drew none. */
  avatar(seat: number): string | null {
    const at = this.lastDrawn.sprites[`${seat}:${this.vocabulary.tables.keys.player}`];
    return at === undefined ? null : `${at[0]},${at[1]}`;
  }

  /** The drawn pixel position of a record: its true one, a correction gliding (motion.ts). */
  private position(id: string, before: number[], after: number[], input: DrawInput): [number, number] {
    const [tx, ty] = between(before, after, input.alpha, MAX_STEP);
    const placed = place(this.drawn.get(id), tx, ty, input.corrected, MAX_STEP);
    this.drawn.set(id, placed);
    const at: [number, number] = [Math.round(placed.x), Math.round(placed.y)];
    this.lastDrawn.sprites[id] = at;
    return at;
  }

  private drawPengo(seat: SeatModel, index: number, record: number[], x: number, y: number, input: DrawInput): void {
    const frame = input.frame;
    const action = this.vocabulary.word(record[4]);
    const status = this.word(seat, "status");
    if (action === "dying" || status === "dying") {
      const end = this.num(seat, "status_end");
      let start = input.deaths.get(index);
      if (start === undefined || start > frame || start < end - 10 * FRAMES_PER_SECOND) {
        start = this.dyingSeen.get(index) ?? frame;
        this.dyingSeen.set(index, start);
      }
      const progress = deathProgress(frame, start, end);
      this.lastDrawn.dying[index] = progress;
      this.sprites.dyingPengo(x, y, progress, frame);
      return;
    }
    if (status === "ready" && this.look.flashes && frame % 20 < 6) return;
    this.sprites.pengo(this.vocabulary.word(record[3]), action, x, y, (x + y) % 8 < 4 ? 0 : 1);
  }

  /** Each pending attack: its units (large), a fuse burning down, and the seconds until it lands. */
  private drawTelegraph(seat: SeatModel, index: number, x: number, frame: number): void {
    const pending = (seat.summary[this.vocabulary.summaryIndex.pending ?? -1] as number[][] | undefined) ?? [];
    for (const packet of pending) this.longestFuse = Math.max(this.longestFuse, packet[3]! - frame);
    const shown = telegraph(pending, frame, this.fuseFrames ?? this.longestFuse).slice(0, 4);
    this.lastDrawn.telegraph[index] = shown.map((fuse) => ({ units: fuse.units, seconds: fuse.seconds }));
    shown.forEach((fuse, slot) => this.sprites.fuse(x + slot * 29, 14, fuse, frame));
  }

  private banner(seat: SeatModel, shown: string, bx: number, by: number): void {
    const ctx = this.ctx;
    const cx = bx + (seat.cols * CELL) / 2;
    const cy = by + (seat.rows * CELL) / 2;
    ctx.fillStyle = "rgba(0,0,0,0.6)";
    ctx.fillRect(bx, cy - 10, seat.cols * CELL, 16);
    ctx.fillStyle = this.look.colours.diamond;
    ctx.font = "bold 10px monospace";
    ctx.textAlign = "center";
    ctx.fillText(shown, cx, cy + 2);
    ctx.textAlign = "left";
  }
}
