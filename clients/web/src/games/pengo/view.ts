/**
 * Pengo versus's view: its model, its board (the renderer plus the landings it flashes), its
 * controls, its sounds and its rules page, as the generic layer asks for them (games/view.ts).
 */

import type { MatchStream } from "../../net/stream";
import type { Joined } from "../../net/wire";
import type { Board, GameView, Scene } from "../view";
import { Controls } from "./input";
import { MatchModel } from "./model";
import type { Ending } from "./hud";
import { type Look, settingsLook } from "./look";
import { type DrawInput, Renderer } from "./render";
import { rulesPage } from "./rules";
import { play } from "./sound";
import { pengoVocabulary } from "./tables";

type Landings = DrawInput["landings"];
/** Landings remembered per seat (the renderer flashes those of the last half second). */
const LANDINGS_KEPT = 8;
/** Drawings between two readings of the look's settings (a change shows within half a second). */
const LOOK_EVERY = 30;

/** The renderer, and what it draws beyond the model: landings, deaths, the match's end, corrections. */
export class PengoBoard implements Board<MatchModel> {
  private landings: Landings = new Map();
  private deaths = new Map<number, number>();
  private ending: Ending | null = null;
  /** The stream's rewinds and resyncs so far, and whether new ones came since the last drawing. */
  private corrections = 0;
  private corrected = false;

  constructor(readonly renderer: Renderer, private readonly readLook: (() => Look) | null = null) {
    if (readLook !== null) renderer.setLook(readLook());
  }

  get frames(): number {
    return this.renderer.frames;
  }

  get busyMs(): number {
    return this.renderer.busyMs;
  }

  fit(width: number, height: number): void {
    this.renderer.fit(width, height);
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

  restarted(): void {
    this.landings = new Map();
    this.deaths = new Map();
    this.ending = null;
    this.renderer.restarted();
  }

  draw(scene: Scene<MatchModel>): void {
    if (this.readLook !== null && this.renderer.frames % LOOK_EVERY === 0) this.renderer.setLook(this.readLook());
    this.renderer.draw({
      ...scene, landings: this.landings, deaths: this.deaths, ending: this.ending, corrected: this.corrected,
    });
    this.corrected = false;
  }
}

export const pengoView: GameView<MatchModel> = {
  ruleset: "pengo-versus",
  controlsHelp: "Arrows or WASD move, space kicks (a gamepad works too).",
  models(joined: Joined) {
    const vocabulary = pengoVocabulary(joined.tables);
    return () => new MatchModel(vocabulary);
  },
  board(canvas: HTMLCanvasElement, joined: Joined) {
    const attack = (joined.config.rules as { attack?: { fuse_frames?: number } } | undefined)?.attack;
    const renderer = new Renderer(canvas, pengoVocabulary(joined.tables), joined.seats.length,
      attack?.fuse_frames ?? null);
    return new PengoBoard(renderer, settingsLook);
  },
  controls: () => new Controls(),
  sounds: play,
  rulesPage,
};
