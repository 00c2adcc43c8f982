/**
 * Pengo's touch controls: a swipe on the board or the on-screen pad holds a direction for as long as the
 * finger stays down, the KICK button (or a tap on the board) kicks. They feed the same `Controls` as the
 * keys (input.ts), so a touch makes the same input byte a key does.
 *
 * The pad is a small joystick: the direction is the pad's arrow nearest the finger (by the dominant
 * axis from its centre), so a thumb slides from one direction to the next without lifting. On the board
 * a move of `SWIPE_PIXELS` sets the direction and the finger's point becomes the new start, so a swipe
 * the other way turns Pengo round. While attached, the page neither scrolls nor zooms under a touch
 * (CSS `touch-action: none` on the stage and the pad; pinches and double taps on the rest are refused).
 */

import type { DIRECTION_BITS } from "../../generated/protocol";

type Direction = keyof typeof DIRECTION_BITS;

/** CSS pixels a finger moves on the board before it counts as a swipe. */
export const SWIPE_PIXELS = 18;
/** The pad's dead centre, as a fraction of its half width: a finger there holds no direction. */
export const PAD_DEAD_ZONE = 0.2;
/** A touch on the board shorter than this that never swiped is a tap (a kick). */
export const TAP_MILLISECONDS = 250;

/** What the touch controls drive (input.ts `Controls`). */
export interface TouchSink {
  touchDirection(direction: Direction | null): void;
  kick(): void;
}

/** The direction of a finger at (dx, dy) from a centre, or null within `dead` of it. */
export function directionOf(dx: number, dy: number, dead: number): Direction | null {
  if (Math.max(Math.abs(dx), Math.abs(dy)) < dead) return null;
  if (Math.abs(dx) > Math.abs(dy)) return dx < 0 ? "left" : "right";
  return dy < 0 ? "up" : "down";
}

/** Whether this browser has a touch screen (the controls are shown only there). */
export function touchScreen(): boolean {
  return navigator.maxTouchPoints > 0 || (typeof matchMedia === "function" && matchMedia("(pointer: coarse)").matches);
}

/** Keep a finger's moves coming to `element` when it slides off it (not every pointer can be captured). */
function capture(element: HTMLElement, pointer: number): void {
  try {
    element.setPointerCapture(pointer);
  } catch {
    // a pointer already gone: its up event follows
  }
}

const ARROWS: [Direction, string][] = [["up", "▲"], ["left", "◀"], ["right", "▶"], ["down", "▼"]];

export class TouchControls {
  private readonly pad: HTMLElement;
  private padPointer: number | null = null;
  private swipe: { pointer: number; x: number; y: number; at: number; swiped: boolean } | null = null;
  private readonly board: HTMLElement | null;
  private readonly listeners: [EventTarget, string, (event: Event) => void, AddEventListenerOptions?][] = [];

  constructor(private readonly surface: HTMLElement, private readonly sink: TouchSink) {
    this.board = surface.querySelector("canvas");
    const dpad = document.createElement("div");
    dpad.id = "touch-dpad";
    dpad.className = "dpad";
    dpad.setAttribute("role", "group");
    dpad.setAttribute("aria-label", "direction pad: hold a direction to walk");
    for (const [direction, arrow] of ARROWS) {
      const cell = document.createElement("span");
      cell.className = `dpad-${direction}`;
      cell.dataset.direction = direction;
      cell.textContent = arrow;
      dpad.append(cell);
    }
    const kick = document.createElement("button");
    kick.id = "touch-kick";
    kick.type = "button";
    kick.className = "kick";
    kick.textContent = "KICK";
    const pad = document.createElement("div");
    pad.id = "touchpad";
    pad.className = "touchpad";
    pad.append(dpad, kick);
    this.pad = pad;
    this.on(dpad, "pointerdown", (event) => this.padDown(event as PointerEvent, dpad));
    this.on(dpad, "pointermove", (event) => this.padMove(event as PointerEvent, dpad));
    for (const end of ["pointerup", "pointercancel", "lostpointercapture"]) {
      this.on(dpad, end, (event) => this.padUp(event as PointerEvent));
    }
    this.on(kick, "pointerdown", (event) => {
      event.preventDefault();
      this.sink.kick();
    });
    if (this.board !== null) {
      const board = this.board;
      this.on(board, "pointerdown", (event) => this.swipeDown(event as PointerEvent, board));
      this.on(board, "pointermove", (event) => this.swipeMove(event as PointerEvent));
      for (const end of ["pointerup", "pointercancel"]) this.on(board, end, (event) => this.swipeUp(event as PointerEvent));
    }
    // no long-press menu, no pinch or double-tap zoom, no pull-to-refresh while playing
    this.on(pad, "contextmenu", (event) => event.preventDefault());
    this.on(document, "touchmove", (event) => {
      const touch = event as TouchEvent;
      if (touch.touches.length > 1 || this.surface.contains(touch.target as Node)) touch.preventDefault();
    }, { passive: false });
    this.on(document, "gesturestart", (event) => event.preventDefault(), { passive: false });
  }

  private on(target: EventTarget, type: string, listener: (event: Event) => void, options?: AddEventListenerOptions): void {
    this.listeners.push([target, type, listener, options]);
  }

  attach(): void {
    this.surface.append(this.pad);
    document.documentElement.classList.add("touch-play");
    for (const [target, type, listener, options] of this.listeners) target.addEventListener(type, listener, options);
  }

  detach(): void {
    for (const [target, type, listener, options] of this.listeners) target.removeEventListener(type, listener, options);
    this.pad.remove();
    document.documentElement.classList.remove("touch-play");
    this.sink.touchDirection(null);
  }

  private padDirection(event: PointerEvent, dpad: HTMLElement): Direction | null {
    const box = dpad.getBoundingClientRect();
    const half = Math.min(box.width, box.height) / 2;
    return directionOf(event.clientX - (box.left + box.width / 2), event.clientY - (box.top + box.height / 2),
      half * PAD_DEAD_ZONE);
  }

  private padDown(event: PointerEvent, dpad: HTMLElement): void {
    event.preventDefault();
    this.padPointer = event.pointerId;
    capture(dpad, event.pointerId);
    this.show(this.padDirection(event, dpad));
  }

  private padMove(event: PointerEvent, dpad: HTMLElement): void {
    if (event.pointerId !== this.padPointer) return;
    this.show(this.padDirection(event, dpad));
  }

  private padUp(event: PointerEvent): void {
    if (event.pointerId !== this.padPointer) return;
    this.padPointer = null;
    this.show(null);
  }

  /** Hold `direction` and light its arrow. */
  private show(direction: Direction | null): void {
    this.sink.touchDirection(direction);
    for (const cell of Array.from(this.pad.querySelectorAll<HTMLElement>("[data-direction]"))) {
      cell.classList.toggle("held", cell.dataset.direction === direction);
    }
  }

  private swipeDown(event: PointerEvent, board: HTMLElement): void {
    if (event.pointerType === "mouse") return;
    event.preventDefault();
    capture(board, event.pointerId);
    this.swipe = { pointer: event.pointerId, x: event.clientX, y: event.clientY, at: performance.now(), swiped: false };
  }

  private swipeMove(event: PointerEvent): void {
    const swipe = this.swipe;
    if (swipe === null || event.pointerId !== swipe.pointer) return;
    const direction = directionOf(event.clientX - swipe.x, event.clientY - swipe.y, SWIPE_PIXELS);
    if (direction === null) return;
    swipe.x = event.clientX;
    swipe.y = event.clientY;
    swipe.swiped = true;
    this.show(direction);
  }

  private swipeUp(event: PointerEvent): void {
    const swipe = this.swipe;
    if (swipe === null || event.pointerId !== swipe.pointer) return;
    this.swipe = null;
    if (swipe.swiped) this.show(null);
    else if (event.type === "pointerup" && performance.now() - swipe.at < TAP_MILLISECONDS) this.sink.kick();
  }
}
