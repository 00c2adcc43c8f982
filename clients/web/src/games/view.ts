/**
 * What a game (a ruleset's view) gives the generic layer: its model of the stream, its board drawn on
 * a canvas, its input device, its sounds, its rules page. The app picks the view by the ruleset that
 * `joined` names (games/registry.ts); net/ and app/ know no game. A second game (Payload) implements
 * `GameView` in games/payload/ and adds one line to the registry.
 */

import type { MatchStream, StreamModel } from "../net/stream";
import type { GameEvent } from "../net/vocabulary";
import type { Joined } from "../net/wire";

/** One drawing of the match: the display time lies between `before` (a frame's start) and `after`. */
export interface Scene<M> {
  before: M;
  after: M;
  /** 0 … 1 between `before` and `after`. */
  alpha: number;
  frame: number;
  /** Frames left on the match clock. */
  timeLeft: number;
  names: string[];
  /** The seat this viewer plays (its board is marked), or null. */
  seat: number | null;
}

/** Where one panel goes in a board layout: its top left corner in units and its scale (1: the game's size). */
export interface PanelPlace {
  x: number;
  y: number;
  scale: number;
}

/** The sizes a board's panels have at scale 1, in units (the game's canvas pixels): app/layout.ts arranges them. */
export interface BoardPanels {
  /** One seat's panel (its heads-up strip and its field). */
  width: number;
  height: number;
  seats: number;
  /** The space between panels. */
  gap: number;
  /** The strip shared by all seats (the match clock), drawn under the viewer's own board. */
  footerWidth: number;
  footerHeight: number;
}

/** The boards arranged for a viewport (app/layout.ts): each seat's place, the footer's, the CSS scale. */
export interface BoardLayout {
  /** "row": the game's own drawing (every seat alike, side by side); the others rearrange its panels. */
  kind: "row" | "column" | "focus-above" | "focus-beside";
  /** The arrangement's size in units. */
  width: number;
  height: number;
  /** By seat. */
  places: PanelPlace[];
  footer: PanelPlace;
  /** CSS pixels per unit. */
  scale: number;
  /** Canvas pixels per unit (so that the smallest panel is still drawn pixel for pixel). */
  resolution: number;
}

/** A game's drawing of a match on one canvas. */
export interface Board<M extends StreamModel<M>> {
  /** Frames drawn so far, and the milliseconds spent drawing them (bench/browser_fps.py). */
  readonly frames: number;
  readonly busyMs: number;
  /** Scale to the largest size that fits a box of `width` × `height` CSS pixels. */
  fit(width: number, height: number): void;
  /** Its panels' sizes, for app/layout.ts to arrange (a board without them is only `fit`). */
  readonly panels?: BoardPanels;
  /** Draw in this arrangement (app/layout.ts made it from `panels` and the viewport). */
  layout?(layout: BoardLayout): void;
  /** A frame record was applied: the stream's model after it (effects that outlast a frame). */
  applied(stream: MatchStream<M>, frame: number): void;
  /** Where the last drawing put seat `seat`'s avatar, as text (a key press's latency is measured to the
   * first drawing that changed it: app/match.ts), or null when none was drawn. */
  avatar?(seat: number): string | null;
  /** Where seat `seat`'s avatar is in a model's state, as `avatar` says it (a drawing without easing
   * puts it there), or null when it has none: the authority's side of the frame-by-frame check. */
  avatarIn?(model: M, seat: number): string | null;
  /** The predicted board was corrected by the authority (net/predict.ts): ease what moved. */
  correct?(): void;
  /** The stream starts again from a keyframe (a replay's seek): effects in flight are forgotten. */
  restarted(): void;
  draw(scene: Scene<M>): void;
}

/** A player's controls as the seat's input byte for each frame. */
export interface InputDevice {
  /** The bits of the byte that hold from frame to frame (the others are one press: sent on one frame). */
  readonly heldMask: number;
  /** `surface`: the board's stage, where on-screen (touch) controls go on a touch screen. */
  attach(surface?: HTMLElement): void;
  detach(): void;
  /** The byte for the next frame to stamp. */
  byte(): number;
  /** `byte` was stamped on a frame and sent (a one-press action is spent). */
  sent(byte: number): void;
}

export interface GameView<M extends StreamModel<M>> {
  /** The ruleset's name as `joined.ruleset` carries it. */
  readonly ruleset: string;
  /** The controls, in a line under the board: the player's own keys (read when called, so a rebinding
   * shows). */
  controlsHelp(): string;
  /** A maker of empty models for this match's stream. */
  models(joined: Joined): () => M;
  board(canvas: HTMLCanvasElement, joined: Joined): Board<M>;
  controls(): InputDevice;
  /** Play the sounds of a frame's events for `seat` (only called when the sound setting is on). */
  sounds(events: GameEvent[], seat: number | null): void;
  /** The rules page's content. */
  rulesPage(): Promise<Node[]>;
  /** False: the page never predicts this game's frames in the browser engine (a turn-based game's move
   * shows when its frame comes back; absent: predicted when the player's setting asks). */
  readonly predicts?: boolean;
  /** False: the results show no statistics table (app/stats.ts counts Pengo's events). */
  readonly statistics?: boolean;
  /** The replay timeline's marker kinds this game's events make (app/markers.ts), with the legend's words
   * (absent: Pengo's four). */
  readonly markerLegend?: readonly (readonly [string, string])[];
}
