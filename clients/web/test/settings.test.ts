/**
 * The settings store (app/settings.ts): typed keys with defaults, validated on the way in and out.
 */

import { describe, expect, it } from "vitest";
import {
  type KeyValueStorage, numberIn, onOff, oneOf, SETTINGS, SettingError, SettingsStore,
} from "../src/app/settings";

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
