/**
 * The boards' size and arrangement for the viewport, for any game whose board gives its panels'
 * sizes (games/view.ts `BoardPanels`).
 *
 * Four arrangements compete: every seat alike in a row (the game's own drawing; a desktop's), alike
 * in a column (a spectator or a replay on a phone held upright), and the viewer's own board large with
 * the others at half size above it (a phone held upright) or beside it. The one that draws the viewer's
 * board largest wins (with no seat of one's own: the smallest board largest); the row stays unless
 * another beats it by a clear margin, so a desktop keeps its familiar side-by-side boards.
 *
 * Scales of 2 and more snap to half steps (3 and more to whole ones), so that a desktop's pixels stay
 * even; below 2 (a phone, whose 2–3 device pixels per CSS pixel hide uneven ones) every scale is used,
 * and below 1 too: a board is never wider than its stage.
 */

import type { Board, BoardLayout, BoardPanels, PanelPlace } from "../games/view";

/** The space, in CSS pixels, the boards may fill. */
export interface Room {
  width: number;
  height: number;
}

/** Another seat's scale beside the viewer's own board. */
export const OTHER_SCALE = 0.5;
/** How much larger the viewer's board must be drawn for an arrangement to replace the row. */
export const BEATS_ROW = 1.2;

/** The CSS scale for `room` over a size in units (see the module's note on snapping). */
export function snapScale(room: number): number {
  if (room >= 3) return Math.floor(room);
  if (room >= 2) return Math.floor(room * 2) / 2;
  return Math.max(0.1, Math.floor(room * 100) / 100);
}

type Shape = Omit<BoardLayout, "scale" | "resolution">;

/** The seats in a line (along x or y) from `start`, at `scale`. */
function line(panels: BoardPanels, seats: number[], along: "x" | "y", scale: number, x: number, y: number): Map<number, PanelPlace> {
  const places = new Map<number, PanelPlace>();
  const step = (along === "x" ? panels.width : panels.height) * scale + panels.gap * scale;
  seats.forEach((seat, index) => {
    places.set(seat, along === "x" ? { x: x + index * step, y, scale } : { x, y: y + index * step, scale });
  });
  return places;
}

function extent(panels: BoardPanels, count: number, along: "x" | "y", scale: number): number {
  const size = along === "x" ? panels.width : panels.height;
  return count === 0 ? 0 : count * size * scale + (count - 1) * panels.gap * scale;
}

function ordered(places: Map<number, PanelPlace>, seats: number): PanelPlace[] {
  return Array.from({ length: seats }, (_, seat) => places.get(seat)!);
}

/** Every arrangement of `panels` for `own` (the viewer's seat, or null). */
export function shapes(panels: BoardPanels, own: number | null): Shape[] {
  const all = Array.from({ length: panels.seats }, (_, seat) => seat);
  const { width: w, height: h, gap, footerWidth: fw, footerHeight: fh } = panels;
  const rowWidth = extent(panels, panels.seats, "x", 1);
  const result: Shape[] = [{
    kind: "row", width: rowWidth, height: h + fh,
    places: ordered(line(panels, all, "x", 1, 0, 0), panels.seats),
    footer: { x: (rowWidth - fw) / 2, y: h, scale: 1 },
  }];
  if (panels.seats > 1) {
    const columnHeight = extent(panels, panels.seats, "y", 1);
    result.push({
      kind: "column", width: w, height: columnHeight + fh,
      places: ordered(line(panels, all, "y", 1, 0, 0), panels.seats),
      footer: { x: (w - fw) / 2, y: columnHeight, scale: 1 },
    });
  }
  if (own !== null && own >= 0 && own < panels.seats && panels.seats > 1) {
    const others = all.filter((seat) => seat !== own);
    // above: the others in a row, centred over the viewer's board
    const othersWide = extent(panels, others.length, "x", OTHER_SCALE);
    const aboveWidth = Math.max(w, othersWide);
    const othersHigh = h * OTHER_SCALE;
    const above = line(panels, others, "x", OTHER_SCALE, (aboveWidth - othersWide) / 2, 0);
    above.set(own, { x: (aboveWidth - w) / 2, y: othersHigh + gap, scale: 1 });
    result.push({
      kind: "focus-above", width: aboveWidth, height: othersHigh + gap + h + fh,
      places: ordered(above, panels.seats),
      footer: { x: (aboveWidth - fw) / 2, y: othersHigh + gap + h, scale: 1 },
    });
    // beside: the others in a column to the right of the viewer's board
    const othersTall = extent(panels, others.length, "y", OTHER_SCALE);
    const beside = line(panels, others, "y", OTHER_SCALE, w + gap, 0);
    beside.set(own, { x: 0, y: 0, scale: 1 });
    result.push({
      kind: "focus-beside", width: w + gap + w * OTHER_SCALE, height: Math.max(h, othersTall) + fh,
      places: ordered(beside, panels.seats),
      footer: { x: (w - fw) / 2, y: Math.max(h, othersTall), scale: 1 },
    });
  }
  return result;
}

/** The arrangement of `panels` that suits `room` best for the viewer's seat `own` (null: none). */
export function arrange(room: Room, panels: BoardPanels, own: number | null): BoardLayout {
  const scored = shapes(panels, own).map((shape) => {
    const scale = snapScale(Math.min(room.width / shape.width, room.height / shape.height));
    const mine = own === null ? Math.min(...shape.places.map((place) => place.scale)) : shape.places[own]!.scale;
    const smallest = Math.min(...shape.places.map((place) => place.scale), shape.footer.scale);
    return { layout: { ...shape, scale, resolution: 1 / smallest }, shown: scale * mine };
  });
  const row = scored[0]!;
  let best = row;
  for (const candidate of scored.slice(1)) {
    if (candidate.shown >= row.shown * BEATS_ROW && candidate.shown > best.shown) best = candidate;
  }
  return best.layout;
}

/** The room the stage leaves the board: its size less its other items' along its flex direction. */
export function roomIn(stage: HTMLElement, canvas: HTMLElement): Room {
  const style = getComputedStyle(stage);
  const across = style.flexDirection.startsWith("row");
  const gap = parseFloat(across ? style.columnGap : style.rowGap) || 0;
  let width = stage.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  let height = stage.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  const items: Element[] = [];
  for (const child of Array.from(stage.children)) {
    if (child === canvas) continue;
    // an item shown as `display: contents` lays out its children in its place
    if (getComputedStyle(child).display === "contents") items.push(...Array.from(child.children));
    else items.push(child);
  }
  for (const item of items) {
    const box = item.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (across) width -= box.width + gap;
    else height -= box.height + gap;
  }
  return { width: Math.max(1, width), height: Math.max(1, height) };
}

/** Size `board` for its stage now and whenever the stage's size changes; the returned call stops it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any game's board
export function fitToStage(board: Board<any>, canvas: HTMLCanvasElement, own: number | null): () => void {
  const stage = canvas.parentElement;
  if (stage === null) return () => undefined;
  const fit = (): void => {
    const room = roomIn(stage, canvas);
    if (board.panels !== undefined && board.layout !== undefined) board.layout(arrange(room, board.panels, own));
    else board.fit(room.width, room.height);
  };
  fit();
  const observer = new ResizeObserver(fit);
  observer.observe(stage);
  window.addEventListener("orientationchange", fit);
  return () => {
    observer.disconnect();
    window.removeEventListener("orientationchange", fit);
  };
}
