/**
 * Pengo versus's rules page: "How to play" first (the controls, the telegraph, and what garbage ice,
 * nuisance eggs and counter gems look like, pictured on small canvases by the board's own sprite code
 * in the player's look), then the numbers: the server's rule compendium (`GET /api/rules`) section by
 * section, worded for players (no source file names or Z80 addresses: wording.ts).
 */

import { api } from "../../app/api";
import { el } from "../../app/dom";
import { browserSettings } from "../../app/settings";
import { CELL } from "./geometry";
import { FRAMES_PER_SECOND, telegraph } from "./hud";
import { keysText } from "./input";
import { settingsLook } from "./look";
import { PLAIN_BLOCK, Sprites } from "./sprites";
import { playerText } from "./wording";

/** How many times larger than the board's pixels the pictures are shown. */
const PICTURE_SCALE = 3;

type Book = Awaited<ReturnType<typeof api.rules>>;

/** A picture `cols` × `rows` cells (or `width` × `height` pixels) drawn by the sprites on a floor. */
function picture(label: string, width: number, height: number, paint: (sprites: Sprites) => void): HTMLCanvasElement {
  const canvas = el("canvas", { class: "rules-picture", role: "img", "aria-label": label }) as HTMLCanvasElement;
  canvas.width = width;
  canvas.height = height;
  canvas.style.width = `${width * PICTURE_SCALE}px`;
  canvas.style.height = `${height * PICTURE_SCALE}px`;
  canvas.style.imageRendering = "pixelated";
  const ctx = canvas.getContext("2d");
  if (ctx === null) return canvas;
  const look = settingsLook();
  ctx.imageSmoothingEnabled = false;
  ctx.fillStyle = look.colours.floor;
  ctx.fillRect(0, 0, width, height);
  paint(new Sprites(ctx, look));
  return canvas;
}

function cells(label: string, cols: number, rows: number, paint: (sprites: Sprites) => void): HTMLCanvasElement {
  return picture(label, cols * CELL, rows * CELL, paint);
}

/** A figure: a picture and what it shows. */
function figure(canvas: HTMLCanvasElement, ...caption: (string | Node)[]): HTMLElement {
  return el("figure", { class: "rules-figure" }, canvas, el("figcaption", {}, ...caption));
}

/** A number of the compendium by its row name ("?" when the server has no such row). */
function number(book: Book, name: string): string {
  for (const section of book.sections) {
    for (const [row, value] of section.rows) if (row === name) return value;
  }
  return "?";
}

/** Frames as seconds, from a compendium value such as "150 (2.5 s)". */
function seconds(value: string): string {
  const frames = Number.parseInt(value, 10);
  return Number.isFinite(frames) ? `${frames / FRAMES_PER_SECOND} s` : value;
}

function howToPlay(book: Book): HTMLElement {
  const garbageMax = number(book, "garbage_max");
  const nuisanceMax = number(book, "nuisance_max");
  const fuse = seconds(number(book, "fuse_frames"));
  const gemCount = number(book, "gem_count");
  const gemStep = seconds(number(book, "gem_step_frames"));
  const fuses = telegraph([[0, 1, 3, 130], [1, 1, 5, 40]], 0, Number.parseInt(number(book, "fuse_frames"), 10) || 130);
  return el("section", { id: "how-to-play" },
    el("h2", {}, "How to play"),
    el("p", {}, "Each player has a Pengo board of ice. Clear your board of Sno-Bees faster than your opponent, and ",
      "every good move you make sends an attack to their board. The best score when the time runs out wins, or ",
      "the last player with lives left."),
    el("h3", {}, "Controls"),
    el("p", { id: "how-controls" }, `Your keys (change them in the settings): ${keysText(browserSettings().get("bindings"))}. `,
      "A gamepad works too: the stick or the pad walks, the first button kicks. On a touch screen, swipe or use the pad, ",
      "and KICK."),
    el("div", { class: "rules-figures" },
      figure(cells("Pengo facing a Sno-Bee", 3, 1, (s) => {
        s.pengo("right", "walk", 0, 0, 0);
        s.snoBee("moving", "left", 2 * CELL, 0, 0);
      }), "You are Pengo. A Sno-Bee's touch costs a life."),
      figure(cells("Pengo kicking an ice block", 3, 1, (s) => {
        s.pengo("right", "push", 0, 0, 0);
        s.block("ice", 0, false, CELL, 0, 0, PLAIN_BLOCK);
        s.block("ice", 0, false, 2 * CELL, 0, 0, PLAIN_BLOCK);
      }), "Kick ice: it slides until it hits something and crushes the Sno-Bees in its way. A blocked block breaks."),
      figure(cells("Three diamond blocks in a line", 3, 1, (s) => {
        for (let x = 0; x < 3; x += 1) s.block("diamond", 0, false, x * CELL, 0, 0, PLAIN_BLOCK);
      }), "Push the three diamonds into a line: the biggest attack."),
      figure(cells("Pengo dying, flattened", 1, 1, (s) => s.dyingPengo(0, 0, 0.9, 0)),
        "Caught: Pengo spins and falls flat. Out of lives, your board is OUT."),
    ),
    el("h3", {}, "Attacks and the telegraph"),
    el("p", {}, "Crushing Sno-Bees, breaking eggs, diamond lines and round clears send units to your opponent. ",
      `An attack lands ${fuse} after it is sent. Attack back before then and your units cancel it.`),
    el("div", { class: "rules-figures" },
      figure(picture("The telegraph: 3 units landing in 2.2 s, 5 units in 0.7 s", 62, 20, (s) => {
        fuses.forEach((one, slot) => s.fuse(2 + slot * 31, 2, one, 0));
      }), "The telegraph, above each board: every attack coming, its units (large), the seconds until it lands and ",
      "its fuse, red in its last second."),
    ),
    el("h3", {}, "What lands on your board"),
    el("div", { class: "rules-figures" },
      figure(cells("Garbage ice just landed around Pengo", 3, 3, (s) => {
        s.pengo("down", "walk", CELL, CELL, 0);
        const landed = { ...PLAIN_BLOCK, fresh: true, flashOn: true };
        for (const [x, y] of [[0, 0], [2, 1], [1, 2]] as const) s.block("ice", 0, false, x * CELL, y * CELL, 0, landed);
      }), `Garbage ice: an attack of up to ${garbageMax} units lands as that many ice blocks near you, flashing as they land.`),
      figure(cells("A nuisance egg in a landed ice block", 2, 1, (s) => {
        s.block("ice", 0, false, 0, 0, 0, { ...PLAIN_BLOCK, fresh: true, flashOn: true, nuisance: true });
        s.snoBee("hatching", "down", CELL, 0, 12);
      }), `Nuisance eggs: up to ${nuisanceMax} units, the garbage brings eggs (marked "!") that hatch at once into more Sno-Bees.`),
      figure(cells("Counter gems showing 5 and 2", 2, 1, (s) => {
        s.block("counter-gem", 0, false, 0, 0, 0, { ...PLAIN_BLOCK, count: Number.parseInt(gemCount, 10) || undefined });
        s.block("counter-gem", 0, false, CELL, 0, 0, { ...PLAIN_BLOCK, count: 2 });
      }), `Counter gems: a bigger attack. They cannot be moved or broken; each counts down from ${gemCount}, one `,
      `every ${gemStep}, and then thaws into ice.`),
      figure(cells("An ice block with a Sno-Bee egg showing", 1, 1, (s) => {
        s.block("ice", 0, false, 0, 0, 0, { ...PLAIN_BLOCK, egg: true });
      }), "Sno-Bee eggs hide in your own ice and show when they flash. Break one before it hatches for points and units."),
    ),
    el("p", { class: "help" }, "Colour-blind palettes add a glyph to every block kind (a snowflake on ice, a ring in a ",
      "diamond, a crack on an egg, an octagon for a counter gem), and reduced motion stops the shaking and flashing: ",
      "both are settings."),
  );
}

export async function rulesPage(): Promise<Node[]> {
  const book = await api.rules();
  return [
    howToPlay(book),
    el("h2", { id: "rules-numbers" }, "The numbers"),
    el("p", { id: "rules-heading" }, playerText(book.heading)),
    ...book.sections.map((section) => el("section", {},
      el("h2", {}, playerText(section.title)),
      el("table", { class: "rules" }, ...section.rows.map(([name, value, note]) =>
        el("tr", {}, el("td", { class: "name" }, name), el("td", {}, value), el("td", { class: "note" }, playerText(note))))))),
  ];
}
