/**
 * The settings store (app/settings.ts): typed keys with defaults, validated on the way in and out.
 */

import { describe, expect, it } from "vitest";
import {
  actionOf, DEFAULT_BINDINGS, keyLabel, type KeyValueStorage, numberIn, onOff, oneOf, rebind, SETTINGS, SettingError,
  SettingsStore,
} from "../src/app/settings";
import { controlsHelp, keysText } from "../src/games/pengo/input";

/** Local storage's behaviour over a Map (what a test can look into). */
class MapStorage implements KeyValueStorage {
  readonly items = new Map<string, string>();

  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }

  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }

  removeItem(key: string): void {
    this.items.delete(key);
  }
}

const DEFINITIONS = {
  sound: onOff("test.sound", false),
  palette: oneOf("test.palette", ["classic", "deuteranopia", "tritanopia"] as const, "classic"),
  volume: numberIn("test.volume", 0, 1, 0.5),
};

function store(): { settings: SettingsStore<typeof DEFINITIONS>; storage: MapStorage } {
  const storage = new MapStorage();
  return { settings: new SettingsStore(DEFINITIONS, storage), storage };
}

describe("the settings store", () => {
  it("reads every setting's default from an empty storage", () => {
    expect(store().settings.load()).toEqual({ sound: false, palette: "classic", volume: 0.5 });
  });

  it("saves a value under its key and loads it back", () => {
    const { settings, storage } = store();
    settings.set("sound", true);
    settings.set("palette", "tritanopia");
    settings.set("volume", 0.25);
    expect(storage.items).toEqual(new Map([["test.sound", "on"], ["test.palette", "tritanopia"], ["test.volume", "0.25"]]));
    expect(new SettingsStore(DEFINITIONS, storage).load()).toEqual({ sound: true, palette: "tritanopia", volume: 0.25 });
  });

  it("reads a stored value that is not valid as the default", () => {
    const { settings, storage } = store();
    storage.setItem("test.sound", "yes");
    storage.setItem("test.palette", "sepia");
    storage.setItem("test.volume", "11");
    expect(settings.load()).toEqual({ sound: false, palette: "classic", volume: 0.5 });
    storage.setItem("test.volume", "");
    expect(settings.get("volume")).toBe(0.5);
  });

  it("refuses a value that is not valid with a SettingError and stores nothing", () => {
    const { settings, storage } = store();
    expect(() => settings.set("volume", 2)).toThrow(SettingError);
    expect(() => settings.set("palette", "sepia" as "classic")).toThrow(/palette/);
    expect(() => settings.set("volume", Number.NaN)).toThrow(SettingError);
    expect(storage.items.size).toBe(0);
  });

  it("goes back to the default when reset", () => {
    const { settings } = store();
    settings.set("sound", true);
    settings.reset("sound");
    expect(settings.get("sound")).toBe(false);
  });

  it("reads the default when the storage refuses to be read", () => {
    const refusing: KeyValueStorage = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => undefined,
      removeItem: () => undefined,
    };
    expect(new SettingsStore(DEFINITIONS, refusing).get("palette")).toBe("classic");
  });

  it("keeps the sound setting where and as the lobby's box always kept it (floe.sound, on or off)", () => {
    const storage = new MapStorage();
    storage.setItem("floe.sound", "on");
    const settings = new SettingsStore(SETTINGS, storage);
    expect(settings.get("sound")).toBe(true);
    settings.set("sound", false);
    expect(storage.getItem("floe.sound")).toBe("off");
  });
});

describe("the key bindings", () => {
  it("default to arrows or WASD and space, every setting of issue 19 with its default", () => {
    const settings = new SettingsStore(SETTINGS, new MapStorage());
    expect(settings.get("bindings")).toEqual(DEFAULT_BINDINGS);
    expect(settings.load()).toMatchObject({ volume: 60, hideRatings: false, palette: "standard",
      reducedMotion: "system", wallShake: true, flashes: true });
  });

  it("rebind an action to one physical key, taking it from any other action", () => {
    const moved = rebind(DEFAULT_BINDINGS, "up", "KeyA");
    expect(moved.up).toEqual(["KeyA"]);
    expect(moved.left).toEqual(["ArrowLeft"]);
    expect(actionOf(moved, "KeyA")).toBe("up");
    expect(actionOf(moved, "KeyW")).toBeUndefined();
  });

  it("name the player's keys in the controls help, a rebinding included", () => {
    expect(keysText(DEFAULT_BINDINGS)).toBe("↑ or W up, ↓ or S down, ← or A left, → or D right; Space kicks");
    const azerty = rebind(rebind(DEFAULT_BINDINGS, "left", "KeyQ"), "kick", "KeyK");
    expect(controlsHelp(azerty)).toContain(", Q left,");
    expect(controlsHelp(azerty)).toContain("K kicks");
    expect(controlsHelp(azerty)).not.toContain("Space");
    expect(keysText({ ...DEFAULT_BINDINGS, up: [] })).toContain("no key up");
  });

  it("are kept as JSON and read back; a bad stored form reads as the default; a bad value is refused", () => {
    const storage = new MapStorage();
    const settings = new SettingsStore(SETTINGS, storage);
    const azerty = rebind(rebind(DEFAULT_BINDINGS, "up", "KeyW"), "kick", "KeyQ");
    settings.set("bindings", azerty);
    expect(new SettingsStore(SETTINGS, storage).get("bindings")).toEqual(azerty);
    for (const bad of ["{", "[]", '{"up":["KeyW"]}', JSON.stringify({ ...DEFAULT_BINDINGS, kick: ["<script>"] })]) {
      storage.setItem("floe.bindings", bad);
      expect(settings.get("bindings")).toEqual(DEFAULT_BINDINGS);
    }
    expect(() => settings.set("bindings", { ...DEFAULT_BINDINGS, kick: ["a b"] })).toThrow(SettingError);
    expect(() => settings.set("volume", 101)).toThrow(SettingError);
  });

  it("label a key's place as a US keyboard prints it", () => {
    expect(["KeyQ", "Digit1", "ArrowUp", "Space", "Numpad4"].map(keyLabel)).toEqual(["Q", "1", "↑", "Space", "keypad 4"]);
  });
});
