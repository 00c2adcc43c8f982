/**
 * The replay viewer's controls as pure decisions: its speeds, the next speed up or down, and what a
 * key does (space, arrows, +/-, Home/End, the marker jumps), so the keyboard and the buttons agree.
 */

/** The speeds a replay plays at, slowest first. */
export const SPEEDS: readonly number[] = [0.25, 0.5, 1, 2, 4, 8, 16];

/** A speed as the viewer shows it ("×0.25", "×16"). */
export function speedLabel(speed: number): string {
  return `×${speed}`;
}

/** The next speed up (`step` 1) or down (−1), held at the ends; an unknown speed goes to ×1's neighbour. */
export function nextSpeed(speed: number, step: 1 | -1): number {
  const at = SPEEDS.indexOf(speed);
  const from = at < 0 ? SPEEDS.indexOf(1) : at;
  return SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, from + step))]!;
}

export type ReplayAction =
  | "play-pause"
  | "step-back"
  | "step-forward"
  | "faster"
  | "slower"
  | "start"
  | "end"
  | "previous-marker"
  | "next-marker";

/** What a key (`KeyboardEvent.key`) does in the replay viewer, or null for a key it leaves alone. */
export function keyAction(key: string): ReplayAction | null {
  switch (key) {
    case " ":
    case "k":
      return "play-pause";
    case "ArrowLeft":
      return "step-back";
    case "ArrowRight":
      return "step-forward";
    case "ArrowUp":
    case "+":
    case "=":
      return "faster";
    case "ArrowDown":
    case "-":
    case "_":
      return "slower";
    case "Home":
      return "start";
    case "End":
      return "end";
    case "[":
    case "PageUp":
      return "previous-marker";
    case "]":
    case "PageDown":
      return "next-marker";
    default:
      return null;
  }
}

/** The frame `frames` frames from the one the model is at while the display is at `position` (the
 * player's model is at its whole frame), within the replay: a step lands on a whole frame. */
export function steppedFrame(position: number, frames: number, finalFrame: number): number {
  return Math.max(0, Math.min(finalFrame, Math.floor(position) + frames));
}

/** A frame count as the match clock shows it ("1:05"), at `frameRate` frames a second. */
export function clockText(frames: number, frameRate = 60): string {
  const seconds = Math.max(0, Math.floor(frames / frameRate));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
