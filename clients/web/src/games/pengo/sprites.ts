/**
 * Pengo's sprites, drawn by floe itself (no arcade art) on any 2D canvas: the board's renderer and the
 * rules page's pictures use the same code. Each block kind has its own shape, and with a colour-blind
 * or high-contrast look (`Look.glyphs`) its own glyph too: a snowflake on ice, a ring in a diamond, a
 * crack on an egg, a "!" on a nuisance egg, a drop arrow on garbage just landed, an octagon with its
 * countdown for a counter gem.
 */

import { CELL } from "./geometry";
import type { Fuse } from "./hud";
import type { Look } from "./look";

/** How a block is shown beyond its material. */
export interface BlockShow {
  /** It shows its egg now (the eggs flash, or a glyph look shows them steadily while they do). */
  egg: boolean;
  /** A nuisance egg a landing just hid in it. */
  nuisance: boolean;
  /** Diamonds lit (a round clear's bonus). */
  lit: boolean;
  /** Garbage just landed here. */
  fresh: boolean;
  /** The flash phase of fresh garbage (drawn only when the look flashes). */
  flashOn: boolean;
  /** A counter gem's count. */
  count: number | undefined;
}

export const PLAIN_BLOCK: BlockShow = { egg: false, nuisance: false, lit: false, fresh: false, flashOn: false, count: undefined };

/** An offset by facing (a sprite's eyes, a hand). */
function offset(facing: string, table: Record<string, [number, number]>, other: [number, number] = [0, 0]): [number, number] {
  return table[facing] ?? other;
}

/** The four facings in the order a dying Pengo spins through them. */
const SPIN = ["down", "left", "up", "right"];

export class Sprites {
  constructor(private readonly ctx: CanvasRenderingContext2D, public look: Look) {}

  /** A block at rest or sliding; `breaking` blocks shatter (`frame` animates the shards). */
  block(material: string, damage: number, breaking: boolean, x: number, y: number, frame: number, show: BlockShow): void {
    const ctx = this.ctx;
    const c = this.look.colours;
    if (breaking) {
      ctx.fillStyle = this.look.flashes && frame % 4 < 2 ? c.ice : c.iceLight;
      for (const [sx, sy] of [[1, 1], [9, 1], [1, 9], [9, 9]] as const) ctx.fillRect(x + sx + (sx > 4 ? 1 : -1), y + sy, 5, 5);
      return;
    }
    if (show.fresh && (this.look.flashes ? show.flashOn : true)) {
      ctx.fillStyle = c.packet;
      ctx.fillRect(x, y, CELL, CELL);
    }
    if (material === "diamond") this.diamond(x, y, show.lit);
    else if (material === "counter-gem") this.gem(x, y, show.count);
    else this.ice(x, y, damage);
    if (show.egg || show.nuisance) this.egg(x, y, show.nuisance);
    if (show.fresh && this.look.glyphs) {
      // a drop arrow: garbage that fell here
      ctx.fillStyle = c.packet;
      ctx.beginPath();
      ctx.moveTo(x + 10, y + 2);
      ctx.lineTo(x + 15, y + 2);
      ctx.lineTo(x + 12.5, y + 6);
      ctx.fill();
    }
  }

  private ice(x: number, y: number, damage: number): void {
    const ctx = this.ctx;
    const c = this.look.colours;
    ctx.fillStyle = c.iceEdge;
    ctx.fillRect(x + 1, y + 1, 14, 14);
    ctx.fillStyle = c.ice;
    ctx.fillRect(x + 2, y + 2, 12, 12);
    ctx.fillStyle = c.iceLight;
    ctx.fillRect(x + 3, y + 3, 5, 2);
    if (damage > 0) {
      ctx.strokeStyle = c.iceEdge;
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x + 4, y + 12);
      ctx.lineTo(x + 8, y + 7);
      ctx.lineTo(x + 12, y + 10);
      ctx.stroke();
    }
    if (this.look.glyphs) {
      // a snowflake: ice
      ctx.fillStyle = c.iceEdge;
      ctx.fillRect(x + 11, y + 9, 1, 5);
      ctx.fillRect(x + 9, y + 11, 5, 1);
      ctx.fillRect(x + 10, y + 10, 1, 1);
      ctx.fillRect(x + 12, y + 12, 1, 1);
      ctx.fillRect(x + 12, y + 10, 1, 1);
      ctx.fillRect(x + 10, y + 12, 1, 1);
    }
  }

  private diamond(x: number, y: number, lit: boolean): void {
    const ctx = this.ctx;
    const c = this.look.colours;
    ctx.fillStyle = lit ? "#ffffff" : c.diamondEdge;
    ctx.fillRect(x + 1, y + 1, 14, 14);
    ctx.fillStyle = lit ? c.diamondEdge : c.diamond;
    ctx.beginPath();
    ctx.moveTo(x + 8, y + 2);
    ctx.lineTo(x + 14, y + 8);
    ctx.lineTo(x + 8, y + 14);
    ctx.lineTo(x + 2, y + 8);
    ctx.fill();
    if (this.look.glyphs) {
      // a ring: a diamond
      ctx.strokeStyle = c.glyph;
      ctx.lineWidth = 1;
      ctx.strokeRect(x + 6.5, y + 6.5, 3, 3);
    }
  }

  private gem(x: number, y: number, count: number | undefined): void {
    const ctx = this.ctx;
    const c = this.look.colours;
    ctx.fillStyle = c.gemEdge;
    if (this.look.glyphs) {
      // an octagon: a counter gem
      ctx.beginPath();
      for (const [px, py] of [[5, 1], [11, 1], [15, 5], [15, 11], [11, 15], [5, 15], [1, 11], [1, 5]] as const) ctx.lineTo(x + px, y + py);
      ctx.fill();
    } else {
      ctx.fillRect(x + 1, y + 1, 14, 14);
    }
    ctx.fillStyle = c.gem;
    ctx.fillRect(x + 3, y + 3, 10, 10);
    ctx.fillStyle = c.gemText;
    ctx.font = "bold 9px monospace";
    ctx.textAlign = "center";
    ctx.fillText(String(count ?? ""), x + 8, y + 12);
    ctx.textAlign = "left";
  }

  private egg(x: number, y: number, nuisance: boolean): void {
    const ctx = this.ctx;
    const c = this.look.colours;
    ctx.fillStyle = c.egg;
    ctx.beginPath();
    ctx.ellipse(x + 8, y + 9, 3.5, 4.5, 0, 0, Math.PI * 2);
    ctx.fill();
    if (this.look.glyphs || nuisance) {
      // a crack across the egg
      ctx.fillStyle = c.eggMark;
      ctx.fillRect(x + 5, y + 9, 2, 1);
      ctx.fillRect(x + 7, y + 8, 2, 1);
      ctx.fillRect(x + 9, y + 9, 2, 1);
    }
    if (nuisance) {
      // "!": a nuisance egg, sent by the opponent, hatching soon
      ctx.fillStyle = c.danger;
      ctx.fillRect(x + 13, y + 2, 2, 5);
      ctx.fillRect(x + 13, y + 8, 2, 2);
    }
  }

  /** One pending attack in the telegraph, 26 pixels wide from (`x`, `y` its top): its units in large
   * digits, the seconds until it lands, and its fuse burning down (red, blinking, in its last second). */
  fuse(x: number, y: number, fuse: Fuse, frame: number): void {
    const ctx = this.ctx;
    const c = this.look.colours;
    ctx.fillStyle = c.packet;
    ctx.font = "bold 12px monospace";
    ctx.fillText(String(fuse.units), x, y + 10);
    ctx.font = "7px monospace";
    ctx.fillStyle = fuse.urgent ? c.danger : c.text;
    ctx.fillText(`${fuse.seconds}s`, x + (fuse.units >= 10 ? 17 : 11), y + 9);
    ctx.fillStyle = c.dim;
    ctx.fillRect(x, y + 13, 26, 3);
    ctx.fillStyle = fuse.urgent && (!this.look.flashes || frame % 10 < 5) ? c.danger : c.packet;
    ctx.fillRect(x, y + 13, Math.max(1, Math.round(26 * fuse.left)), 3);
  }

  /** A small Pengo (a life in the heads-up). */
  icon(x: number, y: number): void {
    const ctx = this.ctx;
    ctx.fillStyle = this.look.colours.pengo;
    ctx.fillRect(x - 3, y - 3, 6, 6);
    ctx.fillStyle = this.look.colours.pengoBelly;
    ctx.fillRect(x - 1, y - 1, 2, 3);
  }

  /** Pengo walking, pushing or breaking (`step` alternates his feet). */
  pengo(facing: string, action: string, x: number, y: number, step: number): void {
    const ctx = this.ctx;
    const c = this.look.colours;
    ctx.fillStyle = c.pengo;
    ctx.beginPath();
    ctx.ellipse(x + 8, y + 9, 6, 6.5, 0, 0, Math.PI * 2);
    ctx.fill();
    ctx.fillStyle = c.pengoBelly;
    ctx.beginPath();
    ctx.ellipse(x + 8, y + 10, 3.5, 4, 0, 0, Math.PI * 2);
    ctx.fill();
    ctx.fillStyle = c.beak;
    ctx.fillRect(x + 4, y + 14 - step, 3, 2);
    ctx.fillRect(x + 9, y + 13 + step, 3, 2);
    const [ex, ey] = offset(facing, { up: [0, -3], down: [0, 1], left: [-3, -1], right: [3, -1] });
    ctx.fillStyle = "#000000";
    ctx.fillRect(x + 6 + ex, y + 6 + ey, 1, 1);
    ctx.fillRect(x + 9 + ex, y + 6 + ey, 1, 1);
    ctx.fillStyle = c.beak;
    ctx.fillRect(x + 7 + ex, y + 8 + ey, 2, 1);
    if (action === "push" || action === "break") {
      const [hx, hy] = offset(facing, { up: [7, -1], down: [7, 15], left: [-1, 8], right: [15, 8] }, [7, 7]);
      ctx.fillStyle = c.pengo;
      ctx.fillRect(x + hx - 1, y + hy - 1, 3, 3);
    }
  }

  /**
   * Pengo dying, `progress` 0 … 1 through his death (as the arcade shows it: he spins on the spot,
   * then lies flattened, dazed, with stars turning over him); `frame` turns the spin and the stars
   * (still when the look does not flash).
   */
  dyingPengo(x: number, y: number, progress: number, frame: number): void {
    const ctx = this.ctx;
    const c = this.look.colours;
    const moving = this.look.flashes;
    if (progress < 0.55) {
      const facing = moving ? SPIN[Math.floor(frame / 6) % 4]! : "down";
      this.pengo(facing, "walk", x, y, 0);
      return;
    }
    // flattened: a wide, low body that sinks as the death ends
    const flat = Math.min(1, (progress - 0.55) / 0.25);
    const height = 6.5 - 3.5 * flat;
    const base = y + 15;
    ctx.fillStyle = c.pengo;
    ctx.beginPath();
    ctx.ellipse(x + 8, base - height, 6 + 2 * flat, height, 0, 0, Math.PI * 2);
    ctx.fill();
    ctx.fillStyle = c.pengoBelly;
    ctx.beginPath();
    ctx.ellipse(x + 8, base - height + 1, 4 + flat, Math.max(1, height - 2.5), 0, 0, Math.PI * 2);
    ctx.fill();
    // feet splayed out
    ctx.fillStyle = c.beak;
    ctx.fillRect(x, base - 2, 3, 2);
    ctx.fillRect(x + 13, base - 2, 3, 2);
    // crossed-out eyes
    const eyes = base - 2 * height + 2;
    ctx.fillStyle = "#000000";
    for (const ex of [5, 9]) {
      ctx.fillRect(x + ex, eyes, 1, 1);
      ctx.fillRect(x + ex + 2, eyes, 1, 1);
      ctx.fillRect(x + ex + 1, eyes + 1, 1, 1);
      ctx.fillRect(x + ex, eyes + 2, 1, 1);
      ctx.fillRect(x + ex + 2, eyes + 2, 1, 1);
    }
    // stars turning over his head
    const turn = moving ? frame / 10 : 0;
    ctx.fillStyle = c.beak;
    for (let star = 0; star < 3; star += 1) {
      const angle = turn + (star * Math.PI * 2) / 3;
      const sx = x + 8 + Math.cos(angle) * 6;
      const sy = eyes - 4 + Math.sin(angle) * 2;
      ctx.fillRect(Math.round(sx) - 1, Math.round(sy), 3, 1);
      ctx.fillRect(Math.round(sx), Math.round(sy) - 1, 1, 3);
    }
  }

  /** A Sno-Bee in its phase (pause, moving, chewing, fleeing, stunned, …). */
  snoBee(phase: string, facing: string, x: number, y: number, frame: number): void {
    const ctx = this.ctx;
    const c = this.look.colours;
    const blink = this.look.flashes;
    if (blink && phase === "blinking" && frame % 6 < 3) return;
    if (blink && phase === "vanishing" && frame % 4 < 2) return;
    let body = c.snoBee;
    if (phase === "stunned" || phase === "blinking") body = c.stunned;
    if (phase === "fleeing") body = c.flee;
    if (phase === "eaten") body = c.dim;
    if (phase === "squashed") {
      ctx.fillStyle = c.snoBeeDark;
      ctx.fillRect(x + 1, y + 11, 14, 4);
      return;
    }
    if (phase === "hatching") {
      const grow = 2 + (frame % 30) / 6;
      ctx.fillStyle = body;
      ctx.fillRect(x + 8 - grow, y + 8 - grow, grow * 2, grow * 2);
      return;
    }
    ctx.fillStyle = c.snoBeeDark;
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
      ctx.fillRect(x + 5 + ex, y + 11 + ey, 6, frame % 8 < 4 ? 2 : 1);
    }
  }
}
