/**
 * Pengo versus's view: its model, its board (the renderer plus the landings it flashes), its
 * controls, its sounds and its rules page, as the generic layer asks for them (games/view.ts).
 */

import type { MatchStream } from "../../net/stream";
import type { Joined } from "../../net/wire";
import type { Board, GameView, Scene } from "../view";
import { Controls } from "./input";
import { MatchModel } from "./model";
import { type DrawInput, Renderer } from "./render";
import { rulesPage } from "./rules";
import { play } from "./sound";
import { pengoVocabulary } from "./tables";

type Landings = DrawInput["landings"];
/** Landings remembered per seat (the renderer flashes those of the last half second). */
const LANDINGS_KEPT = 8;

/** The renderer, and the landings of the frames applied (drawn as flashing cells). */
export class PengoBoard implements Board<MatchModel> {
  private landings: Landings = new Map();

  constructor(private readonly renderer: Renderer) {}

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
    for (const event of stream.model.lastEvents) {
      if (event.kind !== "landing" || typeof event.seat !== "number") continue;
      const cells = [...((event.blocks as [number, number][]) ?? []), ...((event.gems as [number, number][]) ?? [])];
      const list = this.landings.get(event.seat) ?? [];
      list.push({ frame, cells });
      while (list.length > LANDINGS_KEPT) list.shift();
      this.landings.set(event.seat, list);
    }
  }

  restarted(): void {
    this.landings = new Map();
  }

  draw(scene: Scene<MatchModel>): void {
    this.renderer.draw({ ...scene, landings: this.landings });
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
    return new PengoBoard(new Renderer(canvas, pengoVocabulary(joined.tables), joined.seats.length));
  },
  controls: () => new Controls(),
  sounds: play,
  rulesPage,
};
