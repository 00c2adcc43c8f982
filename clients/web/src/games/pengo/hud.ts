/**
 * What a board's heads-up shows, as pure functions of the model: the one label over a board (never two
 * at once: OUT while the match goes on, the result once it is over) and the telegraph (each pending
 * attack's units and the seconds until it lands).
 */

/** Frames per second of the stream (protocol/README.md: frames are 1/60 s). */
export const FRAMES_PER_SECOND = 60;

/** A match's end as the stream's `match-end` event says it: its frame and each seat's outcome word. */
export interface Ending {
  frame: number;
  outcomes: string[];
}

const STATUS_LABELS: Readonly<Record<string, string>> = {
  ready: "READY!",
  clear: "ROUND CLEAR",
  bonus: "BONUS",
  complete: "COMPLETE",
  // A board out of lives while the others play on: the seat is out of the match.
  lost: "OUT",
};

const OUTCOME_LABELS: Readonly<Record<string, string>> = {
  won: "WINNER",
  drawn: "DRAW",
  forfeited: "FORFEIT",
  lost: "GAME OVER",
};

/**
 * The one label drawn over a board ("" for none): once the match is over (`ending` at or before
 * `frame`), the seat's result; before, FORFEIT or OUT for a seat that left the match (`out` 2 or 1),
 * else its status's (READY!, ROUND CLEAR, BONUS, COMPLETE).
 */
export function boardLabel(seat: number, status: string, out: number, ending: Ending | null, frame: number): string {
  if (ending !== null && frame >= ending.frame) {
    const outcome = ending.outcomes[seat];
    if (outcome !== undefined) return OUTCOME_LABELS[outcome] ?? outcome.toUpperCase();
  }
  if (out === 2) return "FORFEIT";
  if (out === 1) return "OUT";
  return STATUS_LABELS[status] ?? "";
}

/** One pending attack as the telegraph shows it. */
export interface Fuse {
  units: number;
  /** Frames until it lands (0 when due). */
  frames: number;
  /** The seconds until it lands, one decimal ("1.5"). */
  seconds: string;
  /** The part of its fuse left, 0 … 1. */
  left: number;
  /** Less than a second to go. */
  urgent: boolean;
}

/**
 * The telegraph of a seat's `pending` summary (`[packet, source, units, lands_at]` each) at `frame`,
 * soonest first, for fuses `fuseFrames` long.
 */
export function telegraph(pending: readonly (readonly number[])[], frame: number, fuseFrames: number): Fuse[] {
  return pending
    .map((packet) => {
      const frames = Math.max(0, packet[3]! - frame);
      return {
        units: packet[2]!,
        frames,
        seconds: (frames / FRAMES_PER_SECOND).toFixed(1),
        left: Math.min(1, frames / Math.max(1, fuseFrames)),
        urgent: frames < FRAMES_PER_SECOND,
      };
    })
    .sort((a, b) => a.frames - b.frames);
}

/** How far a dying Pengo is through his death: 0 when it starts … 1 when it ends. */
export function deathProgress(frame: number, start: number, end: number): number {
  if (end <= start) return 1;
  return Math.min(1, Math.max(0, (frame - start) / (end - start)));
}
