/**
 * How the board looks for this player: its palette (the standard colours, or colours chosen for a
 * colour vision deficiency, or high contrast, each of those with a glyph per block kind so that no
 * kind is told by its colour alone) and its motion (reduced motion follows the browser's
 * `prefers-reduced-motion` unless the player overrides it; wall shake and flashes each have a
 * toggle). The values come from the settings store (app/settings.ts: `palette`, `reducedMotion`,
 * `wallShake`, `flashes`).
 */

import { browserSettings, type PaletteName } from "../../app/settings";

export interface Colours {
  background: string;
  floor: string;
  border: string;
  ice: string;
  iceEdge: string;
  iceLight: string;
  diamond: string;
  diamondEdge: string;
  gem: string;
  gemEdge: string;
  gemText: string;
  egg: string;
  eggMark: string;
  pengo: string;
  pengoBelly: string;
  beak: string;
  snoBee: string;
  snoBeeDark: string;
  stunned: string;
  flee: string;
  text: string;
  dim: string;
  danger: string;
  packet: string;
  glyph: string;
}

const STANDARD: Colours = {
  background: "#050b14",
  floor: "#0b1a2e",
  border: "#3a6ea5",
  ice: "#9fe3ff",
  iceEdge: "#4fb7e6",
  iceLight: "#e6f8ff",
  diamond: "#ffd23f",
  diamondEdge: "#d98e04",
  gem: "#c77dff",
  gemEdge: "#7b2cbf",
  gemText: "#ffffff",
  egg: "#fff3b0",
  eggMark: "#d98e04",
  pengo: "#ff5964",
  pengoBelly: "#ffffff",
  beak: "#ffd23f",
  snoBee: "#38e07b",
  snoBeeDark: "#1b8a4a",
  stunned: "#b9f5cf",
  flee: "#ffb347",
  text: "#e8f1ff",
  dim: "#7d8fa8",
  danger: "#ff7a7a",
  packet: "#ff9f1c",
  glyph: "#0b1a2e",
};

/**
 * Red–green deficiencies (deuteranopia, protanopia): the Okabe–Ito colours, which stay apart for
 * them: Pengo vermillion against blue Sno-Bees, yellow diamonds, sky-blue ice, reddish-purple gems.
 */
const RED_GREEN: Colours = {
  ...STANDARD,
  ice: "#a6d8f5",
  iceEdge: "#56b4e9",
  iceLight: "#eaf6fd",
  diamond: "#f0e442",
  diamondEdge: "#b8a800",
  gem: "#cc79a7",
  gemEdge: "#8a3d6a",
  egg: "#fff6d5",
  eggMark: "#d55e00",
  pengo: "#e69f00",
  beak: "#f0e442",
  snoBee: "#0072b2",
  snoBeeDark: "#003f63",
  stunned: "#9ccbe8",
  flee: "#d55e00",
  danger: "#ff6f3c",
  packet: "#e69f00",
};

/** Protanopes see reds darker: a lighter orange Pengo and a brighter warning. */
const PROTAN: Colours = { ...RED_GREEN, pengo: "#f5b041", danger: "#ffb000", eggMark: "#e69f00", flee: "#e69f00" };

/** Blue–yellow deficiency (tritanopia): reds, cyans and greys stay apart; yellow and blue do not. */
const TRITAN: Colours = {
  ...STANDARD,
  border: "#6b7b8c",
  ice: "#bfe7ec",
  iceEdge: "#5fa8b3",
  iceLight: "#f2fbfc",
  diamond: "#ff4f6d",
  diamondEdge: "#a8163a",
  gem: "#2ec4b6",
  gemEdge: "#11706a",
  gemText: "#06201e",
  egg: "#ffd6e0",
  eggMark: "#a8163a",
  pengo: "#ff2d55",
  beak: "#ffd6e0",
  snoBee: "#00a7a0",
  snoBeeDark: "#005f5b",
  stunned: "#b8ecea",
  flee: "#ff8fa3",
  danger: "#ff2d55",
  packet: "#ff4f6d",
};

/** High contrast: black floor, white ice, pure hues, every edge dark. */
const HIGH_CONTRAST: Colours = {
  ...STANDARD,
  background: "#000000",
  floor: "#000000",
  border: "#ffffff",
  ice: "#ffffff",
  iceEdge: "#8a8a8a",
  iceLight: "#ffffff",
  diamond: "#ffff00",
  diamondEdge: "#000000",
  gem: "#ff00ff",
  gemEdge: "#000000",
  gemText: "#ffffff",
  // an egg stands out on white ice
  egg: "#00e5ff",
  eggMark: "#000000",
  pengo: "#ff3030",
  snoBee: "#00ff00",
  snoBeeDark: "#007000",
  stunned: "#a0ffa0",
  flee: "#ff9900",
  text: "#ffffff",
  dim: "#c0c0c0",
  danger: "#ff3030",
  packet: "#ffff00",
  glyph: "#000000",
};

export const PALETTE_COLOURS: Readonly<Record<PaletteName, Colours>> = {
  standard: STANDARD,
  deuteranopia: RED_GREEN,
  protanopia: PROTAN,
  tritanopia: TRITAN,
  "high-contrast": HIGH_CONTRAST,
};

/** What the renderer needs to know of the player's settings. */
export interface Look {
  colours: Colours;
  /** A glyph on every block kind (every palette but the standard one). */
  glyphs: boolean;
  /** The board shakes while Pengo kicks the wall. */
  shake: boolean;
  /** Landings, eggs, the bonus, READY! and fuses flash or blink. */
  flashes: boolean;
}

/** The settings a look is made of (app/settings.ts's keys). */
export interface LookSettings {
  palette: PaletteName;
  reducedMotion: "system" | "on" | "off";
  wallShake: boolean;
  flashes: boolean;
}

/** The look from the settings and whether the browser asks for reduced motion. */
export function lookFrom(settings: LookSettings, systemReducesMotion: boolean): Look {
  const reduced = settings.reducedMotion === "on" || (settings.reducedMotion === "system" && systemReducesMotion);
  return {
    colours: PALETTE_COLOURS[settings.palette] ?? STANDARD,
    glyphs: settings.palette !== "standard",
    shake: settings.wallShake && !reduced,
    flashes: settings.flashes && !reduced,
  };
}

/** The standard look (the rules page's pictures and tests). */
export const STANDARD_LOOK: Look = lookFrom({ palette: "standard", reducedMotion: "off", wallShake: true, flashes: true }, false);

/** The player's look, from the settings store and the browser's `prefers-reduced-motion`. */
export function settingsLook(): Look {
  const settings = browserSettings();
  const system = typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
  return lookFrom({
    palette: settings.get("palette"),
    reducedMotion: settings.get("reducedMotion"),
    wallShake: settings.get("wallShake"),
    flashes: settings.get("flashes"),
  }, system);
}
