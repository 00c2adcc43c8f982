/** The board's drawing geometry, in canvas pixels (the arcade's: 16-pixel cells). */

export const CELL = 16;
/** The heads-up strip above each board (name, score, lives, act, the telegraph). */
export const HUD = 34;
/** Between two boards. */
export const GAP = 12;
/** The board's frame. */
export const BORDER = 4;
