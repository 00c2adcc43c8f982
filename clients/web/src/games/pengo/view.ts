/**
 * Pengo versus's view: its model, its board (the renderer plus the landings it flashes), its
 * controls, its sounds and its rules page, as the generic layer asks for them (games/view.ts).
 */

import type { MatchStream } from "../../net/stream";
import type { Joined } from "../../net/wire";
import type { Board, BoardLayout, BoardPanels, GameView, Scene } from "../view";
import { Controls, controlsHelp } from "./input";
import { MatchModel } from "./model";
import { BORDER } from "./geometry";
import type { Ending } from "./hud";
import { type Look, settingsLook } from "./look";
import { CELL, type DrawInput, GAP, HUD, Renderer } from "./render";
import { rulesPage } from "./rules";
import { play } from "./sound";
import { pengoVocabulary } from "./tables";

type Landings = DrawInput["landings"];
/** Landings remembered per seat (the renderer flashes those of the last half second). */
const LANDINGS_KEPT = 8;
/** Drawings between two readings of the look's settings (a change shows within half a second). */
const LOOK_EVERY = 30;

/** The strip under the boards that the match clock is drawn in (render.ts: 14 pixels), and its width. */
const CLOCK_HEIGHT = 14;
const CLOCK_WIDTH = 48;
/** The page's colour behind the boards (render.ts clears its canvas to it). */
const BACKGROUND = "#050b14";

/** The renderer, and what it draws beyond the model: landings, deaths, the match's end, corrections.
 *
 * Laid out as a row (a desktop), the renderer draws on the page's canvas itself; any other layout
 * (app/layout.ts: a phone's) has a second renderer draw on a canvas off the page, whose seats' panels
 * are then copied to their places (an integer number of canvas pixels per pixel, so they stay crisp). */
export class PengoBoard implements Board<MatchModel> {
  private landings: Landings = new Map();
  private deaths = new Map<number, number>();
  private ending: Ending | null = null;
  /** The stream's rewinds and resyncs so far, and whether new ones came since the last drawing. */
  private corrections = 0;
  private corrected = false;
  private arranged: BoardLayout | null = null;
  private offPage: Renderer | null = null;
  private composeMs = 0;
  readonly panels: BoardPanels;

  constructor(readonly renderer: Renderer, private readonly makeOffPage: (canvas: HTMLCanvasElement) => Renderer,
    cols: number, rows: number, seats: number, private readonly readLook: (() => Look) | null = null) {
    this.panels = {
      width: cols * CELL + 2 * BORDER, height: HUD + rows * CELL + 2 * BORDER, seats, gap: GAP,
      footerWidth: CLOCK_WIDTH, footerHeight: CLOCK_HEIGHT,
    };
    if (readLook !== null) renderer.setLook(readLook());
  }

  get frames(): number {
    return this.renderer.frames + (this.offPage?.frames ?? 0);
  }

  get busyMs(): number {
    return this.renderer.busyMs + (this.offPage?.busyMs ?? 0) + this.composeMs;
  }

  fit(width: number, height: number): void {
    this.renderer.fit(width, height);
  }

  layout(layout: BoardLayout): void {
    const canvas = this.renderer.canvas;
    if (layout.kind === "row") {
      if (this.arranged !== null && this.arranged.kind !== "row") {
        // back to the renderer's own size (resizing a canvas resets its context's settings)
        canvas.width = Math.round(layout.width);
        canvas.height = Math.round(layout.height);
        canvas.getContext("2d")!.imageSmoothingEnabled = false;
      }
    } else {
      this.offPage ??= this.makeOffPage(document.createElement("canvas"));
      canvas.width = Math.ceil(layout.width * layout.resolution);
      canvas.height = Math.ceil(layout.height * layout.resolution);
      const ctx = canvas.getContext("2d")!;
      ctx.imageSmoothingEnabled = false;
      // the space between the panels, once: each frame's copies cover only the panels and the clock
      ctx.fillStyle = BACKGROUND;
      ctx.fillRect(0, 0, canvas.width, canvas.height);
    }
    this.arranged = layout;
    canvas.style.width = `${Math.floor(layout.width * layout.scale)}px`;
    canvas.style.height = `${Math.floor(layout.height * layout.scale)}px`;
  }

  /** The off-page drawing's panels copied to their places on the page's canvas. */
  private compose(layout: BoardLayout, source: HTMLCanvasElement): void {
    const started = performance.now();
    const target = this.renderer.canvas;
    const ctx = target.getContext("2d")!;
    const { width: w, height: h, gap } = this.panels;
    const r = layout.resolution;
    layout.places.forEach((place, seat) => {
      ctx.drawImage(source, seat * (w + gap), 0, w, h,
        Math.round(place.x * r), Math.round(place.y * r), Math.round(w * place.scale * r), Math.round(h * place.scale * r));
    });
    const { footerWidth: fw, footerHeight: fh } = this.panels;
    const footer = layout.footer;
    ctx.drawImage(source, Math.round((source.width - fw) / 2), source.height - fh, fw, fh,
      Math.round(footer.x * r), Math.round(footer.y * r), Math.round(fw * footer.scale * r), Math.round(fh * footer.scale * r));
    this.composeMs += performance.now() - started;
  }

  applied(stream: MatchStream<MatchModel>, frame: number): void {
    const corrections = stream.rewinds + stream.resyncs;
    if (corrections !== this.corrections) {
      this.corrections = corrections;
      this.corrected = true;
    }
    for (const event of stream.model.lastEvents) {
      if (event.kind === "match-end") {
        const end = typeof event.frame === "number" ? event.frame : frame + 1;
        this.ending = { frame: end, outcomes: (event.outcomes as string[] | undefined) ?? [] };
      }
      if (typeof event.seat !== "number") continue;
      if (event.kind === "death") this.deaths.set(event.seat, frame);
      if (event.kind !== "landing") continue;
      const cells = [...((event.blocks as [number, number][]) ?? []), ...((event.gems as [number, number][]) ?? [])];
      const list = this.landings.get(event.seat) ?? [];
      list.push({ frame, cells, eggs: (event.eggs as [number, number][] | undefined) ?? [] });
      while (list.length > LANDINGS_KEPT) list.shift();
      this.landings.set(event.seat, list);
    }
  }

  avatar(seat: number): string | null {
    const layout = this.arranged;
    const drew = layout === null || layout.kind === "row" || this.offPage === null ? this.renderer : this.offPage;
    return drew.avatar(seat);
  }

  avatarIn(model: MatchModel, seat: number): string | null {
    const record = model.seats[seat]?.records.get(model.vocabulary.tables.keys.player);
    return record === undefined ? null : `${record[1]},${record[2]}`;
  }

  correct(): void {
    this.corrected = true;
  }

  restarted(): void {
    this.landings = new Map();
    this.deaths = new Map();
    this.ending = null;
    this.renderer.restarted();
  }

  draw(scene: Scene<MatchModel>): void {
    if (this.readLook !== null && this.frames % LOOK_EVERY === 0) {
      const look = this.readLook();
      this.renderer.setLook(look);
      this.offPage?.setLook(look);
    }
    const input = {
      ...scene, landings: this.landings, deaths: this.deaths, ending: this.ending, corrected: this.corrected,
    };
    this.corrected = false;
    const layout = this.arranged;
    if (layout === null || layout.kind === "row" || this.offPage === null) {
      this.renderer.draw(input);
      return;
    }
    this.offPage.draw(input);
    this.compose(layout, this.offPage.canvas);
  }
}

export const pengoView: GameView<MatchModel> = {
  ruleset: "pengo-versus",
  controlsHelp: () => controlsHelp(),
  models(joined: Joined) {
    const vocabulary = pengoVocabulary(joined.tables);
    return () => new MatchModel(vocabulary);
  },
  board(canvas: HTMLCanvasElement, joined: Joined) {
    const vocabulary = pengoVocabulary(joined.tables);
    const seats = joined.seats.length;
    const attack = (joined.config.rules as { attack?: { fuse_frames?: number } } | undefined)?.attack;
    const fuse = attack?.fuse_frames ?? null;
    const renderer = new Renderer(canvas, vocabulary, seats, fuse);
    const cols = (renderer.canvas.width - (seats - 1) * GAP) / seats / CELL - (2 * BORDER) / CELL;
    const rows = (renderer.canvas.height - HUD - CLOCK_HEIGHT - 2 * BORDER) / CELL;
    return new PengoBoard(renderer, (offPage) => new Renderer(offPage, vocabulary, seats, fuse), cols, rows, seats,
      settingsLook);
  },
  controls: () => new Controls(),
  sounds: play,
  rulesPage,
};
