/**
 * Drawing the boards on a canvas, with sprites floe draws itself (no arcade art).
 *
 * The canvas is drawn at the arcade's resolution (13 × 15 cells of 16 pixels per board, boards side
 * by side with a heads-up strip above each) and scaled by CSS with `image-rendering: pixelated`, so
 * it stays crisp at any window size. Motion is interpolated between the two frame states around the
 * display time; a position that jumps by a few pixels (a rewind corrected it) eases to its new place
 * instead of snapping.
 */

import type { Block, MatchModel, SeatModel } from "./model";
import type { PengoVocabulary } from "./tables";

export const CELL = 16;
export const HUD = 28;
export const GAP = 12;
const BORDER = 4;
/** A drawn position further than this from its target snaps (a respawn, a new level). */
const EASE_LIMIT = 24;

const COLOURS = {
  floor: "#0b1a2e",
  border: "#3a6ea5",
  ice: "#9fe3ff",
  iceEdge: "#4fb7e6",
  iceLight: "#e6f8ff",
  diamond: "#ffd23f",
  diamondEdge: "#d98e04",
  gem: "#c77dff",
  gemEdge: "#7b2cbf",
  egg: "#fff3b0",
  pengo: "#ff5964",
  pengoBelly: "#ffffff",
  snoBee: "#38e07b",
  snoBeeDark: "#1b8a4a",
  stunned: "#b9f5cf",
  flee: "#ffb347",
  text: "#e8f1ff",
  dim: "#7d8fa8",
  danger: "#ff7a7a",
  packet: "#ff9f1c",
};

/** An offset by facing (a sprite's eyes, a hand). */
function offset(facing: string, table: Record<string, [number, number]>, other: [number, number] = [0, 0]): [number, number] {
  return table[facing] ?? other;
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
  /** Frames at which landings arrived recently, by seat: cells to flash. */
  landings: Map<number, { frame: number; cells: [number, number][] }[]>;
}

export class Renderer {
  readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly drawn = new Map<string, [number, number]>();
  frames = 0;
  /** Milliseconds spent drawing, all frames together (the fps bench reads it). */
  busyMs = 0;

  constructor(canvas: HTMLCanvasElement, private readonly vocabulary: PengoVocabulary, seats: number, cols = 13, rows = 15) {
    this.canvas = canvas;
    canvas.width = seats * (cols * CELL + 2 * BORDER) + (seats - 1) * GAP;
    canvas.height = HUD + rows * CELL + 2 * BORDER + 14;
    const ctx = canvas.getContext("2d");
    if (ctx === null) throw new Error("no 2d canvas");
    this.ctx = ctx;
    ctx.imageSmoothingEnabled = false;
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
    ctx.fillStyle = "#050b14";
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
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
    const seconds = Math.ceil(frames / 60);
    const text = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    const ctx = this.ctx;
    ctx.fillStyle = seconds <= 10 ? COLOURS.danger : COLOURS.text;
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
    const status = this.word(seat, "status");
    const frame = input.frame;
    const top = HUD;
    // heads-up: name, score, lives, act, the telegraph
    ctx.font = "8px monospace";
    ctx.fillStyle = input.seat === index ? COLOURS.pengo : COLOURS.text;
    ctx.fillText((input.names[index] ?? seat.name).slice(0, 12), left, 9);
    ctx.fillStyle = COLOURS.text;
    ctx.textAlign = "right";
    ctx.fillText(String(this.num(seat, "score")).padStart(6, "0"), left + seat.cols * CELL + 2 * BORDER, 9);
    ctx.textAlign = "left";
    // A death shows at once: the rules take the life when the dying ends (status_end), the icons now.
    const lives = this.num(seat, "lives") - (status === "dying" ? 1 : 0);
    for (let life = 0; life < Math.min(lives, 6); life += 1) this.pengoIcon(left + life * 9 + 4, 15);
    ctx.fillStyle = COLOURS.dim;
    ctx.fillText(`ACT ${this.num(seat, "act")}`, left + 60, 18);
    this.drawTelegraph(seat, left + 100, 12, frame);
    // the board, shaken while Pengo kicks the wall
    const player = seat.records.get(this.vocabulary.tables.keys.player);
    let shakeX = 0;
    let shakeY = 0;
    if (player !== undefined && this.vocabulary.word(player[4]) === "shake") {
      const side = this.vocabulary.word(player[3]);
      const jitter = frame % 4 < 2 ? 1 : -1;
      if (side === "left" || side === "right") shakeX = jitter;
      else shakeY = jitter;
    }
    const bx = left + BORDER;
    const by = top + BORDER;
    ctx.fillStyle = COLOURS.border;
    ctx.fillRect(left + shakeX, top + shakeY, seat.cols * CELL + 2 * BORDER, seat.rows * CELL + 2 * BORDER);
    ctx.fillStyle = COLOURS.floor;
    ctx.fillRect(bx, by, seat.cols * CELL, seat.rows * CELL);
    const eggs = new Set((seat.summary[this.vocabulary.summaryIndex.egg_blocks ?? -1] as number[] | undefined) ?? []);
    const flash = eggs.size > 0 && frame % 16 < 10;
    const bonus = status === "bonus";
    const landed = input.landings.get(index) ?? [];
    const fresh = new Set<string>();
    for (const landing of landed) {
      if (frame - landing.frame < 30) for (const [x, y] of landing.cells) fresh.add(`${x},${y}`);
    }
    const gems = new Map<number, number>();
    for (const gem of (seat.summary[this.vocabulary.summaryIndex.gems ?? -1] as number[][] | undefined) ?? []) {
      gems.set(gem[0]!, gem[1]!);
    }
    for (const block of seat.blocks.values()) {
      if (block.sliding) continue;
      const key = `${block.x},${block.y}`;
      this.drawBlock(block, bx + block.x * CELL, by + block.y * CELL, frame, {
        egg: flash && eggs.has(block.id),
        bonus,
        fresh: fresh.has(key),
        count: gems.get(block.id),
      });
    }
    const keys = this.vocabulary.tables.keys;
    for (const [key, record] of seat.records) {
      const previous = old.records.get(key) ?? record;
      const [px, py] = this.position(`${index}:${key}`, previous, record, input.alpha);
      const x = bx + px;
      const y = by + py;
      if (key >= keys.block) {
        const block = seat.blocks.get(key - keys.block);
        if (block) this.drawBlock(block, x, y, frame, { egg: flash && eggs.has(block.id), bonus, fresh: false, count: gems.get(block.id) });
      } else if (key >= keys.enemy) {
        this.drawEnemy(record, x, y, frame);
      } else {
        this.drawPengo(record, x, y, frame, status);
      }
    }
    if (status !== "playing") this.banner(seat, status, bx, by, frame);
    if (this.num(seat, "out") > 0) this.banner(seat, this.num(seat, "out") === 2 ? "forfeit" : "out", bx, by, frame);
  }

  /** The interpolated, eased pixel position of a record. */
  private position(id: string, before: number[], after: number[], alpha: number): [number, number] {
    let tx = after[1]!;
    let ty = after[2]!;
    const dx = after[1]! - before[1]!;
    const dy = after[2]! - before[2]!;
    if (Math.abs(dx) <= 8 && Math.abs(dy) <= 8) {
      tx = before[1]! + dx * alpha;
      ty = before[2]! + dy * alpha;
    }
    const drawn = this.drawn.get(id);
    if (drawn !== undefined) {
      const gx = tx - drawn[0];
      const gy = ty - drawn[1];
      const far = Math.abs(gx) > EASE_LIMIT || Math.abs(gy) > EASE_LIMIT;
      if (!far && (Math.abs(gx) > 2.5 || Math.abs(gy) > 2.5)) {
        tx = drawn[0] + gx * 0.4;
        ty = drawn[1] + gy * 0.4;
      }
    }
    this.drawn.set(id, [tx, ty]);
    return [Math.round(tx), Math.round(ty)];
  }

  private drawTelegraph(seat: SeatModel, x: number, y: number, frame: number): void {
    const pending = (seat.summary[this.vocabulary.summaryIndex.pending ?? -1] as number[][] | undefined) ?? [];
    const ctx = this.ctx;
    pending.slice(0, 4).forEach((packet, index) => {
      const units = packet[2]!;
      const fuse = Math.max(0, packet[3]! - frame);
      const px = x + index * 24;
      ctx.fillStyle = COLOURS.packet;
      ctx.fillRect(px, y - 8, Math.min(20, 4 + units * 2), 5);
      ctx.fillStyle = fuse < 60 && frame % 10 < 5 ? COLOURS.danger : COLOURS.dim;
      ctx.fillRect(px, y - 2, Math.min(20, Math.ceil(fuse / 15)), 2);
      ctx.font = "6px monospace";
      ctx.fillStyle = COLOURS.text;
      ctx.fillText(String(units), px + 1, y + 6);
    });
  }

  private drawBlock(
    block: Block,
    x: number,
    y: number,
    frame: number,
    show: { egg: boolean; bonus: boolean; fresh: boolean; count: number | undefined },
  ): void {
    const ctx = this.ctx;
    if (block.breaking) {
      // shattering: four shards drifting apart
      ctx.fillStyle = frame % 4 < 2 ? COLOURS.ice : COLOURS.iceLight;
      for (const [sx, sy] of [[1, 1], [9, 1], [1, 9], [9, 9]] as const) ctx.fillRect(x + sx + (sx > 4 ? 1 : -1), y + sy, 5, 5);
      return;
    }
    if (show.fresh && frame % 6 < 3) {
      ctx.fillStyle = COLOURS.packet;
      ctx.fillRect(x, y, CELL, CELL);
    }
    if (block.material === "diamond") {
      const lit = show.bonus && frame % 8 < 4;
      ctx.fillStyle = lit ? "#ffffff" : COLOURS.diamondEdge;
      ctx.fillRect(x + 1, y + 1, 14, 14);
      ctx.fillStyle = lit ? COLOURS.diamondEdge : COLOURS.diamond;
      ctx.beginPath();
      ctx.moveTo(x + 8, y + 2);
      ctx.lineTo(x + 14, y + 8);
      ctx.lineTo(x + 8, y + 14);
      ctx.lineTo(x + 2, y + 8);
      ctx.fill();
      return;
    }
    if (block.material === "counter-gem") {
      ctx.fillStyle = COLOURS.gemEdge;
      ctx.fillRect(x + 1, y + 1, 14, 14);
      ctx.fillStyle = COLOURS.gem;
      ctx.fillRect(x + 3, y + 3, 10, 10);
      ctx.fillStyle = "#ffffff";
      ctx.font = "bold 9px monospace";
      ctx.textAlign = "center";
      ctx.fillText(String(show.count ?? ""), x + 8, y + 12);
      ctx.textAlign = "left";
      return;
    }
    ctx.fillStyle = COLOURS.iceEdge;
    ctx.fillRect(x + 1, y + 1, 14, 14);
    ctx.fillStyle = COLOURS.ice;
    ctx.fillRect(x + 2, y + 2, 12, 12);
    ctx.fillStyle = COLOURS.iceLight;
    ctx.fillRect(x + 3, y + 3, 5, 2);
    if (block.damage > 0) {
      ctx.strokeStyle = COLOURS.iceEdge;
      ctx.beginPath();
      ctx.moveTo(x + 4, y + 12);
      ctx.lineTo(x + 8, y + 7);
      ctx.lineTo(x + 12, y + 10);
      ctx.stroke();
    }
    if (show.egg) {
      ctx.fillStyle = COLOURS.egg;
      ctx.beginPath();
      ctx.ellipse(x + 8, y + 9, 3.5, 4.5, 0, 0, Math.PI * 2);
      ctx.fill();
    }
  }

  private pengoIcon(x: number, y: number): void {
    const ctx = this.ctx;
    ctx.fillStyle = COLOURS.pengo;
    ctx.fillRect(x - 3, y - 3, 6, 6);
    ctx.fillStyle = COLOURS.pengoBelly;
    ctx.fillRect(x - 1, y - 1, 2, 3);
  }

  private drawPengo(record: number[], x: number, y: number, frame: number, status: string): void {
    const ctx = this.ctx;
    const facing = this.vocabulary.word(record[3]);
    const action = this.vocabulary.word(record[4]);
    if (action === "dying") {
      if (frame % 8 < 4) return;
      ctx.fillStyle = COLOURS.pengo;
      ctx.fillRect(x + 3, y + 6, 10, 6);
      return;
    }
    if (status === "ready" && frame % 20 < 6) return;
    const step = (x + y) % 8 < 4 ? 0 : 1;
    ctx.fillStyle = COLOURS.pengo;
    ctx.beginPath();
    ctx.ellipse(x + 8, y + 9, 6, 6.5, 0, 0, Math.PI * 2);
    ctx.fill();
    ctx.fillStyle = COLOURS.pengoBelly;
    ctx.beginPath();
    ctx.ellipse(x + 8, y + 10, 3.5, 4, 0, 0, Math.PI * 2);
    ctx.fill();
    // feet (walking alternates them)
    ctx.fillStyle = COLOURS.diamond;
    ctx.fillRect(x + 4, y + 14 - step, 3, 2);
    ctx.fillRect(x + 9, y + 13 + step, 3, 2);
    // eyes and beak toward the facing
    const [ex, ey] = offset(facing, { up: [0, -3], down: [0, 1], left: [-3, -1], right: [3, -1] });
    ctx.fillStyle = "#000000";
    ctx.fillRect(x + 6 + ex, y + 6 + ey, 1, 1);
    ctx.fillRect(x + 9 + ex, y + 6 + ey, 1, 1);
    ctx.fillStyle = COLOURS.diamond;
    ctx.fillRect(x + 7 + ex, y + 8 + ey, 2, 1);
    if (action === "push" || action === "break") {
      const [hx, hy] = offset(facing, { up: [7, -1], down: [7, 15], left: [-1, 8], right: [15, 8] }, [7, 7]);
      ctx.fillStyle = COLOURS.pengo;
      ctx.fillRect(x + hx - 1, y + hy - 1, 3, 3);
    }
  }

  private drawEnemy(record: number[], x: number, y: number, frame: number): void {
    const ctx = this.ctx;
    const phase = this.vocabulary.word(record[5]);
    const facing = this.vocabulary.word(record[6]);
    if (phase === "blinking" && frame % 6 < 3) return;
    if (phase === "vanishing" && frame % 4 < 2) return;
    let body = COLOURS.snoBee;
    if (phase === "stunned" || phase === "blinking") body = COLOURS.stunned;
    if (phase === "fleeing") body = COLOURS.flee;
    if (phase === "eaten") body = COLOURS.dim;
    if (phase === "squashed") {
      ctx.fillStyle = COLOURS.snoBeeDark;
      ctx.fillRect(x + 1, y + 11, 14, 4);
      return;
    }
    if (phase === "hatching") {
      const grow = 2 + (frame % 30) / 6;
      ctx.fillStyle = body;
      ctx.fillRect(x + 8 - grow, y + 8 - grow, grow * 2, grow * 2);
      return;
    }
    ctx.fillStyle = COLOURS.snoBeeDark;
    ctx.fillRect(x + 2, y + 3, 12, 12);
    ctx.fillStyle = body;
    ctx.fillRect(x + 3, y + 2, 10, 12);
    const [ex, ey] = offset(facing, { up: [0, -2], down: [0, 2], left: [-2, 0], right: [2, 0] });
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(x + 4 + ex, y + 5 + ey, 3, 3);
    ctx.fillRect(x + 9 + ex, y + 5 + ey, 3, 3);
    ctx.fillStyle = "#000000";
    if (phase === "stunned" || phase === "blinking") {
      ctx.fillRect(x + 4 + ex, y + 6 + ey, 3, 1);
      ctx.fillRect(x + 9 + ex, y + 6 + ey, 3, 1);
    } else {
      ctx.fillRect(x + 5 + ex, y + 6 + ey, 1, 1);
      ctx.fillRect(x + 10 + ex, y + 6 + ey, 1, 1);
    }
    if (phase === "chewing") {
      ctx.fillStyle = "#000000";
      ctx.fillRect(x + 5 + ex, y + 11 + ey, 6, frame % 8 < 4 ? 2 : 1);
    }
  }

  private banner(seat: SeatModel, text: string, bx: number, by: number, frame: number): void {
    const words: Record<string, string> = {
      ready: "READY!", drawing: "", dying: "", clear: "ROUND CLEAR", bonus: "BONUS", lost: "GAME OVER",
      complete: "COMPLETE", out: "OUT", forfeit: "FORFEIT",
    };
    const shown = words[text] ?? text.toUpperCase();
    if (!shown || (text === "ready" && frame % 30 < 8)) return;
    const ctx = this.ctx;
    const cx = bx + (seat.cols * CELL) / 2;
    const cy = by + (seat.rows * CELL) / 2;
    ctx.fillStyle = "rgba(0,0,0,0.6)";
    ctx.fillRect(bx, cy - 10, seat.cols * CELL, 16);
    ctx.fillStyle = COLOURS.diamond;
    ctx.font = "bold 10px monospace";
    ctx.textAlign = "center";
    ctx.fillText(shown, cx, cy + 2);
    ctx.textAlign = "left";
  }
}
