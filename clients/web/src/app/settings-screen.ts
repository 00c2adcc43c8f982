/**
 * The settings screen (`#/settings`, linked from the lobby and the match page): the keys of each action
 * (physical keys, so any layout works), sound and its volume, hiding ratings during play, and the
 * display settings the renderer reads (palette, reduced motion, wall shake, flashes). Every change is
 * kept at once in the browser (app/settings.ts); a match reads the keys when it starts.
 */

import { button, el } from "./dom";
import { onLeave, show } from "./page";
import {
  ACTIONS, type Action, browserSettings, DEFAULT_BINDINGS, keyLabel, PALETTES, rebind, UNBINDABLE,
} from "./settings";

const ACTION_NAMES: Record<Action, string> = { up: "Up", down: "Down", left: "Left", right: "Right", kick: "Kick" };
const PALETTE_NAMES: Record<(typeof PALETTES)[number], string> = {
  standard: "Standard",
  deuteranopia: "Deuteranopia (green-weak)",
  protanopia: "Protanopia (red-weak)",
  tritanopia: "Tritanopia (blue-weak)",
  "high-contrast": "High contrast",
};

function checkbox(id: string, label: string, checked: boolean, change: (on: boolean) => void): HTMLElement {
  const box = el("input", { id, type: "checkbox", ...(checked ? { checked: "" } : {}) });
  box.addEventListener("change", () => change(box.checked));
  return el("p", {}, el("label", { for: id }, box, ` ${label}`));
}

function choice<W extends string>(id: string, label: string, words: readonly W[], names: Record<W, string>, value: W,
  change: (word: W) => void): HTMLElement {
  const select = el("select", { id }, ...words.map((word) =>
    el("option", word === value ? { value: word, selected: "" } : { value: word }, names[word])));
  select.addEventListener("change", () => change(select.value as W));
  return el("p", {}, el("label", { for: id }, `${label} `), select);
}

export function settingsPage(): void {
  const settings = browserSettings();
  const saved = el("p", { id: "settings-saved", class: "message", role: "status" });
  const keep = (what: string, save: () => void): void => {
    save();
    saved.textContent = `Saved: ${what}.`;
  };

  // ---- keys ----
  const keysOf = (action: Action): string => settings.get("bindings")[action].map(keyLabel).join(", ") || "none";
  const cells = new Map<Action, HTMLElement>();
  let waiting: ((event: KeyboardEvent) => void) | null = null;
  const stopWaiting = (): void => {
    if (waiting) window.removeEventListener("keydown", waiting, true);
    waiting = null;
  };
  const rows = ACTIONS.map((action) => {
    const cell = el("td", { id: `keys-${action}` }, keysOf(action));
    cells.set(action, cell);
    const change: HTMLButtonElement = button("Change", `rebind-${action}`, () => {
      stopWaiting();
      change.textContent = "Press a key… (Esc cancels)";
      saved.textContent = `Press the key for ${ACTION_NAMES[action].toLowerCase()}.`;
      waiting = (event: KeyboardEvent) => {
        if (event.code === "Tab") {  // the focus moves on: no binding
          stopWaiting();
          change.textContent = "Change";
          return;
        }
        event.preventDefault();
        event.stopPropagation();
        stopWaiting();
        change.textContent = "Change";
        if (UNBINDABLE.includes(event.code) || event.code === "") {
          saved.textContent = "Unchanged.";
          return;
        }
        keep(`${ACTION_NAMES[action]} is the key at ${keyLabel(event.code)} (${event.code}; it types “${event.key}” `
          + "on this keyboard)", () => settings.set("bindings", rebind(settings.get("bindings"), action, event.code)));
        for (const each of ACTIONS) cells.get(each)!.textContent = keysOf(each);
      };
      window.addEventListener("keydown", waiting, true);
    });
    change.setAttribute("aria-label", `Change the key for ${ACTION_NAMES[action].toLowerCase()}`);
    return el("tr", {}, el("th", { scope: "row" }, ACTION_NAMES[action]), cell, el("td", {}, change));
  });
  const resetKeys = button("Default keys", "reset-keys", () => {
    keep("the default keys", () => settings.set("bindings", DEFAULT_BINDINGS));
    for (const each of ACTIONS) cells.get(each)!.textContent = keysOf(each);
  });
  onLeave(stopWaiting);

  // ---- sound ----
  const volume = el("input", { id: "set-volume", type: "range", min: "0", max: "100", step: "5",
    value: String(settings.get("volume")) });
  const volumeShown = el("output", { id: "volume-shown", for: "set-volume" }, String(settings.get("volume")));
  volume.addEventListener("input", () => {
    volumeShown.textContent = volume.value;
    keep(`volume ${volume.value}`, () => settings.set("volume", Number(volume.value)));
  });

  const systemReduced = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
  show(
    el("h1", {}, "Settings"),
    el("p", {}, el("a", { href: "#/", id: "back-to-lobby" }, "Back to the lobby")),
    el("section", { "aria-labelledby": "keys-heading" },
      el("h2", { id: "keys-heading" }, "Keys"),
      el("p", { class: "help" }, "Keys are places on the keyboard, shown as a US keyboard prints them: on another "
        + "layout the same places work (WASD is ZQSD on AZERTY). While you play, a bound key does only its action "
        + "(no scrolling or browser shortcut)."),
      el("table", { id: "bindings" }, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Action"),
        el("th", { scope: "col" }, "Keys"), el("th", { scope: "col" }, ""))), el("tbody", {}, ...rows)),
      resetKeys),
    el("section", { "aria-labelledby": "sound-heading" },
      el("h2", { id: "sound-heading" }, "Sound"),
      checkbox("set-sound", "Sound effects", settings.get("sound"), (on) => keep(`sound ${on ? "on" : "off"}`,
        () => settings.set("sound", on))),
      el("p", {}, el("label", { for: "set-volume" }, "Volume "), volume, " ", volumeShown)),
    el("section", { "aria-labelledby": "play-heading" },
      el("h2", { id: "play-heading" }, "During play"),
      checkbox("set-hide-ratings", "Hide ratings during play", settings.get("hideRatings"),
        (on) => keep(`ratings ${on ? "hidden" : "shown"} during play`, () => settings.set("hideRatings", on))),
      checkbox("set-prediction", "Predict my board in the browser (answers keys at once; needs WebAssembly)",
        settings.get("prediction"), (on) => keep(`prediction ${on ? "on" : "off"}`, () => settings.set("prediction", on)))),
    el("section", { "aria-labelledby": "display-heading" },
      el("h2", { id: "display-heading" }, "Display"),
      choice("set-palette", "Colours", PALETTES, PALETTE_NAMES, settings.get("palette"),
        (word) => keep(`colours ${PALETTE_NAMES[word]}`, () => settings.set("palette", word))),
      choice("set-reduced-motion", "Reduced motion", ["system", "on", "off"] as const, {
        system: `As the system says (now: ${systemReduced ? "reduced" : "full motion"})`,
        on: "Always reduce motion", off: "Never reduce motion",
      }, settings.get("reducedMotion"), (word) => keep(`reduced motion ${word}`, () => settings.set("reducedMotion", word))),
      checkbox("set-wall-shake", "Shake the board when a wall is kicked", settings.get("wallShake"),
        (on) => keep(`wall shake ${on ? "on" : "off"}`, () => settings.set("wallShake", on))),
      checkbox("set-flashes", "Flashing effects", settings.get("flashes"),
        (on) => keep(`flashes ${on ? "on" : "off"}`, () => settings.set("flashes", on)))),
    saved,
  );
}
