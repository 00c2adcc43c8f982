/**
 * The connection information a match page shows, as pure functions (no DOM, no clock: the time is an
 * argument): a round trip as signal bars, a grace countdown between two `status` messages, the
 * forfeit rule in words, and the draw time per frame.
 */

/** Round trips (ms) below which a connection shows 4, 3 and 2 bars; anything measured above shows 1. */
export const BAR_LIMITS_MS = [60, 120, 250] as const;

/** Signal bars (0–4) for a round trip in milliseconds; 0 when there is no measure (null). */
export function signalBars(lagMs: number | null | undefined): number {
  if (lagMs === null || lagMs === undefined || !Number.isFinite(lagMs)) return 0;
  const below = BAR_LIMITS_MS.findIndex((limit) => lagMs < limit);
  return below < 0 ? 1 : 4 - below;
}

/** Bars drawn as text: filled then empty, e.g. "▂▄▆_" for 3 of 4. */
export function barsText(bars: number): string {
  const glyphs = ["▂", "▄", "▆", "█"];
  return glyphs.map((glyph, index) => (index < bars ? glyph : "_")).join("");
}

/** A round trip as the page says it: "48 ms", or "—" without a measure. */
export function lagText(lagMs: number | null | undefined): string {
  return lagMs === null || lagMs === undefined ? "—" : `${Math.round(lagMs)} ms`;
}

/**
 * The whole seconds left of a countdown told as `seconds` at `toldAtMs`, at `nowMs` (rounded up, never
 * below 0): the page counts down between two `status` messages.
 */
export function secondsLeft(seconds: number, toldAtMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil(seconds - (nowMs - toldAtMs) / 1000));
}

/** The forfeit rule, with the server's grace period (`welcome.reconnect_grace`). */
export function forfeitRule(graceSeconds: number): string {
  return `a player who does not come back within ${Math.round(graceSeconds)} s forfeits`;
}

/** Milliseconds per draw over a window: the busy time and the draws counted at its two ends. */
export function msPerDraw(busyMs: number, draws: number, busyBeforeMs: number, drawsBefore: number): number | null {
  const count = draws - drawsBefore;
  return count > 0 ? (busyMs - busyBeforeMs) / count : null;
}
