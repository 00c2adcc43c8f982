/**
 * The player's controls as the seat's input byte (rules/versus/inputs.py): bits 0–2 the held
 * direction (0 none, 1 up, 2 down, 3 left, 4 right), bit 3 the kick, which is an edge: one press
 * kicks once. The keys are the player's bindings (app/settings.ts `bindings`, physical keys: arrows or
 * WASD and space by default), read when a match attaches them; a bound key's browser default (scrolling,
 * quick find) is prevented while playing. A gamepad's stick or d-pad and its first button if present;
 * on a touch screen, a swipe or the on-screen pad and the KICK button (touch.ts).
 */

import { type Action, actionOf, type Bindings, browserSettings, DEFAULT_BINDINGS, keyLabel } from "../../app/settings";
import { DIRECTION_BITS, KICK_BIT } from "../../generated/protocol";
import { TouchControls, touchScreen } from "./touch";
type Direction = keyof typeof DIRECTION_BITS;
/** How far a stick must lean to count as a direction. */
const STICK_DEAD_ZONE = 0.5;

/** The byte's bits that hold from frame to frame: all but the kick, which is an edge (rules/versus/inputs.py
 * `held`). */
const HELD_MASK = 0xff & ~KICK_BIT;

/** An action's keys as a player reads them ("← or A"; "no key" when it has none). */
function keysOf(bindings: Bindings, action: Action): string {
  const keys = bindings[action].map(keyLabel);
  return keys.length === 0 ? "no key" : keys.join(" or ");
}

/** The keys of the bindings in a sentence: "↑ or W up, ↓ or S down, ← or A left, → or D right;
 * Space kicks" (the player's own keys: the help line and the rules page follow a rebinding). */
export function keysText(bindings: Bindings): string {
  const walks = (["up", "down", "left", "right"] as const).map((action) => `${keysOf(bindings, action)} ${action}`);
  return `${walks.join(", ")}; ${keysOf(bindings, "kick")} kicks`;
}

/** The controls help line: the player's keys, then the other devices. */
export function controlsHelp(bindings: Bindings = browserSettings().get("bindings")): string {
  return `Keys: ${keysText(bindings)} (a gamepad works too; on a touch screen: swipe or the pad, and KICK).`;
}

export class Controls {
  readonly heldMask = HELD_MASK;
  /** Directions held, the newest last (the newest wins). */
  private held: Direction[] = [];
  private kickPressed = false;
  private padKickDown = false;
  /** The default keys until `attach` reads the player's (no storage is touched before then). */
  private bindings: Bindings = DEFAULT_BINDINGS;
  /** The direction a touch holds, and one touched that no byte has carried yet (a tap walks a step). */
  private touchHeld: Direction | null = null;
  private touchPending: Direction | null = null;
  private touch: TouchControls | null = null;
  private readonly onDown = (event: KeyboardEvent): void => {
    const action = actionOf(this.bindings, event.code);
    if (action === undefined) return;
    event.preventDefault();
    if (action === "kick") {
      if (!event.repeat) this.kickPressed = true;
    } else if (!this.held.includes(action)) this.held.push(action);
  };
  private readonly onUp = (event: KeyboardEvent): void => {
    const action = actionOf(this.bindings, event.code);
    if (action === undefined) return;
    event.preventDefault();
    if (action !== "kick") this.held = this.held.filter((held) => held !== action);
  };
  private readonly onBlur = (): void => {
    this.held = [];
  };

  /** `surface`: the board's stage; on a touch screen the touch controls go in it. The key bindings are
   * read now (a change in the settings applies from the next match). */
  attach(surface?: HTMLElement): void {
    this.bindings = browserSettings().get("bindings");
    if (surface !== undefined && touchScreen()) {
      this.touch = new TouchControls(surface, this);
      this.touch.attach();
    }
    window.addEventListener("keydown", this.onDown);
    window.addEventListener("keyup", this.onUp);
    window.addEventListener("blur", this.onBlur);
  }

  detach(): void {
    this.touch?.detach();
    this.touch = null;
    window.removeEventListener("keydown", this.onDown);
    window.removeEventListener("keyup", this.onUp);
    window.removeEventListener("blur", this.onBlur);
  }

  /** A touch holds `direction` (null: the finger is lifted). */
  touchDirection(direction: Direction | null): void {
    this.touchHeld = direction;
    if (direction !== null) this.touchPending = direction;
  }

  /** A kick pressed on screen (as space). */
  kick(): void {
    this.kickPressed = true;
  }

  private gamepad(): { direction: Direction | null; kick: boolean } {
    const pads = typeof navigator.getGamepads === "function" ? navigator.getGamepads() : [];
    for (const pad of pads) {
      if (!pad) continue;
      const [x = 0, y = 0] = pad.axes;
      const pressed = (index: number): boolean => pad.buttons[index]?.pressed === true;
      let direction: Direction | null = null;
      if (pressed(12) || y < -STICK_DEAD_ZONE) direction = "up";
      else if (pressed(13) || y > STICK_DEAD_ZONE) direction = "down";
      else if (pressed(14) || x < -STICK_DEAD_ZONE) direction = "left";
      else if (pressed(15) || x > STICK_DEAD_ZONE) direction = "right";
      return { direction, kick: pressed(0) };
    }
    return { direction: null, kick: false };
  }

  /** The byte for the next frame (a kick stays pending until a byte with it is `sent`). */
  byte(): number {
    const pad = this.gamepad();
    if (pad.kick && !this.padKickDown) this.kickPressed = true;
    this.padKickDown = pad.kick;
    const direction = this.held[this.held.length - 1] ?? this.touchHeld ?? this.touchPending ?? pad.direction;
    let value = direction === null ? 0 : DIRECTION_BITS[direction];
    if (this.kickPressed) value |= KICK_BIT;
    return value;
  }

  /** A byte was stamped and sent: a kick in it spends the press. */
  sent(byte: number): void {
    if (byte & KICK_BIT) this.kickPressed = false;
    if (this.touchPending !== null && (byte & ~KICK_BIT) === DIRECTION_BITS[this.touchPending]) this.touchPending = null;
  }
}
