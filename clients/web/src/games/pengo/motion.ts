/**
 * Where a moving sprite is drawn. It is drawn at its true position (the stream's record, interpolated
 * between the two frames around the display time), so at any replay speed it is where the model says.
 * Only a correction is eased: when the stream rewound or resynced since the last drawing and that moved
 * a sprite by more than one frame's step, the sprite starts from where it was drawn and glides onto its
 * true position (the gap shrinks by `DECAY` each drawing). A jump too far to be a correction (a
 * respawn, a new board) and a seek snap.
 */

/** A sprite's last drawing: the drawn position and how far it is from the true one (the correction left). */
export interface SpritePlace {
  x: number;
  y: number;
  offX: number;
  offY: number;
}

/** A correction further than this (pixels, either axis) snaps: a respawn or a new board, not a rewind. */
export const EASE_LIMIT = 24;
/** The part of a correction left after each drawing. */
export const DECAY = 0.6;
/** A correction smaller than this (pixels) is done. */
const SETTLED = 0.5;

/**
 * The drawing of a sprite whose true position is (`x`, `y`), given its last drawing (undefined: a new
 * sprite); `corrected` when the stream rewound or resynced since then; `step` the most a sprite moves
 * in one frame (pixels per axis).
 */
export function place(last: SpritePlace | undefined, x: number, y: number, corrected: boolean, step: number): SpritePlace {
  let offX = 0;
  let offY = 0;
  if (last !== undefined) {
    if (corrected) {
      const jumpX = last.x - x;
      const jumpY = last.y - y;
      const jump = Math.max(Math.abs(jumpX), Math.abs(jumpY));
      if (jump > step && jump <= EASE_LIMIT) {
        offX = jumpX;
        offY = jumpY;
      }
    } else {
      offX = last.offX * DECAY;
      offY = last.offY * DECAY;
    }
    if (Math.abs(offX) < SETTLED && Math.abs(offY) < SETTLED) {
      offX = 0;
      offY = 0;
    }
  }
  return { x: x + offX, y: y + offY, offX, offY };
}

/** A record's true pixel position between its two frames (`alpha` 0 … 1); a jump of more than
 * `step` × 2 (a respawn, a new board) is not interpolated: the later position. */
export function between(before: number[], after: number[], alpha: number, step: number): [number, number] {
  const dx = after[1]! - before[1]!;
  const dy = after[2]! - before[2]!;
  if (Math.abs(dx) <= 2 * step && Math.abs(dy) <= 2 * step) return [before[1]! + dx * alpha, before[2]! + dy * alpha];
  return [after[1]!, after[2]!];
}
